"""The `kubesched` command line (click): simulate, plugins, config."""

import sys

from kubesched.cli._main import EXIT_BAD_INPUT, cli
from kubesched.cli._main import main as _main

__all__ = ["EXIT_BAD_INPUT", "cli", "main"]


def main() -> None:
    """Console-script entry point."""
    sys.exit(_main())
