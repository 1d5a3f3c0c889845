"""Sweep files: axes read with paths relative to the file, and each mistake an error naming
the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched._errors import ManifestError
from kubesched.sweep import ClusterInput, load_sweep

HEAD = "apiVersion: simulation.kubesched.io/v1alpha1\nkind: Sweep\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "small").mkdir()
    (tmp_path / "small" / "nodes.yaml").write_text("")
    (tmp_path / "big.yaml").write_text("")
    (tmp_path / "pods.yaml").write_text("")
    (tmp_path / "most.yaml").write_text("")
    return tmp_path


def write(folder: Path, body: str) -> Path:
    file = folder / "sweep.yaml"
    file.write_text(HEAD + body)
    return file


def test_axes_and_shared_settings_are_read_relative_to_the_file(folder: Path) -> None:
    file = write(
        folder,
        "clusters: [small, {name: large, paths: [big.yaml, pods.yaml]}]\n"
        "configs: [default, most.yaml]\n"
        "seeds: {from: 3, count: 4}\n"
        "until: 1m30s\n",
    )
    spec = load_sweep(file)
    assert spec.clusters == (
        ClusterInput("small", (str(folder / "small"),)),
        ClusterInput("large", (str(folder / "big.yaml"), str(folder / "pods.yaml"))),
    )
    assert spec.configs == ("default", str(folder / "most.yaml"))
    assert spec.seeds == (3, 4, 5, 6)
    assert spec.until == 90.0
    assert spec.scenario is None
    runs = spec.runs()
    assert len(runs) == 2 * 2 * 4
    assert [(r.cluster.label, r.variant.label, r.seed) for r in runs[:5]] == [
        ("small", "default", 3),
        ("small", "default", 4),
        ("small", "default", 5),
        ("small", "default", 6),
        ("small", "most.yaml", 3),
    ]
    assert [r.index for r in runs] == list(range(16))


def test_seeds_default_to_zero(folder: Path) -> None:
    assert load_sweep(write(folder, "clusters: [small]\nconfigs: [default]\n")).seeds == (0,)


@pytest.mark.parametrize(
    ("body", "path", "detail"),
    [
        ("clusters: [small]\nconfigs: [default]\nseed: [1]\n", "seed", "unknown field"),
        ("configs: [default]\n", "clusters", "Required value"),
        ("clusters: []\nconfigs: [default]\n", "clusters", "non-empty list"),
        ("clusters: [nowhere]\nconfigs: [default]\n", "clusters[0]", "'nowhere'"),
        ("clusters: [{name: x}]\nconfigs: [default]\n", "clusters[0].paths", "Required"),
        ("clusters: [{paths: [small]}]\nconfigs: [default]\n", "clusters[0].name", "Required"),
        (
            "clusters: [{name: x, paths: [small], path: y}]\nconfigs: [default]\n",
            "clusters[0].path",
            "unknown field",
        ),
        ("clusters: [small, small]\nconfigs: [default]\n", "clusters[1]", "Duplicate"),
        ("clusters: [small]\n", "configs", "Required value"),
        ("clusters: [small]\nconfigs: [least.yaml]\n", "configs[0]", "'least.yaml'"),
        ("clusters: [small]\nconfigs: [small]\n", "configs[0]", "no such file"),
        ("clusters: [small]\nconfigs: [default]\nseeds: [1, x]\n", "seeds[1]", "integer"),
        ("clusters: [small]\nconfigs: [default]\nseeds: [1, 1]\n", "seeds", "Duplicate"),
        ("clusters: [small]\nconfigs: [default]\nseeds: {count: 0}\n", "seeds.count", "positive"),
        ("clusters: [small]\nconfigs: [default]\nseeds: {to: 3}\n", "seeds.to", "unknown"),
        ("clusters: [small]\nconfigs: [default]\nuntil: soon\n", "until", "Invalid value"),
        ("clusters: [small]\nconfigs: [default]\nscenario: s.yaml\n", "scenario", "Not found"),
    ],
)
def test_a_mistake_names_the_file_and_the_field(
    folder: Path, body: str, path: str, detail: str
) -> None:
    file = write(folder, body)
    with pytest.raises(ManifestError) as raised:
        load_sweep(file)
    assert raised.value.file == str(file)
    assert raised.value.path == path
    assert detail in raised.value.detail


def test_the_kind_must_be_sweep(tmp_path: Path) -> None:
    file = tmp_path / "s.yaml"
    file.write_text("apiVersion: simulation.kubesched.io/v1alpha1\nkind: Scenario\n")
    with pytest.raises(ManifestError, match='kind: Unsupported value: "Scenario"'):
        load_sweep(file)
