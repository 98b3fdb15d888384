"""What the language server keeps between messages, and its answer to each.

Protocol handling only: every answer comes from the engine ``rpcsurface check`` and
``report`` use. One analysis per configuration is kept: its facts (the findings with
them) answer every request until a file the analysis reads changes, on disk or in a
buffer; a new analysis takes the pieces that still hold from the store, as ``check``
does, with the open buffers' text in place of their files.
"""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, TextDocument
from pygls.workspace.position_codec import ServerTextPosition

from pylint_rpcsurface.commands.check import message_text
from pylint_rpcsurface.commands.fix.layout import line_length
from pylint_rpcsurface.commands.projects import Scope
from pylint_rpcsurface.commands.report import build, build_proxy
from pylint_rpcsurface.config import Config, ConfigError, ConfigFinder
from pylint_rpcsurface.config.pylint_control import (
    MessageControl,
    PylintOptionError,
    message_control,
)
from pylint_rpcsurface.engine import Facts
from pylint_rpcsurface.engine.lookup import (
    RpcName,
    answered_names,
    handler_definitions,
    names_at,
    send_sites,
)
from pylint_rpcsurface.engine.pieces import KeptBetweenAnalyses
from pylint_rpcsurface.messages import BY_SYMBOL
from pylint_rpcsurface.model import Analysis, Finding, Location
from pylint_rpcsurface.server.actions import (
    REGISTRY_SYMBOLS,
    LineSpan,
    closest,
    disable_pragma,
    registry_rewrite,
)
from pylint_rpcsurface.server.positions import from_position, to_range
from pylint_rpcsurface.server.rename import Refused, renaming
from pylint_rpcsurface.sources import SourceTree, real
from pylint_rpcsurface.store import facts_with_cache, findings_or_facts

_T = TypeVar("_T")

SOURCE = "rpcsurface"
# A message's category (the first letter of its id) as the editor's severity.
_SEVERITY = {
    "F": types.DiagnosticSeverity.Error,
    "E": types.DiagnosticSeverity.Error,
    "W": types.DiagnosticSeverity.Warning,
}

# The state of every file the analysis reads: an edit, a checkout or a new module changes it.
_FileStates = tuple[tuple[str, int, int], ...]
# What an analysis is computed from: the configuration, the open buffers, the files' states.
_Inputs = tuple[Config, tuple[tuple[str, str], ...], _FileStates]


@dataclass
class _Analysed:
    """One configuration's analysis, and what it was computed from."""

    config: Config
    analysis: Analysis  # the findings and configuration errors, as ``check`` has them
    control: MessageControl
    scope: Scope
    buffers: Mapping[str, str]  # the open buffers' text, read in place of their files
    # None when the findings came from the store, which keeps no facts: computed when a
    # request needs them, or once the diagnostics are published (Session._facts_of).
    facts: Facts | None


def _file_states(config: Config) -> _FileStates:
    """The stat of the configuration file and of every module under the source roots."""
    states = []
    for path in (str(config.path), *SourceTree(config.source_roots).python_files()):
        try:
            info = os.stat(path)
        except OSError:
            continue
        states.append((path, info.st_mtime_ns, info.st_size))
    return tuple(states)


