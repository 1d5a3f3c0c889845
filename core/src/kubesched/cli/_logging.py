"""`--log-level` for `kubesched simulate`: kubesched's own log lines on stderr."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

__all__ = ["LOG_FORMAT", "cli_logging", "log_level_option"]

LOG_FORMAT = "%(asctime)s %(levelname).1s %(name)s] %(message)s"

log_level_option = click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Lowest level of kubesched's log lines written to stderr (debug: each scheduling "
    "error with its traceback).",
)


@contextmanager
def cli_logging(level: str) -> Iterator[None]:
    """While the command runs, write the `kubesched` loggers' records of `level` and above
    to stderr; then leave the loggers as they were (commands run in one process in tests)."""
    logger = logging.getLogger("kubesched")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    saved = logger.level
    logger.addHandler(handler)
    logger.setLevel(level.upper())
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved)
