"""The exceptions kubesched raises on purpose, all under one base class.

Every message names what was wrong (the file, field path, plugin, object or text) and what was
expected, so a user can fix the input without reading kubesched's source.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ConfigError",
    "ConflictError",
    "KubeschedError",
    "ManifestError",
    "NotFoundError",
    "PluginLoadError",
    "QuantityError",
    "UnknownPodError",
    "printable",
]


def _restore(
    cls: type[KubeschedError], args: tuple[Any, ...], state: dict[str, Any]
) -> KubeschedError:
    error = cls.__new__(cls, *args)
    error.__dict__.update(state)
    return error


def _join(*parts: str | None) -> str:
    return ": ".join(part for part in parts if part)


def printable(text: str) -> str:
    """`text` with each non-printable character escaped (``\\n``, ``\\x1e``, ``\\u2028``), close
    to Go's strconv.Quote, so a key or value taken from the input cannot break an error line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class KubeschedError(Exception):
    """Base class of every error kubesched raises on purpose.

    Subclasses keep their fields as attributes and build the message in ``__str__``.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take keyword fields, which Exception's default pickling (cls(*args))
        # cannot replay; rebuild from the attributes so errors survive multiprocessing.
        return (_restore, (type(self), self.args, self.__dict__))


_QUANTITY_EXPECTED = (
    "expected a number with an optional suffix (Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E)"
    ' or exponent, e.g. "500m", "1.5Gi", "2e3"'
)


class QuantityError(KubeschedError, ValueError):
    """A resource quantity (``"500m"``, ``"1Gi"``) that does not parse.

    ``text`` is the offending input as written; ``detail`` says what was expected.
    """

    def __init__(self, text: str, detail: str = _QUANTITY_EXPECTED) -> None:
        super().__init__(text, detail)
        self.text = text
        self.detail = detail

    def __str__(self) -> str:
        # A runaway value (a pasted file, 5000 digits) should not flood the log line.
        text = self.text if len(self.text) <= 100 else self.text[:97] + "..."
        text = printable(text)
        return f'quantity "{text}" is not valid: {self.detail}'


class ConfigError(KubeschedError):
    """A scheduler configuration (``KubeSchedulerConfiguration``) that is not valid.

    ``file`` is the configuration file, ``path`` the field path within it
    (``profiles[0].pluginConfig[1].args.scoringStrategy``); either may be unknown.
    The message reads ``"<file>: <path>: <detail>"``, leaving out the parts that are unknown.
    """

    def __init__(self, detail: str, *, file: str | None = None, path: str | None = None) -> None:
        super().__init__(detail)
        self.file = file
        self.path = path
        self.detail = detail

    def __str__(self) -> str:
        # the detail may be several problems, one per line (config._field_errors.FieldErrors)
        detail = "\n".join(printable(line) for line in self.detail.split("\n"))
        return _join(self.file, printable(self.path or ""), detail)


class ManifestError(KubeschedError):
    """A Kubernetes manifest that cannot be loaded into the cluster.

    ``document`` is the 1-based position of the YAML document within ``file``; ``path`` is the
    field path within that document. The message reads
    ``"<file>: document <n>: <path>: <detail>"``, leaving out the parts that are unknown.
    """

    def __init__(
        self,
        detail: str,
        *,
        file: str | None = None,
        document: int | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.file = file
        self.document = document
        self.path = path
        self.detail = detail

    def __str__(self) -> str:
        document = None if self.document is None else f"document {self.document}"
        return _join(self.file, document, printable(self.path or ""), printable(self.detail))


class PluginLoadError(KubeschedError):
    """A plugin that a profile names but that cannot be loaded or built.

    ``plugin`` is the plugin name, ``distribution`` the installed distribution that declares it
    (``None`` when no distribution declares it), ``detail`` what went wrong.
    """

    def __init__(self, plugin: str, detail: str, *, distribution: str | None = None) -> None:
        super().__init__(plugin, detail)
        self.plugin = plugin
        self.distribution = distribution
        self.detail = detail

    def __str__(self) -> str:
        source = f" (from distribution {self.distribution})" if self.distribution else ""
        return f'plugin "{self.plugin}"{source}: {self.detail}'


class ConflictError(KubeschedError):
    """A cluster write that lost a race: a stale resourceVersion, or binding a bound pod.

    ``kind`` is the object kind (``"Pod"``), ``key`` its ``namespace/name`` (or ``name``).
    """

    def __init__(self, kind: str, key: str, detail: str = "the object has been modified") -> None:
        super().__init__(kind, key, detail)
        self.kind = kind
        self.key = key
        self.detail = detail

    def __str__(self) -> str:
        return f'Operation cannot be fulfilled on {self.kind} "{self.key}": {self.detail}'


class AlreadyExistsError(ConflictError):
    """A create of an object whose name is taken: the API server's 409 AlreadyExists
    (apimachinery pkg/api/errors NewAlreadyExists). A ConflictError, as both are 409s.

    ``kind`` is the resource (``"pods"``), ``key`` the object's name.
    """

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(kind, key, "already exists")

    def __str__(self) -> str:
        return f'{self.kind} "{self.key}" already exists'


class NotFoundError(KubeschedError):
    """A cluster read or write of an object that does not exist.

    ``kind`` is the object kind (``"Pod"``), ``key`` its ``namespace/name`` (or ``name``).
    """

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(kind, key)
        self.kind = kind
        self.key = key

    def __str__(self) -> str:
        return f'{self.kind} "{self.key}" not found'


class UnknownPodError(KubeschedError):
    """A pod named on the command line (``--explain POD``) that the input does not have.

    ``option`` is the option, ``pod`` the ``namespace/name`` asked for, ``close`` the most
    similar pods the input has (may be empty).
    """

    def __init__(self, option: str, pod: str, close: list[str]) -> None:
        super().__init__(option, pod, close)
        self.option = option
        self.pod = pod
        self.close = close

    def __str__(self) -> str:
        hint = f"; did you mean {', '.join(self.close)}?" if self.close else ""
        return f'{self.option}: no pod "{self.pod}" in the input{hint}'
