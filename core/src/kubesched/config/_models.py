"""KubeSchedulerConfiguration ``kubescheduler.config.k8s.io/v1`` as pydantic models.

Upstream: pkg/scheduler/apis/config/v1 (types in k8s.io/kube-scheduler/config/v1) and
defaults.go. Field names are snake_case in Python and camelCase in files. Files are read
strictly, as kube-scheduler's strict decoder does: an unknown field, a snake_case spelling or
a value of the wrong type (``"16"`` for an integer) is an error, and ``null`` means "unset"
(the field takes its default).

Scalar defaults are the models' defaults; the default *plugin set* is not written into the
models: it is merged in when a configuration is resolved (`kubesched.config.resolve`).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Final

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator
from pydantic.alias_generators import to_camel

from kubesched.api import parse_go_duration

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER_NAME",
    "KIND",
    "POINT_FIELDS",
    "ClientConnection",
    "KubeSchedulerConfiguration",
    "LeaderElection",
    "PluginConfig",
    "PluginEntry",
    "PluginSet",
    "Plugins",
    "Profile",
    "parse_duration",
]

API_VERSION: Final = "kubescheduler.config.k8s.io/v1"
KIND: Final = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"

_INT32_MIN = -(2**31)
_INT32_MAX = 2**31 - 1
Int32 = Annotated[int, Field(ge=_INT32_MIN, le=_INT32_MAX)]
"""Go's int32: kube-scheduler could not even decode a value outside this range."""

parse_duration = parse_go_duration
"""Seconds in a Go duration string (kubesched.api.parse_go_duration)."""


def _check_duration(text: str) -> str:
    parse_duration(text)
    return text


Duration = Annotated[str, AfterValidator(_check_duration)]


class _Model(BaseModel):
    """Strict config structure: camelCase in files, unknown fields and wrong types rejected."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid",
        strict=True,
        alias_generator=to_camel,
        # Python code may use the snake_case names; files are read with by_name=False.
        validate_by_name=True,
        validate_by_alias=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _null_is_unset(cls, data: Any) -> Any:
        # Go decodes `field: null` to the zero value, which defaulting then fills in.
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data


class PluginEntry(_Model):
    """One plugin in a `PluginSet` list (upstream ``Plugin``); ``weight`` only matters for
    Score, where 0 or unset means 1."""

    name: str
    weight: Int32 | None = None


class PluginSet(_Model):
    """Plugins ``enabled`` (in order) and ``disabled`` at one extension point; ``"*"`` in
    ``disabled`` disables every default plugin there."""

    enabled: list[PluginEntry] = Field(default_factory=list)
    disabled: list[PluginEntry] = Field(default_factory=list)


POINT_FIELDS: Final[dict[str, str]] = {
    "MultiPoint": "multi_point",
    "PreEnqueue": "pre_enqueue",
    "QueueSort": "queue_sort",
    "PreFilter": "pre_filter",
    "Filter": "filter",
    "PostFilter": "post_filter",
    "PreScore": "pre_score",
    "Score": "score",
    "Reserve": "reserve",
    "Permit": "permit",
    "PreBind": "pre_bind",
    "Bind": "bind",
    "PostBind": "post_bind",
}
"""Extension point name (as in `kubesched.framework.EXTENSION_POINTS`, plus ``MultiPoint``)
→ `Plugins` attribute. The file's key is the attribute in camelCase (``queueSort``)."""


