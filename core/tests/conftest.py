"""Test setup for kubesched (core): pytest's `pytester` fixture, with which the kit's own
tests run it on sample plugins in a pytest of their own (`-p kubesched.testing.plugin`)."""

pytest_plugins = ["pytester"]
