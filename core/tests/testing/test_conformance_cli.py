"""`kubesched conformance NAME`: the kit on an installed plugin, as a table and an exit code.

The sample plugins are "installed" by a dist-info folder on PYTHONPATH declaring their
`kubesched.plugins` entry points, which is all entry-point discovery looks at.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
NEEDS_BUILTIN = importlib.util.find_spec("kubesched_builtin") is None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    info = root / "kubesched_kit_samples-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: kubesched-kit-samples\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[kubesched.plugins]\n"
        "LabelFilter = kit_samples:LabelFilter\n"
        "ScoreOf150 = kit_samples:ScoreOf150\n"
        "Silent = kit_samples:Silent\n",
        encoding="utf-8",
    )
    return root


def kubesched(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), str(HERE), os.environ.get("PYTHONPATH", "")]),
        "COLUMNS": "250",
    }
    code = "import sys; from kubesched.cli._main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def test_a_conforming_plugin_passes(site: Path) -> None:
    run = kubesched(site, "conformance", "LabelFilter", "--examples", "5")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "Conformance of LabelFilter" in out
    assert "the kubesched.plugins entry point with the plugin's name loads this class" in out
    assert "LabelFilter does not implement Permit" in out  # not applicable, with its reason
    assert " 0 failed, " in out
    assert "failed " not in out.replace(" 0 failed, ", "")


def test_a_broken_plugin_fails_with_the_reason(site: Path) -> None:
    run = kubesched(site, "conformance", "ScoreOf150", "--examples", "5", "--details")
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout
    assert "scores out of [0, 100] after normalizing: {'node-0': 150}" in out
    assert "1 failed, " in out
    assert "Scenario:" in out  # --details prints the full report, with the example


def test_a_rejecting_plugin_without_events_warns_and_strict_fails(site: Path) -> None:
    """Upstream allows a plugin without events_to_register (it is registered for every
    event), so the kit warns; --strict makes the warning a failure."""
    run = kubesched(site, "conformance", "Silent", "--examples", "5")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning" in run.stdout and " 1 warnings, 0 failed, " in run.stdout
    assert "Silent rejects pods but does not implement EnqueueExtensions" in run.stdout
    strict = kubesched(site, "conformance", "Silent", "--examples", "5", "--strict")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert " 0 warnings, 1 failed, " in strict.stdout


def test_args_that_do_not_validate_are_bad_input(site: Path, tmp_path: Path) -> None:
    args = tmp_path / "args.yaml"
    args.write_text("name: LabelFilter\nargs:\n  unknown: 1\n", encoding="utf-8")
    run = kubesched(site, "conformance", "LabelFilter", "--args", str(args))
    assert run.returncode == 2, run.stdout + run.stderr
    # one line, as the config loader words it (LabelFilter's args have no fields)
    assert run.stderr == f"error: {args}: args of LabelFilter: unknown: unknown field\n"


def test_an_unknown_plugin_is_bad_input(site: Path) -> None:
    run = kubesched(site, "conformance", "NoSuchPlugin")
    assert run.returncode == 2
    assert 'plugin "NoSuchPlugin": no installed plugin has this name' in run.stderr
    assert "LabelFilter" in run.stderr
