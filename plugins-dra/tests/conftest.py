"""Test setup for kubesched-dra: the conformance kit's fixtures and options for every
module (helper modules such as `dra_helpers` are importable by name: this folder is on
sys.path as the conftest's own)."""

pytest_plugins = ["kubesched.testing"]
