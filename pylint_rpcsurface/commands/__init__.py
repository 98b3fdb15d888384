"""The ``rpcsurface`` command: the checker's findings without running pylint.

One module per subcommand, each with ``add_parser`` and ``run``; :mod:`.main` wires
them. ``check`` (text, JSON, SARIF) is the fast path for CI and pre-commit: the same
configuration, engine, rules and cache as the pylint checker, so the same findings. A
warm cache answers without importing astroid or pylint. ``report`` shows each surface's
names and their verdicts, ``fix`` rewrites registries, ``explain`` prints a message's
page. Each gets its findings from :func:`pylint_rpcsurface.rules.findings`.
"""