class Plugins(_Model):
    """A profile's plugin sets, one per extension point, plus ``multiPoint``: plugins that
    are placed at every point their class implements."""

    multi_point: PluginSet = Field(default_factory=PluginSet)
    pre_enqueue: PluginSet = Field(default_factory=PluginSet)
    queue_sort: PluginSet = Field(default_factory=PluginSet)
    pre_filter: PluginSet = Field(default_factory=PluginSet)
    filter: PluginSet = Field(default_factory=PluginSet)
    post_filter: PluginSet = Field(default_factory=PluginSet)
    pre_score: PluginSet = Field(default_factory=PluginSet)
    score: PluginSet = Field(default_factory=PluginSet)
    reserve: PluginSet = Field(default_factory=PluginSet)
    permit: PluginSet = Field(default_factory=PluginSet)
    pre_bind: PluginSet = Field(default_factory=PluginSet)
    bind: PluginSet = Field(default_factory=PluginSet)
    post_bind: PluginSet = Field(default_factory=PluginSet)

    def at(self, point: str) -> PluginSet:
        """The set of an extension point named as in `POINT_FIELDS` (``"Score"``)."""
        value: PluginSet = getattr(self, POINT_FIELDS[point])
        return value


class PluginConfig(_Model):
    """Arguments of one plugin in a profile; validated against the plugin's ``Args`` model
    when the configuration is resolved. ``apiVersion``/``kind`` inside ``args`` are allowed
    (``kind`` must then be ``<name>Args``)."""

    name: str
    args: dict[str, Any] | None = None


class Profile(_Model):
    """One scheduling profile (upstream ``KubeSchedulerProfile``): pods whose
    ``spec.schedulerName`` equals ``scheduler_name`` are scheduled with its plugins.
    ``percentage_of_nodes_to_score`` None means the configuration's global value."""

    scheduler_name: str = ""
    percentage_of_nodes_to_score: Int32 | None = None
    plugins: Plugins = Field(default_factory=Plugins)
    plugin_config: list[PluginConfig] = Field(default_factory=list)


class LeaderElection(_Model):
    """Lease-based leader election for ``kubesched run`` (component-base's
    LeaderElectionConfiguration, with kube-scheduler's defaults)."""

    leader_elect: bool = True
    lease_duration: Duration = "15s"
    renew_deadline: Duration = "10s"
    retry_period: Duration = "2s"
    resource_lock: str = "leases"
    resource_name: str = "kube-scheduler"
    resource_namespace: str = "kube-system"


class ClientConnection(_Model):
    """How ``kubesched run`` talks to the API server (component-base's
    ClientConnectionConfiguration, with kube-scheduler's defaults)."""

    kubeconfig: str = ""
    accept_content_types: str = ""
    content_type: str = "application/vnd.kubernetes.protobuf"
    qps: float = 50.0
    burst: Int32 = 100


class KubeSchedulerConfiguration(_Model):
    """The whole configuration file. Defaults follow upstream v1 ``defaults.go``.

    ``extenders`` is accepted so upstream files decode, but any extender is reported as not
    supported: kubesched has no HTTP extender client (write a plugin instead).
    ``healthzBindAddress``/``metricsBindAddress`` are accepted for old files and not used.
    """

    api_version: str = API_VERSION
    kind: str = KIND
    parallelism: Int32 = 16
    percentage_of_nodes_to_score: Int32 | None = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    profiles: list[Profile] = Field(default_factory=list)
    leader_election: LeaderElection = Field(default_factory=LeaderElection)
    client_connection: ClientConnection = Field(default_factory=ClientConnection)
    enable_profiling: bool = True
    enable_contention_profiling: bool = True
    delay_cache_until_active: bool = False
    extenders: list[dict[str, Any]] = Field(default_factory=list)
    healthz_bind_address: str | None = None
    metrics_bind_address: str | None = None

    _source: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _default_profiles(self) -> KubeSchedulerConfiguration:
        # upstream: pkg/scheduler/apis/config/v1/defaults.go SetDefaults_KubeSchedulerConfiguration
        if not self.profiles:
            self.profiles.append(Profile())
        if len(self.profiles) == 1 and not self.profiles[0].scheduler_name:
            self.profiles[0].scheduler_name = DEFAULT_SCHEDULER_NAME
        return self

    @property
    def source(self) -> str | None:
        """The file this configuration was loaded from (None when built in code)."""
        return self._source