def _registrable(handler: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """*handler* as a function of its own: pygls marks each function it registers, which a
    bound method can't be."""

    def handle(params: Any) -> Any:
        return handler(params)

    return handle


def _registrable_request(handler: Callable[[Any], Awaitable[Any]]) -> Callable[[Any], Any]:
    """*handler*, a coroutine, as a coroutine function of its own: pygls runs it as a task
    it cancels on the client's ``$/cancelRequest``."""

    async def handle(params: Any) -> Any:
        return await handler(params)

    return handle


class _Workspace:
    """The open documents as they were when a job was handed to the analysis thread (the
    protocol's thread goes on changing its own as edits arrive); a file not open is read
    from disk, as pygls's workspace reads it."""

    def __init__(self, documents: Mapping[str, TextDocument], codec: PositionCodec) -> None:
        self.text_documents = {
            uri: TextDocument(
                uri,
                document.source,
                document.version,
                document.language_id,
                position_codec=codec,
            )
            for uri, document in documents.items()
        }
        self.position_codec = codec

    def get_text_document(self, uri: str) -> TextDocument:
        found = self.text_documents.get(unquote(uri))
        return found if found is not None else TextDocument(uri, position_codec=self.position_codec)


def _refusal(reason: str) -> JsonRpcException:
    return JsonRpcException(message=reason, code=types.LSPErrorCodes.RequestFailed)


def _span(span: types.Range) -> tuple[int, int, int, int]:
    return (span.start.line, span.start.character, span.end.line, span.end.character)


def _covers(span: types.Range, position: types.Position) -> bool:
    return (
        (span.start.line, span.start.character)
        <= (position.line, position.character)
        <= (
            span.end.line,
            span.end.character,
        )
    )


def _severity(symbol: str) -> types.DiagnosticSeverity:
    return _SEVERITY.get(BY_SYMBOL[symbol].msgid[0], types.DiagnosticSeverity.Information)


class Session:
    """The server's state: the configurations found, each one's latest analysis, and
    which of their findings each open file was last told."""

    def __init__(self, server: LanguageServer, *, use_cache: bool) -> None:
        self.server = server
        self.use_cache = use_cache
        # Every analysis and every answer computed from one runs on this one thread, one
        # at a time (astroid's state is the process's), while the protocol's thread goes
        # on reading messages: an edit made during an analysis makes it stale.
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rpcsurface")
        self._view: _Workspace | None = None  # the documents of the job running
        self._edits = 0  # the notifications so far that change what an analysis reads
        self._publishing: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the protocol's
        self._collected = False  # whether the first analysis's garbage was collected
        # The store's writes of the analyses whose diagnostics are not published yet:
        # written after publishing, and always before the next analysis reads the store.
        self._unwritten: list[Callable[[], object]] = []
        self.finder = ConfigFinder()
        # Each configuration's latest analysis (None: it can't be used), by its file.
        self.analysed: dict[Path, tuple[_Inputs, _Analysed | None]] = {}
        # The modules' digests each configuration's analyses computed: the next analysis
        # computes only those of the versions that changed (the buffer being typed in).
        self.kept: dict[Path, KeptBetweenAnalyses] = {}
        self.said: set[str] = set()
        for method, handler in (
            (types.TEXT_DOCUMENT_DID_OPEN, self.opened),
            (types.TEXT_DOCUMENT_DID_CHANGE, self.changed),
            (types.TEXT_DOCUMENT_DID_SAVE, self.changed),
            (types.TEXT_DOCUMENT_DID_CLOSE, self.closed),
            (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, self.changed),
        ):
            server.feature(method)(_registrable(handler))
        for method, answer in (
            (types.TEXT_DOCUMENT_DEFINITION, self.definition),
            (types.TEXT_DOCUMENT_REFERENCES, self.references),
            (types.TEXT_DOCUMENT_HOVER, self.hover),
            (types.TEXT_DOCUMENT_PREPARE_RENAME, self.prepare_rename),
            (types.TEXT_DOCUMENT_RENAME, self.rename),
            (types.TEXT_DOCUMENT_CODE_ACTION, self.code_actions),
        ):
            server.feature(method)(_registrable_request(partial(self._answer, answer)))

    async def _answer(self, answer: Callable[[Any], _T], params: Any) -> _T:
        """*answer* to a request, computed on the analysis thread once the diagnostics of
        every edit sent before it are published (it answers from that analysis). The
        client's ``$/cancelRequest`` cancels the wait: an answer still queued is never
        computed, and one being computed is not sent."""
        while self._publishing is not None and not self._publishing.done():
            await asyncio.shield(self._publishing)
        return await self._in_worker(answer, params)

    async def _in_worker(
        self, job: Callable[[Any], _T], argument: Any, *, then_write: bool = True
    ) -> _T:
        """*job* run on the analysis thread; the store written after it unless the caller
        writes it (*then_write* false: once it has published what the job computed)."""
        self._loop = asyncio.get_running_loop()
        view = _Workspace(self.server.workspace.text_documents, self._codec())

        def run() -> _T:
            self._view = view
            try:
                return job(argument)
            finally:
                if then_write:
                    self._write_store()

        return await self._loop.run_in_executor(self._worker, run)

    def _on_protocol_thread(self, send: Callable[..., Any], *arguments: Any) -> None:
        """Send a message from the analysis thread: the protocol's writer is its thread's."""
        assert self._loop is not None  # set before any job is handed to the thread
        self._loop.call_soon_threadsafe(send, *arguments)

    # ---------------------------------------------------------------- diagnostics

    def opened(self, params: types.DidOpenTextDocumentParams) -> None:
        del params
        self._edited()

    def changed(
        self,
        params: types.DidChangeTextDocumentParams
        | types.DidSaveTextDocumentParams
        | types.DidChangeWatchedFilesParams,
    ) -> None:
        del params
        self._edited()

    def closed(self, params: types.DidCloseTextDocumentParams) -> None:
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )
        self._edited()

    def _edited(self) -> None:
        """An edit (or a file changed on disk): the open files' diagnostics are computed
        again, once the analysis running, if any, is done."""
        self._edits += 1
        if self._publishing is None or self._publishing.done():
            self._publishing = asyncio.ensure_future(self._publish_until_current())

    async def _publish_until_current(self) -> None:
        """Analyse with the open buffers, and tell each open file its findings. An
        analysis that an edit made while it ran has made stale is never shown (its
        diagnostics would be of a text the editor no longer holds): the latest text is
        analysed instead, so a burst of keystrokes costs the analysis of the last."""
        while True:
            edits = self._edits
            published = await self._in_worker(self._diagnostics, None, then_write=False)
            if edits != self._edits:
                continue
            for params in published:
                self.server.text_document_publish_diagnostics(params)
            await self._in_worker(lambda _: self._write_store(), None, then_write=False)
            if edits == self._edits:
                # Findings read from the store come without the facts that navigation
                # answers from: computed now, while the editor shows the diagnostics,
                # rather than when the first request asks.
                await self._in_worker(self._complete, None)
            if not self._collected:
                # The first analysis builds lean and lets its modules go (the ones kept
                # are built in full by the next): their trees are cycles only the
                # collector frees, which the analyses pause. Freed once, now, while the
                # editor shows the diagnostics, their memory serves the modules built
                # next instead of adding to them.
                self._collected = True
                await self._in_worker(lambda _: gc.collect(), None)
            if edits == self._edits:
                return
            # An edit came meanwhile: it found this task running, and waits for it.

    def _diagnostics(self, _: None) -> list[types.PublishDiagnosticsParams]:
        """Each open file's diagnostics, from each configuration's analysis, once."""
        analyses: dict[Path, _Analysed | None] = {}
        published = []
        for document in list(self._workspace().text_documents.values()):
            path = self._path(document.uri)
            config = None if path is None else self._config(path)
            if path is None or config is None:
                continue
            if config.path not in analyses:
                analyses[config.path] = self._analysed(config)
            analysed = analyses[config.path]
            found = () if analysed is None else self._findings(analysed, path)
            published.append(
                types.PublishDiagnosticsParams(
                    uri=document.uri,
                    version=document.version,
                    diagnostics=[self._diagnostic(document, finding) for finding in found],
                )
            )
        return published

    @staticmethod
    def _findings(analysed: _Analysed, path: str) -> tuple[Finding, ...]:
        """What ``rpcsurface check`` reports in *path*: none in a file pylint's ignore
        options leave out, none that a pragma or pylint's configuration silence."""
        if not analysed.scope.linted(path, analysed.control):
            return ()
        return tuple(
            finding
            for finding in analysed.analysis.findings_in(path)
            if not analysed.control.silenced(finding)
        )

    def _diagnostic(self, document: TextDocument, finding: Finding) -> types.Diagnostic:
        return types.Diagnostic(
            range=to_range(self._codec(), document.lines, finding.location),
            message=message_text(finding),  # ends with its page: (rpcsurface explain <symbol>)
            severity=_severity(finding.symbol),
            code=finding.symbol,
            source=SOURCE,
        )

    # ---------------------------------------------------------------- the analysis

    def _buffers(self, scope: Scope) -> dict[str, str]:
        """The text of each open file under *scope*'s roots, by real path: what the
        analysis reads in its place."""
        buffers = {}
        for document in self._workspace().text_documents.values():
            path = self._path(document.uri)
            if path is not None and scope.covers(real(path)):
                buffers[real(path)] = document.source
        return buffers

    def _config(self, path: str) -> Config | None:
        """The configuration *path* belongs to; None when there is none, or when it can't
        be read (said in a message)."""
        try:
            return self.finder.config_for(Path(path))
        except ConfigError as error:
            self._say(str(error))
            return None

    def _analysed(self, config: Config) -> _Analysed | None:
        """*config*'s analysis, computed again only when the configuration, an open
        buffer or a project file changed; None when the configuration can't be used (said
        in a message when that is first found)."""
        roots = tuple(real(root) for root in config.source_roots)
        # Spelled as `rpcsurface check` run in the project's folder spells them.
        scope = Scope(roots, config, tuple(os.path.relpath(r, config.root) for r in roots))
        buffers = self._buffers(scope)
        inputs = (config, tuple(sorted(buffers.items())), _file_states(config))
        known = self.analysed.get(config.path)
        if known is not None and known[0] == inputs:
            return known[1]
        analysed = None
        # The first analysis of a project is the slow one (later ones reuse its pieces):
        # the editor is shown it running when it can show progress.
        progress = self._progress_begun(config) if known is None else None
        try:
            control = message_control(config.root)
            analysis, facts = self._analysis(config, buffers, first=known is None)
            if progress is not None:
                found = f"{len(analysis.all_findings())} findings"
                self._on_protocol_thread(
                    self.server.work_done_progress.report,
                    progress,
                    types.WorkDoneProgressReport(message=found, percentage=100),
                )
            if analysis.config_errors:
                self._say("; ".join(dict.fromkeys(str(e) for e in analysis.config_errors)))
            else:
                analysed = _Analysed(config, analysis, control, scope, buffers, facts)
        except PylintOptionError as error:
            self._say(str(error))
        finally:
            if progress is not None:
                self._on_protocol_thread(
                    self.server.work_done_progress.end, progress, types.WorkDoneProgressEnd()
                )
        self.analysed[config.path] = (inputs, analysed)
        return analysed

    def _progress_begun(self, config: Config) -> str | None:
        """The token of a progress begun in the editor for *config*'s analysis; None when
        the client can't show one.

        The creation's answer is not awaited: the request is sent first, and the client
        reads it before the progress (the messages leave in the order they are handed to
        the protocol's thread)."""
        window = self.server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = f"rpcsurface-analysis:{config.path}"  # one first analysis per configuration
        progress = self.server.work_done_progress
        self._on_protocol_thread(progress.create, token)
        self._on_protocol_thread(
            progress.begin,
            token,
            types.WorkDoneProgressBegin(
                title="rpcsurface", message=f"analysing {config.root}", percentage=0
            ),
        )
        return token

    def _analysis(
        self, config: Config, buffers: Mapping[str, str], *, first: bool
    ) -> tuple[Analysis, Facts | None]:
        """What ``check`` would report with *buffers* saved, and the facts it is judged
        from. A configuration's *first* analysis, which has nothing of the server's to
        reuse, takes the findings from the store when it holds them (waiting for a
        process computing it, the child analysing ahead among them): the facts are then
        None, computed when needed. Later ones never wait on another process: each
        keystroke reuses what the server holds."""
        if first and self.use_cache:
            found: tuple[Analysis, Facts | None] = findings_or_facts(
                config, buffers, kept=self._kept_for(config), writes=self._unwritten
            )
            return found
        facts = self._facts(config, buffers)
        return facts.analysis(), facts

    def _complete(self, _: None) -> None:
        """Compute the facts of each configuration's latest analysis that has none."""
        for _inputs, analysed in list(self.analysed.values()):
            if analysed is not None:
                self._facts_of(analysed)

    def _facts_of(self, analysed: _Analysed) -> Facts:
        """*analysed*'s facts, computed now if its findings came from the store."""
        if analysed.facts is None:
            analysed.facts = self._facts(analysed.config, analysed.buffers)
        return analysed.facts

    def _facts(self, config: Config, buffers: Mapping[str, str]) -> Facts:
        """The facts ``check`` would judge with *buffers* saved, the store's pieces reused
        (and this run's kept) unless the cache is off."""
        facts: Facts = facts_with_cache(
            config,
            buffers,
            use_cache=self.use_cache,
            kept=self._kept_for(config),
            writes=self._unwritten,
        )
        return facts

    def _kept_for(self, config: Config) -> KeptBetweenAnalyses:
        """What *config*'s earlier analyses left, for the next one, once the store holds
        what they computed (the next one reads it)."""
        self._write_store()
        return self.kept.setdefault(config.path, KeptBetweenAnalyses())

    def _write_store(self) -> None:
        """Write what the analyses since the last write computed into the store (on the
        analysis thread, which alone runs analyses)."""
        while self._unwritten:
            self._unwritten.pop(0)()

    def _say(self, problem: str) -> None:
        """Show *problem* (a configuration that can't be used) the first time it is met:
        every keystroke analyses again, and would show it again."""
        if problem in self.said:
            return
        self.said.add(problem)
        self._on_protocol_thread(
            self.server.window_show_message,
            types.ShowMessageParams(type=types.MessageType.Error, message=f"rpcsurface: {problem}"),
        )

    # ---------------------------------------------------------------- navigation

    def _names(
        self,
        params: types.DefinitionParams
        | types.ReferenceParams
        | types.HoverParams
        | types.PrepareRenameParams
        | types.RenameParams,
    ) -> tuple[_Analysed, tuple[RpcName, ...]] | None:
        path = self._path(params.text_document.uri)
        if path is None:
            return None
        config = self._config(path)
        analysed = None if config is None else self._analysed(config)
        if analysed is None:
            return None
        document = self._workspace().get_text_document(params.text_document.uri)
        line, col = from_position(self._codec(), document.lines, params.position)
        word = document.word_at_position(params.position) or None
        names = names_at(self._facts_of(analysed), real(path), line, col, word)
        return (analysed, names) if names else None

    def definition(self, params: types.DefinitionParams) -> list[types.Location] | None:
        """The ``def`` of each handler method answering the RPC name under the cursor."""
        found = self._names(params)
        if found is None:
            return None
        analysed, names = found
        return self._locations(handler_definitions(self._facts_of(analysed), names))

    def references(self, params: types.ReferenceParams) -> list[types.Location] | None:
        """Every send site of the RPC name under the cursor (a handler's ``def``, a table
        entry, a registry element or a send site)."""
        found = self._names(params)
        if found is None:
            return None
        analysed, names = found
        return self._locations(send_sites(self._facts_of(analysed), names))

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        """The name's row of ``rpcsurface report``, one per surface that knows it."""
        found = self._names(params)
        if found is None:
            return None
        analysed, names = found
        facts = self._facts_of(analysed)
        silenced = frozenset(
            (f.location, f.symbol) for f in facts.findings if analysed.control.silenced(f)
        )
        root = str(analysed.config.root)
        reports = [build(surface, silenced) for surface in facts.surfaces]
        reports += [build_proxy(proxy, root, silenced) for proxy in facts.proxies]
        wanted = {(name.table, name.rpc) for name in names}
        parts = []
        for report in reports:
            for row in report.rows:
                if row.inferred and (report.name, row.rpc) in wanted:
                    rpc, sites, answered_by, listed, verdict = row.cells()
                    parts.append(
                        f"**{rpc}** on {report.name}\n\n"
                        f"- sent by: {sites}\n- answered by: {answered_by}\n"
                        f"- listed: {listed}\n- verdict: {verdict}"
                    )
        if not parts:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)
            )
        )

    # ---------------------------------------------------------------- rename

    def prepare_rename(self, params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder:
        """The range and text of the RPC name under the cursor, when every place that
        holds it can be renamed; else an error saying why."""
        names, edits = self._renaming(params, None)
        uri = params.text_document.uri
        for at, _ in edits:
            if at.uri == uri and _covers(at.range, params.position):
                return types.PrepareRenamePlaceholder(range=at.range, placeholder=names[0].rpc)
        raise _refusal("the RPC name under the cursor is not one the rename edits here")

    def rename(self, params: types.RenameParams) -> types.WorkspaceEdit:
        """One edit of every place that holds the RPC name under the cursor; an error
        naming the place and the reason when one can't be edited safely."""
        _, edits = self._renaming(params, params.new_name)
        changes: dict[str, list[types.TextEdit]] = {}
        for at, text in edits:
            changes.setdefault(at.uri, []).append(types.TextEdit(range=at.range, new_text=text))
        return types.WorkspaceEdit(changes=changes)

    def _renaming(
        self, params: types.PrepareRenameParams | types.RenameParams, new: str | None
    ) -> tuple[tuple[RpcName, ...], list[tuple[types.Location, str]]]:
        """The edits renaming the name under the cursor to *new* (None: only whether every
        place can be edited, each edit keeping the old name)."""
        found = self._names(params)
        if found is None:
            raise _refusal("no RPC name the analysis knows is under the cursor")
        analysed, names = found
        lines: dict[str, Sequence[str]] = {}

        def lines_of(path: str) -> Sequence[str]:
            if path not in lines:
                lines[path] = self._document(path).lines
            return lines[path]

        try:
            replacements = renaming(self._facts_of(analysed), names, new, lines_of)
        except Refused as refused:
            raise _refusal(str(refused)) from refused
        edits = [
            (
                types.Location(
                    uri=from_fs_path(r.at.path) or r.at.path,
                    range=to_range(self._codec(), lines_of(r.at.path), r.at),
                ),
                r.text,
            )
            for r in replacements
        ]
        return names, edits

    # ---------------------------------------------------------------- code actions

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        """For each of the file's findings among the diagnostics asked about: the registry
        rewrite ``rpcsurface fix`` makes, the closest answered names for an unanswered one,
        and pylint's pragma silencing it on its line."""
        path = self._path(params.text_document.uri)
        config = None if path is None else self._config(path)
        analysed = None if config is None else self._analysed(config)
        if path is None or analysed is None:
            return None
        document = self._workspace().get_text_document(params.text_document.uri)
        asked = {
            (str(d.code), _span(d.range))
            for d in params.context.diagnostics
            if d.source == SOURCE and str(d.code).startswith("rpc-")
        }
        actions = []
        for finding in self._findings(analysed, path):
            diagnostic = self._diagnostic(document, finding)
            if (finding.symbol, _span(diagnostic.range)) not in asked:
                continue
            if finding.symbol in REGISTRY_SYMBOLS:
                actions.extend(self._registry_action(analysed, finding, diagnostic))
            if finding.symbol == "rpc-unanswered":
                actions.extend(self._did_you_mean(analysed, document, finding, diagnostic))
            actions.append(self._disable_action(document, finding, diagnostic))
        return actions

    def _registry_action(
        self, analysed: _Analysed, finding: Finding, diagnostic: types.Diagnostic
    ) -> list[types.CodeAction]:
        facts = self._facts_of(analysed)
        silenced = {f for f in facts.findings if analysed.control.silenced(f)}
        planned = registry_rewrite(
            finding,
            surfaces=facts.surfaces,
            findings=facts.findings,
            silenced=silenced,
            text_of=lambda path: self._document(path).source,
            line_length=line_length(analysed.config.root),
        )
        if planned is None:
            return []
        path, names, change = planned
        title = f"Rewrite {', '.join(names)} as rpcsurface fix does"
        if not isinstance(change, LineSpan):
            return [
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    disabled=types.CodeActionDisabled(reason=f"rpcsurface fix refuses: {change}"),
                )
            ]
        lines = self._document(path).lines
        span = types.Range(
            start=types.Position(line=change.first, character=0),
            end=types.Position(line=change.last, character=0),
        )
        if change.last >= len(lines):  # to the end of a file with no line end after
            span.end = self._codec().position_to_client_units(
                lines, ServerTextPosition(len(lines) - 1, len(lines[-1]) if lines else 0)
            )
        uri = from_fs_path(path) or path
        return [
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=types.WorkspaceEdit(
                    changes={uri: [types.TextEdit(range=span, new_text=change.text)]}
                ),
            )
        ]

    def _did_you_mean(
        self,
        analysed: _Analysed,
        document: TextDocument,
        finding: Finding,
        diagnostic: types.Diagnostic,
    ) -> list[types.CodeAction]:
        sent = finding.args[0]
        answered: set[str] = set()
        for surface in finding.surfaces:
            answered.update(answered_names(self._facts_of(analysed), surface))
        at = finding.location
        line = document.lines[at.line - 1] if at.line <= len(document.lines) else ""
        held = line.encode("utf-8")[at.col : at.end_col].decode("utf-8", errors="replace")
        quote = held[:1]
        plain = quote in ("'", '"') and held == f"{quote}{sent}{quote}"
        if at.end_line not in (None, at.line) or not plain:
            return []  # not a plain string literal: nothing to replace safely
        inner = Location(at.path, at.line, at.col + 1, at.line, (at.end_col or at.col) - 1)
        span = to_range(self._codec(), document.lines, inner)
        return [
            types.CodeAction(
                title=f"Did you mean {name!r}?",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=types.WorkspaceEdit(
                    changes={document.uri: [types.TextEdit(range=span, new_text=name)]}
                ),
            )
            for name in closest(sent, sorted(answered))
        ]

    def _disable_action(
        self, document: TextDocument, finding: Finding, diagnostic: types.Diagnostic
    ) -> types.CodeAction:
        index = diagnostic.range.start.line
        line = document.lines[index] if index < len(document.lines) else ""
        offset, text = disable_pragma(line, finding.symbol)
        at = self._codec().position_to_client_units(
            document.lines, ServerTextPosition(index, offset)
        )
        return types.CodeAction(
            title=f"Disable {finding.symbol} on this line (# pylint: disable)",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            edit=types.WorkspaceEdit(
                changes={
                    document.uri: [
                        types.TextEdit(range=types.Range(start=at, end=at), new_text=text)
                    ]
                }
            ),
        )

    def _document(self, path: str) -> TextDocument:
        return self._workspace().get_text_document(from_fs_path(path) or path)

    def _locations(self, places: tuple[Location, ...]) -> list[types.Location]:
        found = []
        for at in places:
            uri = from_fs_path(at.path)
            if uri is None:
                continue
            lines = self._workspace().get_text_document(uri).lines
            found.append(types.Location(uri=uri, range=to_range(self._codec(), lines, at)))
        return found

    # ---------------------------------------------------------------- the workspace

    def _codec(self) -> PositionCodec:
        return self.server.workspace.position_codec

    def _workspace(self) -> _Workspace:
        """The documents of the job the analysis thread runs."""
        assert self._view is not None  # only jobs handed to the thread ask
        return self._view

    @staticmethod
    def _path(uri: str) -> str | None:
        path = to_fs_path(uri)
        return None if path is None or not path.endswith(".py") else path
