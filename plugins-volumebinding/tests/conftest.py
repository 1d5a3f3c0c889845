"""Test setup for kubesched-volumebinding: puts this folder on sys.path so every test module
can `from volumebinding_helpers import ...` (pytest's default import mode does this for the
conftest's own folder)."""
