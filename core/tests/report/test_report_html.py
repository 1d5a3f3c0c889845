"""The HTML report: one self-contained page rendered from the report's document (issue 17).
The page in a real browser is tested in core/browser_tests."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pydantic
import pytest
from report_helpers import EXAMPLES, report_of

from kubesched.cli._main import main
from kubesched.report import render_html
from kubesched.report._html import HEATMAP_TABLE_NODES


class _Page(HTMLParser):
    """What the tests read in a page: the external references, the data, the ids."""

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.ids: set[str] = set()
        self.data = ""
        self._in_data = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        for name in ("src", "href"):
            value = a.get(name) or ""
            if value and not value.startswith("#"):
                self.external.append(value)
        self._in_data = a.get("id") == "report-data"

    def handle_endtag(self, tag: str) -> None:
        self._in_data = False

    def handle_data(self, data: str) -> None:
        if self._in_data:
            self.data += data


def parse(page: str) -> _Page:
    parsed = _Page()
    parsed.feed(page)
    return parsed


@pytest.fixture(scope="module")
def zone_outage() -> dict[str, Any]:
    document: dict[str, Any] = report_of(
        "zone-outage", "manifests", scenario=EXAMPLES / "zone-outage/scenario.yaml"
    )
    return document


def test_the_page_fetches_nothing_and_embeds_its_document(zone_outage: dict[str, Any]) -> None:
    page = render_html(zone_outage)
    parsed = parse(page)
    assert parsed.external == []  # no CDN, no stylesheet or script file: it opens offline
    assert json.loads(parsed.data) == zone_outage
    assert {"summary", "allocation", "timeline", "pods", "pod-search", "pod-table"} <= parsed.ids
    assert "<svg" in page and "<style>" in page


def test_the_page_shows_every_pod_the_zones_checkpoints_and_sections(
    zone_outage: dict[str, Any],
) -> None:
    page = render_html(zone_outage)
    for pod in zone_outage["pods"]:
        assert f'data-key="{pod["namespace"]}/{pod["name"]}"' in page
    for zone in set(zone_outage["zones"].values()):
        assert f"{zone}: " in page  # a bar of the zone chart, with its figures
    for checkpoint in zone_outage["checkpoints"]:
        assert f"<td>{checkpoint['name']}</td>" in page
    for key, table in zone_outage["sectionTables"].items():
        assert f'id="section-{key}"' in page
        assert f"<h2>{table['title']}</h2>" in page


def test_text_from_the_cluster_cannot_break_out_of_the_page() -> None:
    document = report_of("basic")
    hostile = "</script><script>alert(1)</script>&amp;"
    document["pods"][0]["message"] = hostile
    document["sectionTables"] = {
        "evil": {"title": hostile, "columns": ["A"], "rows": [[hostile]], "caption": ""}
    }
    page = render_html(document)
    assert "<script>alert(1)" not in page
    assert page.count("</script>") == 2  # the data and the script elements, nothing else
    assert json.loads(parse(page).data)["pods"][0]["message"] == hostile


def test_a_document_that_does_not_match_the_schema_is_refused() -> None:
    document = report_of("basic")
    del document["summary"]
    with pytest.raises(pydantic.ValidationError, match="summary"):
        render_html(document)


def test_many_nodes_are_drawn_as_a_tile_map_instead_of_a_table() -> None:
    document = report_of("basic")
    node = document["nodes"][0]
    document["nodes"] = [{**node, "name": f"node-{i}"} for i in range(HEATMAP_TABLE_NODES + 1)]
    page = render_html(document)
    assert 'id="allocation-table"' not in page
    # a tile per node for each of cpu, memory and pods
    assert len(re.findall(r"<rect [^>]*><title>node-\d+: ", page)) == 3 * (HEATMAP_TABLE_NODES + 1)


def test_simulate_report_writes_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    code = main(["simulate", "--no-progress", str(EXAMPLES / "preemption"), "--report", str(out)])
    assert code == 0, capsys.readouterr().err
    data = json.loads(parse(out.read_text()).data)
    assert data["title"] == f"{EXAMPLES / 'preemption'} --seed 0"
    assert [a["attempt"] for a in data["attempts"]["default/urgent"]] == [1, 2]
    assert data["details"]["default/urgent"]["victims"] == ["default/batch-3"]
    assert "Explanation for" not in capsys.readouterr().out  # the table report is unchanged


def test_simulate_report_to_a_folder_that_does_not_exist_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "report.html"
    code = main(["simulate", "--no-progress", str(EXAMPLES / "basic"), "--report", str(out)])
    assert code != 0
    err = capsys.readouterr().err
    assert str(out) in err and "No such file or directory" in err
