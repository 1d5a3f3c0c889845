"""The end-to-end contract: the plugin in a default profile of an embedded cluster."""

from __future__ import annotations

import pytest

from kubesched._install import install_hint
from kubesched.testing._contract_base import ContractBase, contract
from kubesched.testing._end_to_end import missing_defaults, registry_with, run_end_to_end
from kubesched.testing._scenario import ClusterScenario

__all__ = ["EndToEndContract"]


@contract("EndToEnd")
class EndToEndContract(ContractBase):
    """Scheduling with the plugin loses no pod and over-commits no node."""

    def test_end_to_end_loses_no_pod(self) -> None:
        """in a default profile with the plugin, every pod is bound or held back with a
        reason, and no node is over-committed"""
        cls = self.under_test.cls
        registry = registry_with(cls)
        missing = missing_defaults(registry, cls)
        if missing:
            pytest.skip(
                "not applicable: the default profile needs kubesched-builtin "
                f"({install_hint('kubesched-builtin')}); missing: {', '.join(missing)}"
            )

        def check(cluster: ClusterScenario) -> None:
            report = run_end_to_end(cls, self.under_test.raw_args, cluster, registry=registry)
            assert report.ok, report.describe()

        self.for_all_clusters(check)
