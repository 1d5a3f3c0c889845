"""Run a scheduler_perf-style workload against kubesched and report its throughput.

    python benchmarks/run.py [--workload NAME] [--nodes N] [--init-pods N] [--pods N]
                             [--gang-size N] [--seed S] [--json] [--record [--note TEXT]]
                             [--mode simulate|run [--apiserver fake|envtest] [--qps Q]]
                             [--sweep N,N,...] [--list] [--targets [--record]]

Sizes default to the workload's first upstream size (SchedulingBasic: 500/500/1000).
`--record` appends a dated row to benchmarks/RESULTS.md (one per size with `--sweep`,
which runs the workload at each node count in a fresh process and shows how the cost
grows). Exit status: 0 done, 1 the run ended with pods, gangs or claims unbound, 2 bad
arguments or a plugin package the workload needs is not installed.

`--mode run` drains a backlog of the workload's pods with `kubesched run` through an API
server in another process (the fake one, or etcd + kube-apiserver from $KUBEBUILDER_ASSETS
with `--apiserver envtest`): pods/s, time to first bind, peak RSS, requests by verb
(kubesched_bench/run_mode.py).

`--targets` prints issue 14's speed targets against the latest figures recorded in
RESULTS.md (kubesched_bench/targets.py); with `--record` it rewrites that comparison at the
end of RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from kubesched_bench import (  # noqa: E402  (needs the sys.path entry above)
    WORKLOADS,
    BenchmarkError,
    MissingPackageError,
    Size,
    get_workload,
    record,
    render_table,
    run_workload,
    to_json,
)
from kubesched_bench.run_mode import add_run_arguments, main_run  # noqa: E402
from kubesched_bench.sweep import add_sweep_argument, main_sweep  # noqa: E402
from kubesched_bench.targets import parse_rows, render_targets, write_targets  # noqa: E402

RESULTS = HERE / "RESULTS.md"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="benchmarks/run.py",
        description="Measure kubesched's scheduling throughput on a scheduler_perf workload.",
    )
    p.add_argument("--workload", default="SchedulingBasic", help="workload name (see --list)")
    p.add_argument("--nodes", type=int, help="number of nodes")
    p.add_argument("--init-pods", type=int, help="pods scheduled before measuring")
    p.add_argument("--pods", type=int, help="measured pods")
    p.add_argument("--gang-size", type=int, help="pods per gang (gang workloads only)")
    p.add_argument("--seed", type=int, default=0, help="seed for uids and tie-breaking")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--record", action="store_true", help="append a row to RESULTS.md")
    p.add_argument("--note", help="free text added to the recorded row's notes")
    p.add_argument("--results-file", type=Path, default=RESULTS, help=argparse.SUPPRESS)
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    p.add_argument(
        "--targets",
        action="store_true",
        help="show issue 14's targets against the latest recorded figures (with --record: "
        "write them into RESULTS.md) and exit",
    )
    add_sweep_argument(p)
    add_run_arguments(p)
    return p


def _list() -> None:
    for spec in WORKLOADS.values():
        sizes = ", ".join(s.label() for s in spec.sizes)
        print(f"{spec.name}  ({spec.upstream})\n    {spec.description}\n    sizes: {sizes}")


def _size_problem(workload: str, gangs: bool, size: Size) -> str | None:
    """What is wrong with `size` for the workload, or None."""
    if min(size.nodes, size.init_pods, size.pods) < 0 or size.pods == 0:
        return "counts must be >= 0 and --pods > 0"
    if not gangs and size.gang_size:
        return f"--gang-size applies to gang workloads only, not {workload}"
    if gangs and (size.gang_size <= 0 or size.pods % size.gang_size):
        return f"--gang-size must be > 0 and divide --pods ({size.pods})"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        _list()
        return 0
    if args.targets:
        if args.record:
            print(write_targets(args.results_file), end="")
        else:
            rows = parse_rows(args.results_file.read_text(encoding="utf-8"))
            print(render_targets(rows), end="")
        return 0
    try:
        spec = get_workload(args.workload)
    except KeyError as e:
        print(f"error: {e.args[0]}", file=sys.stderr)
        return 2
    default = spec.default_size
    size = Size(
        nodes=default.nodes if args.nodes is None else args.nodes,
        init_pods=default.init_pods if args.init_pods is None else args.init_pods,
        pods=default.pods if args.pods is None else args.pods,
        gang_size=default.gang_size if args.gang_size is None else args.gang_size,
    )
    problem = _size_problem(spec.name, spec.has_gangs, size)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.sweep:
        if args.nodes is not None:
            print("error: --sweep gives the node counts; leave out --nodes", file=sys.stderr)
            return 2
        return main_sweep(Path(__file__).resolve(), args)
    if args.mode == "run":
        return main_run(args, size)
    try:
        workload = spec.build(size, args.seed)
    except MissingPackageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        result = run_workload(workload, seed=args.seed)
    except BenchmarkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(to_json(result))
    else:
        render_table(result)
    if args.record:
        row = record(result, args.results_file, note=args.note)
        if not args.json:
            print(f"recorded in {args.results_file}:\n{row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
