"""Test setup for kubesched-builtin: the conformance kit's fixtures and options for every
module (helper modules such as `fakes` are importable by name through the `pythonpath` option
in the repository's pyproject.toml)."""

pytest_plugins = ["kubesched.testing"]
