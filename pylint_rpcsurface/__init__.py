"""pylint-rpcsurface: check RPCs sent to worker processes by name.

Load it with ``pylint --load-plugins=pylint_rpcsurface``; its checker is ``rpcsurface``.

pylint and astroid are imported only when the checker is asked for: the ``rpcsurface``
command answers from its cache without either, and importing them costs more than
checking a warm cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

__all__ = ["RpcSurfaceChecker", "__version__", "register"]

if TYPE_CHECKING:
    from pylint.lint import PyLinter

    from pylint_rpcsurface.pylint_plugin import RpcSurfaceChecker


def register(linter: PyLinter) -> None:
    """pylint's plugin entry point: add the ``rpcsurface`` checker to *linter*."""
    from pylint_rpcsurface import pylint_plugin  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

    pylint_plugin.register(linter)


def __getattr__(name: str) -> object:
    if name == "RpcSurfaceChecker":
        from pylint_rpcsurface import pylint_plugin  # noqa: PLC0415  # pylint: disable=import-outside-toplevel

        return pylint_plugin.RpcSurfaceChecker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
