"""Placement digests: proof that a change altered speed or structure, not decisions.

Runs every benchmark workload at a small size and `kubesched simulate -o json` on every
example, and prints one sha256 per case: of the workload's placements (`namespace/name=node`)
and of the example's whole JSON report (placements, messages, reasons). `--check` compares
them with `placement_digests.json` beside this file and exits 1 naming each case that
differs; `--write` records the current ones (do it only when a change of decisions is meant,
and say why in the commit).

    python benchmarks/digests.py --check
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from kubesched_bench import get_workload, run_workload  # noqa: E402  (needs the path above)
from kubesched_bench.errors import MissingPackageError  # noqa: E402
from kubesched_bench.spec import Size  # noqa: E402

from kubesched.cli import cli  # noqa: E402

DIGESTS = HERE / "placement_digests.json"
EXAMPLES = HERE.parent / "examples"

# Small enough to run in seconds, large enough that every plugin has choices to make.
_SIZES = {
    "SchedulingBasic": Size(200, 200, 400),
    "SchedulingPodAntiAffinity": Size(200, 100, 100),
    "SchedulingPodAffinity": Size(200, 200, 200),
    "SchedulingNodeAffinity": Size(200, 200, 400),
    "TopologySpreading": Size(200, 300, 300),
    "PreemptionBasic": Size(100, 400, 100),
    "GangScheduling": Size(100, 0, 200, gang_size=10),
    "VolumeBinding": Size(100, 100, 200),
}
_SEEDS = (0, 7)


def _workload_digests() -> Iterator[tuple[str, str]]:
    for name, size in _SIZES.items():
        spec = get_workload(name)
        for seed in _SEEDS:
            case = f"workload {name} {size.label()} seed {seed}"
            try:
                result = run_workload(spec.build(size, seed), seed=seed)
            except MissingPackageError as e:
                yield case, f"missing package: {e}"
                continue
            yield case, result.placement


def _example_runs() -> Iterator[tuple[str, list[str]]]:
    for folder in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        configs = sorted(folder.glob("*config*.yaml"))
        if (folder / "manifests").is_dir():
            args = [str(folder / "manifests")]
        else:
            # not the scheduler configs nor the scenario: a config read as a manifest is
            # skipped with its absolute path in the report, which differs between checkouts
            args = [
                str(p)
                for p in sorted(folder.glob("*.yaml"))
                if p not in configs and p.name != "scenario.yaml"
            ]
        if (folder / "scenario.yaml").is_file():
            args += ["--scenario", str(folder / "scenario.yaml")]
        if folder.name == "deploy" or not args:
            continue
        yield folder.name, args
        for config in configs:
            yield f"{folder.name} --config {config.name}", [*args, "--config", str(config)]


def _example_digests() -> Iterator[tuple[str, str]]:
    runner = CliRunner()
    for name, args in _example_runs():
        for seed in _SEEDS:
            result = runner.invoke(
                cli, ["simulate", *args, "-o", "json", "--seed", str(seed), "--no-progress"]
            )
            body = f"exit {result.exit_code}\n{result.output}"
            digest = hashlib.sha256(body.encode()).hexdigest()
            yield f"example {name} seed {seed}", digest


def current() -> dict[str, str]:
    """Every case's digest, in a fixed order."""
    return dict([*_workload_digests(), *_example_digests()])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help=f"compare with {DIGESTS.name}")
    mode.add_argument("--write", action="store_true", help=f"record in {DIGESTS.name}")
    args = parser.parse_args(argv)
    digests = current()
    if args.write:
        DIGESTS.write_text(json.dumps(digests, indent=2) + "\n")
        print(f"wrote {len(digests)} digests to {DIGESTS}")
        return 0
    if not args.check:
        print(json.dumps(digests, indent=2))
        return 0
    expected = json.loads(DIGESTS.read_text())
    cases = sorted(expected.keys() | digests.keys())
    differ = [c for c in cases if expected.get(c) != digests.get(c)]
    for case in differ:
        print(f"differs: {case}: expected {expected.get(case)}, now {digests.get(case)}")
    print(f"{len(digests) - len(differ)} of {len(digests)} cases unchanged")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
