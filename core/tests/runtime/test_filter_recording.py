"""The Filter runner's recording mode (`note_filter_plugins`), which `--explain` reads its
Filter verdicts from: every plugin the runner would run answers, none stops the others."""

from __future__ import annotations

from typing import Any

from conftest import FrameworkFactory

from kubesched.api import Pod
from kubesched.framework import CycleState, FilterPlugin, NodeInfo, Status
from kubesched.testing import make_node, make_pod


def _plugin(name: str, answer: Status | Exception | None) -> type[FilterPlugin]:
    class P(FilterPlugin):
        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            if isinstance(answer, Exception):
                raise answer
            return answer

    P.name = name
    return P


def _node() -> NodeInfo:
    return NodeInfo(make_node("n1").alloc(cpu="4", memory="8Gi", pods=10).obj())


def _notes(
    fwk: Any, state: CycleState, only: set[str] | None = None
) -> list[tuple[str, str | None, str | None]]:
    seen: list[tuple[str, str | None, str | None]] = []

    def note(p: FilterPlugin, status: Status | None, error: BaseException | None) -> None:
        code = None if status is None else str(status.code)
        seen.append((p.name, code, None if error is None else repr(error)))

    fwk.note_filter_plugins(state, make_pod("p").obj(), _node(), note, only=only)
    return seen


def test_every_plugin_answers_past_a_rejection_and_a_raise(
    make_framework: FrameworkFactory,
) -> None:
    fwk = make_framework(
        {
            "Filter": [
                _plugin("Rejects", Status.unschedulable("no")),
                _plugin("Raises", ValueError("boom")),
                _plugin("Passes", None),
            ]
        }
    )
    assert _notes(fwk, CycleState()) == [
        ("Rejects", "Unschedulable", None),
        ("Raises", None, "ValueError('boom')"),
        ("Passes", None, None),
    ]
    # the cycle's runner stops at the first failure, with the same plugins' answers
    status = fwk.run_filter_plugins(CycleState(), make_pod("p").obj(), _node())
    assert (status.code, status.plugin) == (Status.unschedulable().code, "Rejects")


def test_skipped_plugins_and_those_left_out_do_not_run(make_framework: FrameworkFactory) -> None:
    fwk = make_framework({"Filter": [_plugin(n, None) for n in ("A", "B", "C")]})
    state = CycleState()
    state.skip_filter_plugins = {"B"}
    assert [n for n, _, _ in _notes(fwk, state)] == ["A", "C"]
    assert [n for n, _, _ in _notes(fwk, state, only={"C"})] == ["C"]
