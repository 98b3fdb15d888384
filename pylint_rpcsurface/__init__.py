"""pylint-rpcsurface: check RPCs sent to worker processes by name.

Load it with ``pylint --load-plugins=pylint_rpcsurface``; its checker is ``rpcsurface``.
"""

from __future__ import annotations

from pylint_rpcsurface.checker import RpcSurfaceChecker, register

__version__ = "0.1.0"

__all__ = ["RpcSurfaceChecker", "__version__", "register"]
