"""What the language server knows about the trees being edited, without any protocol: the
settings, the texts the editor holds, and for a file the findings, fixes, hover text, include
and certificate targets and symbols of the tree it belongs to. Everything is computed by the
same loader, rules and fix engine as `nginxgen lint`; the editor's unsaved texts stand in for
the files on disk."""

from __future__ import annotations

import os
from collections.abc import Iterator

from nginxgen.base.errors import NginxgenError
from nginxgen.base.records import record
from nginxgen.conf.config import Config, Location, Server, build
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import Loaded, LoadError, Stmt, load_path, walk, where_read
from nginxgen.conf.per_name import NameModel, key_of
from nginxgen.knowledge.target import Target
from nginxgen.lint.args import OPTIONS, Arguments
from nginxgen.lint.context import server_label
from nginxgen.lint.findings import Finding, fix_classes
from nginxgen.lint.fix import run_fixes
from nginxgen.lint.rules import catalog
from nginxgen.lint.run import lint_tree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.lint.options import LintOptions

ROOT_NAMES = ("nginx.conf",)
MAX_CLIMB = 6  # folders walked up from a file to find the tree's main file
FILE_DIRECTIVES = ("ssl_certificate", "ssl_certificate_key", "ssl_trusted_certificate",
                   "ssl_client_certificate", "ssl_dhparam", "ssl_session_ticket_key")  # fmt: skip


class Settings:
    """What `lint` takes on its command line, from initializationOptions or the client's
    `nginxgen` configuration section: each option nginxgen.files.options marks as the editor's,
    under its editor key (nginxVersion, tlsLibrary, nginxBin, root, pathMap)."""

    def __init__(self, given: Arguments | None = None) -> None:
        self.given = given or Arguments()

    @classmethod
    def read(cls, data: object, base: Settings | None = None) -> Settings:
        """The settings in `data` over `base`'s (a key left out keeps its value)."""
        given = data if isinstance(data, dict) else {}
        section = given.get("nginxgen", given)  # {"nginxgen": {...}} or the section itself
        args = Arguments()
        for option in OPTIONS:
            old = getattr(base.given, option.dest) if base else option.default
            value = section.get(option.editor_key, old) if option.editor else old
            if option.kind == "append" and isinstance(value, dict):  # pathMap: {FOLDER: HERE}
                value = [f"{folder}={here}" for folder, here in value.items()]
            setattr(args, option.dest, list(value) if isinstance(value, list) else value)
        return cls(args)

    def arguments(self) -> Arguments:
        """These settings as `nginxgen lint`'s flags: the editor's settings stand where the
        command line does, over the settings file, and are resolved by the same code."""
        return self.given


@record
class Checked:
    """One lint of the tree a file belongs to."""

    root: str
    loaded: Loaded
    config: Config
    findings: list[Finding]  # with their fixes (the fix engine's edits)
    target: Target


