"""``python -m pylint_rpcsurface.commands``: the ``rpcsurface`` command."""

import sys

from pylint_rpcsurface.commands.main import main

sys.exit(main())
