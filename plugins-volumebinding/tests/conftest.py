"""Test setup for kubesched-volumebinding: the conformance kit's fixtures and options for
every module (helper modules such as `volumebinding_helpers` are importable by name through
the `pythonpath` option in the repository's pyproject.toml)."""

pytest_plugins = ["kubesched.testing"]
