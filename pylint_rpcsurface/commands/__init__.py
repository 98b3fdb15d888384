"""The ``rpcsurface`` command: the checker's findings without running pylint.

One module per subcommand, each with ``HELP``, ``DESCRIPTION``, ``add_arguments`` and
``run``; :mod:`.main` wires them. ``check`` (text, JSON, SARIF) is the fast path for CI
and pre-commit: the same configuration, engine, rules and cache as the pylint checker,
so the same findings. A warm cache answers without importing astroid or pylint.
``report`` shows each surface's names and their verdicts, ``fix`` rewrites registries,
``explain`` prints a message's page. Whatever they say about the code comes from
:mod:`pylint_rpcsurface.rules` (``rules.findings``, ``rules.wanted_registry``): no
subcommand derives a finding itself.
"""
