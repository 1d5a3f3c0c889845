"""The HTML report in a real browser (issue 17): it loads offline without a console error,
a pod can be searched and opened with its attempts, the plugin packages' sections are on
the page, and a screenshot shows something."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, ConsoleMessage, Page, expect

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def write_report(out: Path, *args: str) -> Path:
    """`kubesched simulate ARGS --report OUT`, in a process of its own (Playwright's sync
    API keeps an event loop running in this one, and a simulation runs its own)."""
    command = [sys.executable, "-m", "kubesched.cli._main", "simulate", "--no-progress"]
    done = subprocess.run(
        [*command, *args, "--report", str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def training_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The training example's report (gangs: kubesched-coscheduling's podGroups section)."""
    return write_report(
        tmp_path_factory.mktemp("report") / "training.html",
        str(EXAMPLES / "training" / "manifests"),
        "--config",
        str(EXAMPLES / "training" / "scheduler-config.yaml"),
    )


def open_page(browser: BrowserContext, report: Path) -> tuple[Page, list[str], list[str]]:
    """The report opened from its file; the console errors and every URL requested."""
    page = browser.new_page()
    errors: list[str] = []
    requested: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    return page, errors, requested


def test_the_page_loads_offline_without_console_errors(
    browser: BrowserContext, training_report: Path
) -> None:
    page, errors, requested = open_page(browser, training_report)
    assert errors == []
    assert requested == [training_report.as_uri()]  # nothing fetched beside the file
    expect(page.locator("#pod-count")).to_have_text("21 of 21 pods")
    expect(page.locator("#section-podGroups h2")).to_have_text("PodGroups")
    expect(page.locator("#section-podGroups tbody tr")).to_have_count(4)
    expect(page.locator(".card", has_text="Gangs placed")).to_contain_text("3 / 4")


def test_a_pod_can_be_searched_and_opened_with_every_attempt(
    browser: BrowserContext, training_report: Path
) -> None:
    page, errors, _ = open_page(browser, training_report)
    page.fill("#pod-search", "llama-7")
    visible = page.locator("#pod-table tbody tr.pod:visible")
    expect(visible).to_have_count(1)
    expect(page.locator("#pod-count")).to_have_text("1 of 21 pods")
    expect(visible.first).to_contain_text("Unschedulable")
    visible.first.click()
    detail = page.locator("#pod-detail")
    expect(detail).to_be_visible()
    expect(detail.locator("h3").first).to_have_text("ml/llama-7")
    expect(detail).to_contain_text("ml/llama")  # its gang
    attempts = detail.locator("details.attempt")
    assert attempts.count() >= 1
    # Coscheduling's PreFilter turned the gang away: no node was filtered
    expect(attempts.last.locator("dd").nth(1)).to_contain_text("0 of 4 nodes passed")
    expect(attempts.last.locator("dd").nth(1)).to_contain_text("4 not filtered: Unsch")
    rejected = attempts.last.locator("td.rejected")
    expect(rejected).to_have_count(4)
    expect(rejected.first).to_contain_text("not filtered: UnschedulableAndUnresolvable: podGroup")
    page.select_option("#pod-status", "Bound")
    page.fill("#pod-search", "")
    expect(page.locator("#pod-table tbody tr.pod:visible")).to_have_count(13)
    assert errors == []


def test_a_bound_pod_shows_the_scores_of_the_nodes_it_was_scored_on(
    browser: BrowserContext, training_report: Path
) -> None:
    page, errors, _ = open_page(browser, training_report)
    page.locator('#pod-table tr.pod[data-key="default/notebook"]').click()
    last = page.locator("#pod-detail details.attempt").last
    expect(last.locator("summary").first).to_contain_text("bound to")
    filters = last.locator("table").first
    expect(filters.locator("th", has_text="NodeResourcesFit")).to_have_count(1)
    expect(filters.locator("tbody tr")).to_have_count(4)
    scores = last.locator("table").nth(1)
    expect(scores.locator("th").last).to_have_text("Total")
    assert scores.locator("tbody tr").count() >= 2
    assert errors == []


def png_pixels(png: bytes) -> tuple[int, int, bytes]:
    """Width, height and the decompressed scanlines of a PNG."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    data, i = b"", 8
    while i < len(png):
        (length,) = struct.unpack(">I", png[i : i + 4])
        kind = png[i + 4 : i + 8]
        if kind == b"IDAT":
            data += png[i + 8 : i + 8 + length]
        i += 12 + length
    return width, height, zlib.decompress(data)


def test_a_screenshot_of_the_page_is_not_blank(
    browser: BrowserContext, training_report: Path, tmp_path: Path
) -> None:
    page, errors, _ = open_page(browser, training_report)
    shot = tmp_path / "report.png"
    png = page.screenshot(path=str(shot), full_page=True)
    width, height, pixels = png_pixels(png)
    assert width == 1280 and height > 900  # the whole page, longer than the window
    assert len(set(pixels)) > 64  # many colours: text, cards, the heatmap, the charts
    assert errors == []


def test_volume_claims_and_workloads_are_on_the_page(
    browser: BrowserContext, tmp_path: Path
) -> None:
    # examples/workloads: a StatefulSet with a volume claim template (kubesched-volumebinding)
    report = write_report(tmp_path / "workloads.html", str(EXAMPLES / "workloads"))
    page, errors, _ = open_page(browser, report)
    expect(page.locator(".card", has_text="Claims bound")).to_contain_text("3 / 3")
    expect(page.locator("#section-workloads h2")).to_have_text("Workloads")
    page.fill("#pod-search", "db-1")
    page.locator('#pod-table tr.pod[data-key="default/db-1"]').click()
    claims = page.locator("#pod-detail dd", has_text="data-db-1")
    expect(claims).to_contain_text("data-db-1 (Bound, pvc-")
    assert errors == []
