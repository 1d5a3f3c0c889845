"""Test setup for kubesched-coscheduling: this folder is on sys.path (pytest's default
import mode puts a conftest's folder there), so test modules import `cosched_helpers`."""

pytest_plugins = ["kubesched.testing"]
