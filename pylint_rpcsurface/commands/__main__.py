"""``python -m pylint_rpcsurface.commands``: the ``rpcsurface`` command."""

from pylint_rpcsurface.commands.main import console_main

console_main()
