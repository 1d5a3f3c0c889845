"""Every test here starts and ends with no gates set (no flag, no environment variable)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kubesched.features import ENV_VAR, set_feature_gates


@pytest.fixture(autouse=True)
def _no_gates_set(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(ENV_VAR, raising=False)
    set_feature_gates("")
    yield
    monkeypatch.delenv(ENV_VAR, raising=False)
    set_feature_gates("")
