"""Report sections that hook modules add to a simulation's report.

A plugin package knows things about a run that the core does not (gangs, volumes, quotas).
It implements the `kubesched_report_sections(cluster, result)` hook (`kubesched.hookspecs`)
and returns `ReportSection`s: the table report prints each as its own table after the pods,
and the JSON report puts each section's `payload` under `"sections"`, by the section's `key`.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.hookspecs import ReportSection

__all__ = ["collect_sections"]


def collect_sections(contributed: Iterable[Iterable[ReportSection] | None]) -> list[ReportSection]:
    """Flatten what every hook implementation returned, sorted by key so the report does
    not depend on the order hook modules were loaded in; a key given twice is an error."""
    sections: dict[str, ReportSection] = {}
    for batch in contributed:
        for section in batch or ():
            if not isinstance(section, ReportSection):
                raise TypeError(
                    "kubesched_report_sections must return ReportSection objects, got "
                    f"{type(section).__name__}"
                )
            if section.key in sections:
                raise ValueError(f"two report sections have the key {section.key!r}")
            sections[section.key] = section
    return [sections[k] for k in sorted(sections)]
