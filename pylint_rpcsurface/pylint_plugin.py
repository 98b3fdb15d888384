"""The pylint adapter: finds the configuration, asks the engine, reports on this module.

Kept thin on purpose. All state lives on the checker instance, which pylint creates
anew for every run, so a long-lived process (an IDE's language server) never sees
findings from an earlier run. Under ``-j`` pylint calls ``open()``/``close()`` once per
file in each worker and never in the parent, so nothing is reported from them and the
analysis is kept across files instead of being rebuilt in ``open()``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from astroid import nodes
from pylint import interfaces
from pylint.checkers import BaseChecker
from pylint.typing import MessageDefinitionTuple

from pylint_rpcsurface.cache import (
    CACHE_DIR,
    NO_CACHE_ENV,
    analyse_with_cache,
    disabled_by_environment,
)
from pylint_rpcsurface.config import Config, ConfigError, ConfigFinder
from pylint_rpcsurface.messages import BY_SYMBOL, CHECKER_NAME, MESSAGES
from pylint_rpcsurface.model import Analysis, Finding
from pylint_rpcsurface.sources import real

if TYPE_CHECKING:
    from pylint.lint import PyLinter
    from pylint.message import MessageDefinition

_Span = tuple[int, int | None, int | None, int | None]


class RpcSurfaceChecker(BaseChecker):
    """Checks RPCs dispatched by name against their handlers and registry."""

    name = CHECKER_NAME
    # BaseChecker declares msgs as an instance attribute; pylint reads it from the class.
    msgs: dict[str, MessageDefinitionTuple] = {  # noqa: RUF012
        spec.msgid: (
            (spec.text, spec.symbol, spec.description)
            if spec.default_enabled
            else (spec.text, spec.symbol, spec.description, {"default_enabled": False})
        )
        for spec in MESSAGES
    }
    options = (
        (
            "rpcsurface-config",
            {
                "default": "",
                "type": "path",
                "metavar": "<file>",
                "help": "TOML file whose [tool.rpcsurface] table configures the checker. "
                "By default the nearest pyproject.toml with such a table, searched upward "
                "from each linted file.",
            },
        ),
        (
            "rpcsurface-no-cache",
            {
                "default": False,
                "type": "yn",
                "metavar": "<y or n>",
                "help": f"Don't read or write the fact cache in {CACHE_DIR}/ beside the "
                f"configuration (the environment variable {NO_CACHE_ENV}=1 does the same).",
            },
        ),
    )

    def __init__(self, linter: PyLinter) -> None:
        super().__init__(linter)
        self._finder: ConfigFinder | None = None
        self._analyses: dict[tuple[str, str, str], Analysis] = {}

    def visit_module(self, node: nodes.Module) -> None:
        if not node.file or not node.file.endswith((".py", ".pyi")):
            return
        try:
            config = self._config_finder().config_for(Path(node.file))
        except ConfigError as unusable:
            self._report_config_error(node, unusable)
            return
        if config is None:
            return  # no [tool.rpcsurface] table applies: this module is not ours to judge
        analysis = self._analysis(config, node)
        for error in analysis.config_errors:
            self._report_config_error(node, error)
        findings = analysis.findings_in(node.file)
        if findings:
            self._report(node, findings)

    def _config_finder(self) -> ConfigFinder:
        if self._finder is None:
            explicit = self.linter.config.rpcsurface_config
            self._finder = ConfigFinder(Path(explicit).resolve() if explicit else None)
        return self._finder

    def _analysis(self, config: Config, module: nodes.Module) -> Analysis:
        # pylint builds a module from a string only for --from-stdin: that text, not the
        # saved file, is what the user is editing, so the analysis must see it.
        overrides: dict[str, str] = {}
        buffer_digest = ""
        if module.file_bytes is not None and module.file:
            text = (
                module.file_bytes.decode("utf-8", errors="replace")
                if isinstance(module.file_bytes, bytes)
                else str(module.file_bytes)
            )
            overrides[real(module.file)] = text
            buffer_digest = hashlib.sha256(text.encode()).hexdigest()
        key = (str(config.path), config.digest, buffer_digest)
        if key not in self._analyses:
            use_cache = not (self.linter.config.rpcsurface_no_cache or disabled_by_environment())
            self._analyses[key] = analyse_with_cache(config, overrides, use_cache=use_cache)
        return self._analyses[key]

    def _report_config_error(self, module: nodes.Module, error: ConfigError) -> None:
        self.add_message(
            "rpcsurface-config-error",
            node=module,
            line=1,
            args=(str(error),),
            confidence=interfaces.HIGH,
        )

    def _report(self, module: nodes.Module, findings: tuple[Finding, ...]) -> None:
        spans = _spans(module)
        for finding in findings:
            where = finding.location
            span = (where.line, where.col, where.end_line, where.end_col)
            confidence = getattr(interfaces, finding.confidence, interfaces.UNDEFINED)
            node = spans.get(span)
            if node is not None:
                self.add_message(
                    finding.symbol, node=node, args=finding.args, confidence=confidence
                )
            else:  # no node has exactly this span (a made-up element): report the place
                self.add_message(
                    finding.symbol,
                    node=module,
                    line=where.line,
                    col_offset=where.col,
                    end_lineno=where.end_line,
                    end_col_offset=where.end_col,
                    args=finding.args,
                    confidence=confidence,
                )


def _spans(module: nodes.Module) -> dict[_Span, nodes.NodeNG]:
    """pylint's own nodes of this module by span, innermost last so it wins.

    The engine read the same text, so every finding's span is a node's span here; the
    message is attached to pylint's node so that pragmas and the enclosing object work.
    """
    spans: dict[_Span, nodes.NodeNG] = {}
    for node in module.nodes_of_class(nodes.NodeNG):
        if node.lineno is not None and node.position is None:
            spans[(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = node
    return spans


def register(linter: PyLinter) -> None:
    linter.register_checker(RpcSurfaceChecker(linter))
    _accept_our_symbols_in_enable_and_disable(linter)


def _accept_our_symbols_in_enable_and_disable(linter: PyLinter) -> None:
    """Make ``--disable=rpc-unanswered`` and ``# pylint: disable=rpc-unanswered`` work.

    pylint takes any name starting with ``rp`` for the id of a report (``RP0001``) and
    silently does nothing else with it, so without this every one of our symbols would be
    ignored by ``--enable``, ``--disable`` and pragmas; only the ids would work. The fix
    wraps one method on this linter instance (never the class, so nothing outlives the
    run) and sends our symbols to the message store; every other
    name, report ids included, goes to pylint unchanged. pylint loads plugins before it
    reads ``--enable``/``--disable``, so the command line is covered too.
    """
    # Private to pylint; tests/test_private_hooks.py checks the shape relied on.
    pylints_own = linter._get_messages_to_set  # pylint: disable=protected-access

    def messages_to_set(
        msgid: str, enable: bool, ignore_unknown: bool = False
    ) -> list[MessageDefinition]:
        if msgid in BY_SYMBOL:
            return list(linter.msgs_store.get_message_definitions(msgid))
        return pylints_own(msgid, enable, ignore_unknown)

    linter._get_messages_to_set = messages_to_set  # type: ignore[method-assign]  # pylint: disable=protected-access
