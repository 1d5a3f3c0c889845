"""Shared fixtures for the cross-package integration and end-to-end tests."""
