"""Test setup for kubesched-builtin: puts this folder on sys.path so every test module can
`from builders import make_pod, make_node` (pytest's default import mode does this for the
conftest's own folder)."""
