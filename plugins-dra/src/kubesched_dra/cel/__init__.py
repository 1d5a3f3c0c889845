"""CEL selectors of devices: upstream's DRA CEL environment, compiled once, with results
cached per (expression, device).

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel. Which CEL implementation
and why: docs/cel.md in this distribution.
"""

from kubesched_dra.cel._cache import CELCache
from kubesched_dra.cel._compile import CompilationResult, compile_expression
from kubesched_dra.cel._device import CELDevice, parse_qualified_name
from kubesched_dra.cel._errors import CELCompileError, CELError, CELRuntimeError

__all__ = [
    "CELCache",
    "CELCompileError",
    "CELDevice",
    "CELError",
    "CELRuntimeError",
    "CompilationResult",
    "compile_expression",
    "parse_qualified_name",
]
