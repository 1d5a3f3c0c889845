"""KubeSchedulerConfiguration ``kubescheduler.config.k8s.io/v1``: models, defaults, merging,
MultiPoint expansion and validation.

`load_config` reads and validates a file (no plugins needed); `resolve` then checks it
against the installed plugins (a `PluginCatalog`: the `kubesched.runtime.PluginRegistry`)
and gives each profile's plugins per extension point, Score weights and validated args.
Errors are `kubesched.ConfigError`s that name the file, the field path and what was
expected.

Imports only `kubesched.framework` (and `kubesched._errors`).
"""

from kubesched.config._defaults import (
    BUILTIN_DISTRIBUTION,
    COSCHEDULING_DISTRIBUTION,
    DEFAULT_PLUGINS,
    KNOWN_PROVIDERS,
    VOLUMEBINDING_DISTRIBUTION,
    DefaultPlugin,
    default_plugins,
)
from kubesched.config._effective import effective_config_dict
from kubesched.config._field_errors import plugin_args_error
from kubesched.config._load import load_config, parse_config
from kubesched.config._merge import MergedSet, merge_plugins
from kubesched.config._models import (
    API_VERSION,
    DEFAULT_SCHEDULER_NAME,
    KIND,
    ClientConnection,
    KubeSchedulerConfiguration,
    LeaderElection,
    PluginConfig,
    PluginEntry,
    Plugins,
    PluginSet,
    Profile,
    parse_duration,
)
from kubesched.config._resolve import (
    PluginCatalog,
    ResolvedConfig,
    ResolvedProfile,
    check_profiles,
    resolve,
)

__all__ = [
    "API_VERSION",
    "BUILTIN_DISTRIBUTION",
    "COSCHEDULING_DISTRIBUTION",
    "DEFAULT_PLUGINS",
    "DEFAULT_SCHEDULER_NAME",
    "KIND",
    "KNOWN_PROVIDERS",
    "VOLUMEBINDING_DISTRIBUTION",
    "ClientConnection",
    "DefaultPlugin",
    "KubeSchedulerConfiguration",
    "LeaderElection",
    "MergedSet",
    "PluginCatalog",
    "PluginConfig",
    "PluginEntry",
    "PluginSet",
    "Plugins",
    "Profile",
    "ResolvedConfig",
    "ResolvedProfile",
    "check_profiles",
    "default_plugins",
    "effective_config_dict",
    "load_config",
    "merge_plugins",
    "parse_config",
    "parse_duration",
    "plugin_args_error",
    "resolve",
]
