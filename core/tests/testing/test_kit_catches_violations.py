"""The conformance kit fails on plugins that break a contract, naming what they broke, and
passes the check on a plugin that keeps it (run through pytest, as a plugin package runs it)."""

from __future__ import annotations

import importlib.util
from typing import Any

# Imported here, before pytester runs: its in-process runs restore sys.modules afterwards,
# and numpy (which the kit imports) cannot be imported twice in one process.
import kit_samples  # noqa: F401
import pytest

import kubesched.testing.contracts  # noqa: F401

_MODULE = """
from kubesched.testing.contracts import PluginConformance
from kit_samples import {plugin}


class TestKit(PluginConformance):
    plugin_cls = {plugin}
    plugin_args = {args!r}
"""


HAS_BUILTIN = importlib.util.find_spec("kubesched_builtin") is not None


def run_kit(
    pytester: pytest.Pytester,
    plugin: str,
    check: str,
    args: dict[str, Any] | None = None,
    *options: str,
) -> pytest.RunResult:
    if "end_to_end" in check and not HAS_BUILTIN:
        pytest.skip("the end-to-end check runs the default profile: needs kubesched-builtin")
    pytester.makepyfile(test_kit=_MODULE.format(plugin=plugin, args=args or {}))
    return pytester.runpytest_inprocess(
        "-p", "kubesched.testing.plugin", "--kubesched-examples=15", "-rs", "-k", check, *options
    )


# (sample plugin, the check that must fail, what the failure must say)
VIOLATIONS = [
    ("MutatingFilter", "test_filter_does_not_mutate", "PreFilter/Filter changed the pod"),
    ("NodeMutatingFilter", "test_filter_does_not_mutate", "changed node info"),
    ("FlakyFilter", "test_filter_is_deterministic", "answered"),
    ("ScoreOf150", "test_score_in_range_after_normalize", "scores out of [0, 100]"),
    ("FailingUnreserve", "test_unreserve_is_idempotent", "KeyError"),
    ("LeakyReserve", "test_reserve_unreserve_restores_state", "differs from before"),
    ("LongPermit", "test_permit_timeout_in_bounds", "Permit waits 3600.0s"),
    ("SyncBinder", "test_bind_is_coroutine", "must be `async def`"),
    ("SyncBinder", "test_extension_point_signatures", "bind must be a coroutine"),
    ("LaxArgsFilter", "test_args_reject_unknown_fields", "accepted an unknown field"),
    ("LaxArgsFilter", "test_args_reject_wrong_types", "label={'conformance'"),
    ("SkipThenReject", "test_pre_filter_skip_is_consistent", "yet Filter rejects"),
    ("StickyExtensions", "test_add_then_remove_pod_restores_filter", "after adding and removing"),
    ("WrongVectorized", "test_filter_vectorized_matches_filter", "vectorized [True"),
    ("WrongBatchScore", "test_score_nodes_matches_score", "node by node ["),
    ("WrongBatchFilter", "test_filter_nodes_matches_filter", "Filter ('Unschedulable'"),
    ("NoReasonGate", "test_end_to_end_loses_no_pod", "is Pending"),
    ("RandomSort", "test_queue_sort_is_a_strict_order", "are both True"),
    ("LabelFilter", "test_entry_point_resolves_to_plugin", 'no "kubesched.plugins" entry'),
]


@pytest.mark.parametrize(
    ("plugin", "check", "says"), VIOLATIONS, ids=[f"{p}-{c}" for p, c, _ in VIOLATIONS]
)
def test_kit_fails_on_a_broken_plugin(
    pytester: pytest.Pytester, plugin: str, check: str, says: str
) -> None:
    result = run_kit(pytester, plugin, check)
    result.assert_outcomes(failed=1)
    assert says in result.stdout.str(), result.stdout.str()


def test_a_rejecting_plugin_without_events_is_a_warning(pytester: pytest.Pytester) -> None:
    """Upstream registers such a plugin for every cluster event, so the kit only warns."""
    result = run_kit(pytester, "Silent", "test_events_to_register_declared")
    result.assert_outcomes(passed=1, warnings=1)
    out = result.stdout.str()
    assert "ConformanceWarning: Silent rejects pods but does not implement EnqueueExtensions" in out


def test_strict_mode_fails_on_the_warning(pytester: pytest.Pytester) -> None:
    result = run_kit(
        pytester, "Silent", "test_events_to_register_declared", None, "--kubesched-strict"
    )
    result.assert_outcomes(failed=1)
    assert "does not implement EnqueueExtensions" in result.stdout.str()
    assert "(strict mode)" in result.stdout.str()


def test_failures_are_shrunk_to_a_minimal_example(pytester: pytest.Pytester) -> None:
    result = run_kit(pytester, "ScoreOf150", "test_score_in_range_after_normalize")
    out = result.stdout.str()
    # hypothesis shrinks the failure to the smallest scenario: one node, no pods on it
    assert "Scenario:" in out and "node node-0: allocatable" in out
    assert "pod to place: default/incoming: requests {}" in out
    assert "node node-1" not in out and "running:" not in out


@pytest.mark.parametrize(
    "check",
    [
        "test_filter_does_not_mutate",
        "test_filter_is_deterministic",
        "test_score_in_range_after_normalize",
        "test_score_nodes_matches_score",
        "test_filter_nodes_matches_filter",
        "test_reserve_unreserve_restores_state",
        "test_unreserve_is_idempotent",
        "test_events_to_register_declared",
        "test_args_reject_unknown_fields",
        "test_args_reject_wrong_types",
        "test_extension_point_signatures",
        "test_builds_with_default_args",
        "test_end_to_end_loses_no_pod",
    ],
)
def test_kit_passes_a_conforming_plugin(pytester: pytest.Pytester, check: str) -> None:
    run_kit(pytester, "LabelFilter", check).assert_outcomes(passed=1)


def test_points_a_plugin_lacks_are_not_applicable(pytester: pytest.Pytester) -> None:
    result = run_kit(pytester, "ScoreOf150", "Permit or Filter or Reserve or queue_sort")
    outcomes = result.parseoutcomes()
    # deselected at collection, never skipped: a CI run shows no skips for them
    assert outcomes.get("deselected", 0) >= 5
    assert "skipped" not in outcomes and "failed" not in outcomes
    out = result.stdout.str()
    assert "checks deselected as not applicable" in out
