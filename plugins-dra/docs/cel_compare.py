"""Compare the Python CEL implementations on DRA selectors: what they get right of upstream's
environment, and how long compiling and evaluating take.

Run in a scratch venv holding all three (wheels only) and this distribution:

    python -m venv /tmp/celcmp
    /tmp/celcmp/bin/pip install --only-binary=:all: cel-python common-expression-language \
        cel-expr-python protobuf
    /tmp/celcmp/bin/pip install -e core -e plugins-dra
    /tmp/celcmp/bin/python plugins-dra/docs/cel_compare.py

Quantities are reduced to what each library can carry (a Python object for celpy, a tagged
map for the Rust binding, a protobuf message for the C++ binding) with the same one-line
`quantity()` and `compareTo`; semver likewise. The last row is kubesched_dra.cel itself
(upstream's whole environment, the device converted from the API model per evaluation).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

EXPRESSIONS = {
    "driver+model": (
        'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"'
    ),
    "memory>=40Gi": ('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'),
    "semver>": (
        'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0"))'
    ),
}
# What upstream's environment does with each, checked per library.
CHECKS = {
    "cel.bind": ('cel.bind(g, device.attributes["gpu.example.com"], g.model == "a100")', True),
    "strings ext (lowerAscii)": ('device.driver.lowerAscii() == "gpu.example.com"', True),
    "compile-time type error": ('quantity("1Gi") == 1', "compile error"),
    "non-bool result refused at compile": ("1", "compile error"),
    "missing attribute: error": ('device.attributes["gpu.example.com"].nosuch == 1', "error"),
    "has() on missing attribute": ('has(device.attributes["gpu.example.com"].nosuch)', False),
}
GIB = 2**30


def _timeit(fn: Callable[[], Any], repeat: int) -> float:
    """Median microseconds of `repeat` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def _semver_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


class CelPy:
    name = "cel-python (celpy) 0.5"

    def __init__(self) -> None:
        import celpy
        import celpy.celtypes as ct

        self.celpy, self.ct = celpy, ct
        self.env = celpy.Environment()

        class Q:
            def __init__(self, value: int) -> None:
                self.value = value

        class V:
            def __init__(self, key: tuple[int, ...]) -> None:
                self.key = key

        def quantity(text: Any) -> Q:
            return Q(int(str(text)[:-2]) * GIB)

        def semver(text: Any) -> V:
            return V(_semver_key(str(text)))

        def compare_to(a: Q, b: Q) -> Any:
            return ct.IntType((a.value > b.value) - (a.value < b.value))

        def is_greater_than(a: V, b: V) -> Any:
            return ct.BoolType(a.key > b.key)

        self.Q, self.V = Q, V
        self.functions = {
            "quantity": quantity,
            "semver": semver,
            "compareTo": compare_to,
            "isGreaterThan": is_greater_than,
        }

    def compile(self, expression: str) -> Any:
        return self.env.program(self.env.compile(expression), functions=self.functions)

    def device(self) -> Any:
        ct = self.ct
        return ct.MapType(
            {
                ct.StringType("driver"): ct.StringType("gpu.example.com"),
                ct.StringType("attributes"): ct.MapType(
                    {
                        ct.StringType("gpu.example.com"): ct.MapType(
                            {
                                ct.StringType("model"): ct.StringType("a100"),
                                ct.StringType("driverVersion"): self.V((1, 2, 3)),
                            }
                        )
                    }
                ),
                ct.StringType("capacity"): ct.MapType(
                    {
                        ct.StringType("gpu.example.com"): ct.MapType(
                            {ct.StringType("memory"): self.Q(80 * GIB)}
                        )
                    }
                ),
            }
        )

    def evaluate(self, program: Any, device: Any) -> Any:
        return program.evaluate({"device": device})


class RustCel:
    name = "common-expression-language 0.10 (Rust)"

    def __init__(self) -> None:
        import cel

        self.cel = cel

        def quantity(text: Any) -> dict[str, int]:
            return {"__q": int(str(text)[:-2]) * GIB}

        def semver(text: Any) -> dict[str, list[int]]:
            return {"__v": list(_semver_key(str(text)))}

        def compare_to(a: Any, b: Any) -> int:
            return (a["__q"] > b["__q"]) - (a["__q"] < b["__q"])

        def is_greater_than(a: Any, b: Any) -> bool:
            return bool(a["__v"] > b["__v"])

        self.functions = {
            "quantity": quantity,
            "semver": semver,
            "compareTo": compare_to,
            "isGreaterThan": is_greater_than,
        }

    def compile(self, expression: str) -> Any:
        return self.cel.compile(expression)

    def device(self) -> Any:
        value = {
            "driver": "gpu.example.com",
            "attributes": {
                "gpu.example.com": {"model": "a100", "driverVersion": {"__v": [1, 2, 3]}}
            },
            "capacity": {"gpu.example.com": {"memory": {"__q": 80 * GIB}}},
        }
        return self.cel.Context({"device": value}, self.functions)

    def evaluate(self, program: Any, device: Any) -> Any:
        return program.execute(device)