class Session:
    def __init__(self) -> None:
        self.settings = Settings()
        self.open: dict[str, str] = {}  # path -> the editor's text
        self._options: dict[str, LintOptions] = {}  # folder -> its resolved options

    def configure(self, data: object) -> None:
        self.settings = Settings.read(data, self.settings)
        self._options.clear()

    def options(self, path: str) -> LintOptions:
        """What `nginxgen lint` run in this file's folder would use (lint's one resolver): the
        editor's settings as flags, over the .nginxgen.toml or [tool.nginxgen] found from the
        file's folder, over this machine's nginx. NginxgenError: a setting is unusable."""
        from nginxgen.lint.options import resolve_options

        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._options:
            self._options[folder] = resolve_options(self.settings.arguments(), folder)
        return self._options[folder]

    def root_for(self, path: str) -> str:
        """The main file of the tree a file belongs to: the setting (the editor's, else the
        settings file's), else the first nginx.conf found walking up from the file's folder,
        else the file itself."""
        root = self.options(path).root
        if root:
            return os.path.abspath(root)
        folder = os.path.dirname(os.path.abspath(path))
        for _ in range(MAX_CLIMB):
            for name in ROOT_NAMES:
                candidate = os.path.join(folder, name)
                if os.path.isfile(candidate) or candidate in self.open:
                    return candidate
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
        return os.path.abspath(path)

    def _load(
        self, options: LintOptions, root: str, overlay: dict[str, str] | None = None
    ) -> Loaded:
        # a map the user gave is the whole answer; without one, a copied tree's folders are
        # inferred (nginxgen.conf.tree), as on the command line
        path_map, infer = options.mapping.for_main(root)
        return load_path(
            root,
            options.prefix,
            path_map=path_map,
            overlay=overlay or self.open,
            spans=True,
            infer=infer,
        )

    def notes(self, checked: Checked) -> list[str]:
        """Where the tree was read (an inferred map, files read outside its folder): the
        editor's log says it, as the command line's stderr does."""
        return where_read(checked.loaded, self.options(checked.root).mapping, checked.root)

    def check(self, path: str) -> Checked:
        """Lint the tree of this file as the editor holds it (LoadError, NginxgenError: the
        tree cannot be read, or the settings name no usable target)."""
        options = self.options(path)
        root = self.root_for(path)
        loaded = self._load(options, root)
        if os.path.abspath(path) not in {os.path.abspath(f) for f in loaded.files}:
            root = os.path.abspath(path)  # not part of that tree: on its own
            loaded = self._load(options, root)
        found = lint_tree(loaded, options.target, options.selection)
        return Checked(root, loaded, build(loaded), found, options.target)

    def fix_all(self, path: str, unsafe: bool) -> dict[str, tuple[str, str]]:
        """Every fix `lint --fix` (or `--unsafe-fixes`) would apply to the tree: file -> (text
        now, text after)."""
        options = self.options(path)
        root = self.root_for(path)
        classes = fix_classes(unsafe)
        outcome = run_fixes(
            lambda fixed: self._load(options, root, {**self.open, **fixed}),
            lambda loaded: lint_tree(loaded, options.target, options.selection),
            classes,
        )
        return {f: (outcome.originals[f], text) for f, text in outcome.changed.items()}

    # --- what the editor asks about one line ---------------------------------------------

    def statement_at(self, checked: Checked, path: str, line: int) -> Stmt | None:
        wanted = os.path.abspath(path)
        found = [
            s
            for s in walk(checked.loaded.statements)
            if os.path.abspath(s.file) == wanted and s.line == line
        ]
        return found[0] if found else None

    def hover(self, checked: Checked, path: str, line: int) -> str | None:
        stmt = self.statement_at(checked, path, line)
        parts = []
        if stmt is not None:
            parts.append(f"`{stmt.directive} {' '.join(stmt.args)}`".replace(" `", "`"))
            parts.extend(self._effect(checked, stmt))
        for finding in checked.findings:
            if os.path.abspath(finding.file) == os.path.abspath(path) and finding.line == line:
                entry = catalog()[finding.code]
                parts.append(
                    f"**{finding.code}** {finding.severity}: {finding.message}  \n"
                    f"fix: {finding.fix}  \n{entry.summary}"
                )
        return "\n\n".join(parts) if parts else None

    def _effect(self, checked: Checked, stmt: Stmt) -> Iterator[str]:
        """Where this line takes effect: the server it is in, and for each TLS address:port of
        that server whether this line decides there or is ignored for the default server's,
        as NameModel (the one answer to "who decides", which lint and the probe read) says, in
        http{} and stream{} alike."""
        effective = Effective(checked.config, checked.target)
        for model in effective.families():
            config = model.config
            server = _server_of(config, stmt)
            if server is None:
                if any(stmt is s for s in config.http.get(stmt.directive, [])):
                    yield (
                        f"{config.block}{{}} level: in effect in every server that does not "
                        "set its own"
                    )
                    return
                continue
            yield from _deciding(model, server, key_of(stmt))
            return

    def definition(self, checked: Checked, path: str, line: int) -> list[str]:
        stmt = self.statement_at(checked, path, line)
        if stmt is None:
            return []
        if stmt.directive == "include":
            return list(stmt.includes or [])
        if stmt.directive in FILE_DIRECTIVES and stmt.args:
            target = stmt.args[0]
            if not os.path.isabs(target):
                target = os.path.join(checked.loaded.prefix, target)
            return [target] if os.path.exists(target) else []
        return []

    def symbols(self, checked: Checked, path: str) -> list[Symbol]:
        wanted = os.path.abspath(path)
        out = []
        for server in checked.config.servers:
            if os.path.abspath(server.stmt.file) != wanted:
                continue
            listens = ", ".join(
                f"{lst.socket}{' ssl' if lst.ssl else ''}" for lst in server.listens
            )
            name = f"server {' '.join(server.names) or '(no server_name)'}"
            out.append(
                Symbol(
                    name,
                    listens,
                    server.stmt.line,
                    _last_line(server.stmt),
                    [_location_symbol(loc) for loc in server.locations],
                )
            )
        return out


@record
class Symbol:
    name: str
    detail: str
    first: int
    last: int
    children: list[Symbol]


def _location_symbol(loc: Location) -> Symbol:
    return Symbol(
        f"location {' '.join(loc.stmt.args)}",
        "",
        loc.stmt.line,
        _last_line(loc.stmt),
        [_location_symbol(inner) for inner in loc.locations],
    )


def _last_line(stmt: Stmt) -> int:
    lines = [s.line for s in walk(stmt.block or []) if s.file == stmt.file]
    return max([stmt.line, *lines]) + (1 if stmt.block is not None else 0)


def _deciding(effective: Effective, server: Server, key: str) -> Iterator[str]:
    tls = [lst.socket for lst in server.listens if effective.config.tls_socket(lst.socket)]
    decided = False
    for socket in dict.fromkeys(tls):
        name = NameModel(effective, socket, None, server=server)
        decider = name.decider(key)
        if decider is server:
            if key in name.decided:
                decided = True
                yield (
                    f"decides for every name on {socket}: this is its default server "
                    f"({name.decided[key].why})"
                )
            continue
        decided = True
        answer = name.setting(key)
        shown = " ".join(answer.value) if answer.value else "(not set)"
        if name.context is not server:  # no certificate: the default server's TLS context
            yield (
                f"ignored on {socket}: this server has no certificate of its own, so its "
                f"handshakes run on the TLS context of {server_label(decider)}, the default "
                f"server (in effect: {shown})"
            )
        else:
            yield (
                f"ignored on {socket}: {server_label(decider)} is the default server "
                f"and decides there (in effect: {shown})"
            )
    if not decided:
        yield f"applies to {server_label(server)}"


def _server_of(config: Config, stmt: Stmt) -> Server | None:
    for server in config.servers:
        if any(s is stmt for s in server.directives.get(stmt.directive, [])):
            return server
    return None


__all__ = ["Checked", "LoadError", "NginxgenError", "Session", "Settings", "Symbol"]
