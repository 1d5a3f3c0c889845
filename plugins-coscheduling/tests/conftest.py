"""Test setup for kubesched-coscheduling: the conformance kit's fixtures and options for
every module (`cosched_helpers` is importable by name through the `pythonpath` option in the
repository's pyproject.toml)."""

pytest_plugins = ["kubesched.testing"]