class CppCel:
    name = "cel-expr-python 0.1.3 (C++)"

    def __init__(self) -> None:
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_bindings, ext_strings
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

        file = descriptor_pb2.FileDescriptorProto(
            name="cmp.proto", package="kubernetes", syntax="proto3"
        )
        for name in ("Quantity", "Semver"):
            file.message_type.add(name=name).field.add(name="v", number=1, type=9, label=1)
        pool = descriptor_pool.DescriptorPool()
        pool.Add(file)
        self.Q = message_factory.GetMessageClass(pool.FindMessageTypeByName("kubernetes.Quantity"))
        self.V = message_factory.GetMessageClass(pool.FindMessageTypeByName("kubernetes.Semver"))
        q, v = cel.Type("kubernetes.Quantity"), cel.Type("kubernetes.Semver")

        def quantity(text: str) -> Any:
            return self.Q(v=str(int(text[:-2]) * GIB))

        def semver(text: str) -> Any:
            return self.V(v=text)

        def compare_to(a: Any, b: Any) -> int:
            x, y = int(a.v), int(b.v)
            return (x > y) - (x < y)

        def is_greater_than(a: Any, b: Any) -> bool:
            return _semver_key(a.v) > _semver_key(b.v)

        functions = [
            cel.FunctionDecl("quantity", [cel.Overload("q", q, [cel.Type.STRING], impl=quantity)]),
            cel.FunctionDecl("semver", [cel.Overload("v", v, [cel.Type.STRING], impl=semver)]),
            cel.FunctionDecl(
                "compareTo",
                [cel.Overload("qc", cel.Type.INT, [q, q], is_member=True, impl=compare_to)],
            ),
            cel.FunctionDecl(
                "isGreaterThan",
                [cel.Overload("vg", cel.Type.BOOL, [v, v], is_member=True, impl=is_greater_than)],
            ),
        ]
        self.env = cel.NewEnv(
            pool,
            variables={"device": cel.Type.Map(cel.Type.STRING, cel.Type.DYN)},
            functions=functions,
            extensions=[ext_bindings.ExtBindings(), ext_strings.ExtStrings()],
        )
        self.bool_type = cel.Type.BOOL

    def compile(self, expression: str) -> Any:
        program = self.env.compile(expression)
        if program.return_type() not in (self.bool_type, program.return_type().DYN):
            raise ValueError("must evaluate to bool")
        return program

    def device(self) -> Any:
        value = {
            "driver": "gpu.example.com",
            "attributes": {
                "gpu.example.com": {"model": "a100", "driverVersion": self.V(v="1.2.3")}
            },
            "capacity": {"gpu.example.com": {"memory": self.Q(v=str(80 * GIB))}},
        }
        return self.env.Activation({"device": value})

    def evaluate(self, program: Any, device: Any) -> Any:
        result = program.eval(device)
        if str(result.type().name()) == "ERROR":
            raise RuntimeError(result.value())
        return result.value()


class KubeschedDRA:
    name = "kubesched_dra.cel (on cel-expr-python)"

    def __init__(self) -> None:
        from kubesched_dra.api import Device
        from kubesched_dra.cel import CELDevice, compile_expression

        self.compile_expression, self.CELDevice = compile_expression, CELDevice
        self.model = Device.model_validate(
            {
                "name": "gpu-0",
                "attributes": {"model": {"string": "a100"}, "driverVersion": {"version": "1.2.3"}},
                "capacity": {"memory": {"value": "80Gi"}},
            }
        )

    def compile(self, expression: str) -> Any:
        result = self.compile_expression(expression)
        if result.error is not None:
            raise ValueError(str(result.error))
        return result

    def device(self) -> Any:
        return self.CELDevice.from_device("gpu.example.com", self.model)

    def evaluate(self, program: Any, device: Any) -> Any:
        return program.device_matches(device)


def _check(lib: Any, expression: str, expected: object) -> str:
    try:
        program = lib.compile(expression)
    except Exception:
        return "yes" if expected == "compile error" else "no (compile error)"
    try:
        value = lib.evaluate(program, lib.device())
    except Exception:
        if expected == "compile error":
            return "no (runtime error)"
        return "yes" if expected == "error" else "no (error)"
    if expected in ("error", "compile error"):
        return f"no ({value!r})"
    return "yes" if bool(value) == expected else f"no ({value!r})"


def main() -> None:
    libraries = []
    for cls in (CelPy, RustCel, CppCel, KubeschedDRA):
        try:
            libraries.append(cls())
        except ImportError as error:
            print(f"{cls.name}: not installed ({error})")
    print("| implementation | " + " | ".join(CHECKS) + " |")
    print("|---|" + "---|" * len(CHECKS))
    for lib in libraries:
        cells = [_check(lib, expression, expected) for expression, expected in CHECKS.values()]
        print(f"| {lib.name} | " + " | ".join(cells) + " |")
    print()
    print(
        "| implementation | expression | compile µs | evaluate µs (input built) "
        "| evaluate µs (input reused) |"
    )
    print("|---|---|---|---|---|")
    for lib in libraries:
        for label, expression in EXPRESSIONS.items():
            program = lib.compile(expression)
            assert bool(lib.evaluate(program, lib.device())) is True, (lib.name, label)
            device = lib.device()
            compile_us = _timeit(lambda e=expression, lb=lib: lb.compile(e), 200)
            fresh_us = _timeit(lambda p=program, lb=lib: lb.evaluate(p, lb.device()), 2000)
            reused_us = _timeit(lambda p=program, d=device, lb=lib: lb.evaluate(p, d), 2000)
            print(f"| {lib.name} | {label} | {compile_us:.0f} | {fresh_us:.1f} | {reused_us:.1f} |")


if __name__ == "__main__":
    main()
