"""The configuration: the ``[tool.rpcsurface]`` table, validated, and where it is found.

:mod:`.schema` holds the keys, the frozen :class:`Config` and its validation;
:mod:`.discovery` finds and reads the table that applies to a file.
"""

from __future__ import annotations

from pylint_rpcsurface.config.discovery import (
    PYPROJECT,
    ConfigFinder,
    declares_rpcsurface,
    load_config,
)
from pylint_rpcsurface.config.schema import (
    DISPATCH_KEYS,
    PROXY_KEYS,
    SURFACE_KEYS,
    TABLE,
    TOP_KEYS,
    Config,
    ConfigError,
    DispatchForm,
    ProxySpec,
    SurfaceSpec,
    existing_table,
    key_of_class,
    parse_table,
)

__all__ = [
    "DISPATCH_KEYS",
    "PROXY_KEYS",
    "PYPROJECT",
    "SURFACE_KEYS",
    "TABLE",
    "TOP_KEYS",
    "Config",
    "ConfigError",
    "ConfigFinder",
    "DispatchForm",
    "ProxySpec",
    "SurfaceSpec",
    "declares_rpcsurface",
    "existing_table",
    "key_of_class",
    "load_config",
    "parse_table",
]
