"""Code, Status and CycleState as upstream interface.go and cycle_state.go define them."""

from __future__ import annotations

import pytest

from kubesched.framework import Code, CycleState, StateNotFoundError, Status, is_success


def test_codes_keep_upstreams_order_and_names() -> None:
    assert [(c.value, str(c)) for c in Code] == [
        (0, "Success"), (1, "Error"), (2, "Unschedulable"), (3, "UnschedulableAndUnresolvable"),
        (4, "Wait"), (5, "Skip"), (6, "Pending"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("status", "success", "rejected"),
    [
        (None, True, False),
        (Status(), True, False),
        (Status.unschedulable("x"), False, True),
        (Status.unresolvable("x"), False, True),
        (Status.pending("x"), False, True),
        (Status.as_error("x"), False, False),
        (Status.wait(), False, False),
        (Status.skip(), False, False),
    ],
)
def test_success_and_rejection(status: Status | None, success: bool, rejected: bool) -> None:
    assert is_success(status) is success
    if status is not None:
        assert status.is_rejected is rejected


def test_message_puts_the_error_first() -> None:
    s = Status(Code.Error, "more", error=ValueError("broken"))
    assert s.message() == "broken, more"
    assert Status.unschedulable("a", "b").message() == "a, b"


def test_with_plugin_copies_instead_of_mutating() -> None:
    shared = Status.unschedulable("full")
    mine = shared.with_plugin("Fit")
    assert (mine.plugin, shared.plugin) == ("Fit", "")
    assert mine.with_plugin("Fit") is mine


class Counter:
    def __init__(self, n: int) -> None:
        self.n = n

    def clone(self) -> Counter:
        return Counter(self.n)


def test_cycle_state_read_write_delete() -> None:
    state = CycleState()
    with pytest.raises(StateNotFoundError) as err:
        state.read("k")
    assert str(err.value) == "not found"
    state.write("k", 1)
    assert state.read("k") == 1 and "k" in state
    state.delete("k")
    assert "k" not in state


def test_clone_clones_cloneable_values_and_shares_others() -> None:
    state = CycleState()
    shared = ["read-only"]
    state.write("counter", Counter(1))
    state.write("shared", shared)
    state.skip_filter_plugins.add("P")
    copy = state.clone()
    copy.read("counter").n = 5
    assert state.read("counter").n == 1
    assert copy.read("shared") is shared
    assert copy.skip_filter_plugins == {"P"}
