"""The in-process API: what the commands do, as functions that take typed records (or plain
values) and return typed records, printing nothing and writing nothing. The browser page calls
it in Pyodide; a Python program can call it too.

- `lint_text`, `lint_files`, `lint_path`: findings of a config given as text (one file, or an
  `nginx -T` dump of many), of a tree given as texts, or of a tree on disk, with the target
  they were judged for;
- `fix_text`: the automatic fixes of a text (safe ones, or safe and unsafe), as a unified diff
  and the fixed texts;
- `generate`: a site file (the `--config` YAML, as text) and a preset into a mapping of file name
  to text, with the notes the command would print (a certificate that could not be read here);
- `explain`, `rules`, `presets`, `targets`: the rule pages (`nginxgen explain`), the presets with
  their summaries and sources, and the nginx and TLS library releases the knowledge holds.

Problems with the input raise NginxgenError (its `where` names the file and line, or the field).
The commands call the same functions underneath (nginxgen.lint.run.lint_tree,
nginxgen.generate.cli.rendered), so their results are the same (tests/house/test_api.py checks).
"""

from __future__ import annotations

from nginxgen.base.records import field, record
from nginxgen.knowledge.target import Target
from nginxgen.lint.findings import Applicability, Finding
from nginxgen.lint.run import Selection

TYPE_CHECKING = False
if TYPE_CHECKING:
    from nginxgen.conf.load import Loaded, PassCache


@record(frozen=True)
class TargetChoice:
    """The nginx a result is for: a release and a TLS library (`1.26.3`, `openssl-3.5.7`), or a
    binary to read them from; with none of them, this machine's nginx, else assumed (and said)."""

    nginx_version: str | None = None
    tls_library: str | None = None
    nginx_bin: str | None = None

    def resolve(self) -> Target:
        from nginxgen.knowledge.target import resolve

        return resolve(self.nginx_version, self.tls_library, self.nginx_bin)


@record(frozen=True)
class LintResult:
    target: Target
    findings: tuple[Finding, ...]
    files: tuple[str, ...]  # the files read, in reading order
    notes: tuple[str, ...] = ()  # what the command says on stderr: where the tree was read

    def as_json(self) -> str:
        """The document `nginxgen lint --format json` prints."""
        from nginxgen.lint.output import as_json

        return as_json(list(self.findings), self.target, list(self.files))


@record(frozen=True)
class FixResult:
    target: Target
    diff: str  # unified diff of every change (nginxgen.files.diff: `patch -p0` applies it), or ""
    changed: dict[str, str]  # file -> its fixed text
    fixed: tuple[str, ...]  # the rule code of each fix applied, in order
    remaining: tuple[Finding, ...]  # the findings left after the fixes
    classes: frozenset[Applicability]  # the fixes that were applied: safe, or safe and unsafe


@record(frozen=True)
class GenerateRequest:
    """What `nginxgen generate --config site.yaml --preset P` takes, given as values: the site
    file's text (YAML; JSON is YAML too) named `site_name` in messages."""

    site: str | None = None
    preset: str | None = None
    target: TargetChoice = field(default_factory=TargetChoice)
    site_name: str = "site.yaml"
    comments: bool = True
    cpu: str | None = None  # aes-ni or no-aes-ni (auto reads this machine's CPU)
    access_log: str | None = None
    hsts_subdomains: bool | None = None


@record(frozen=True)
class GeneratedSite:
    target: Target
    files: dict[str, str]  # name -> text, in the order a reader should see them
    notes: tuple[str, ...]  # warnings and notes the command prints before writing


@record(frozen=True)
class RuleDoc:
    code: str
    name: str
    severity: str  # the rule's severity, or its range where it depends on the case
    summary: str
    autofix: Applicability | None  # how sure its automatic fix is; None: none
    page: str  # Markdown: the page `nginxgen explain CODE` prints and docs/rules/ holds


@record(frozen=True)
class PresetDoc:
    name: str
    summary: str
    description: str
    source: str  # where its values come from
    extends: str | None
    text: str  # the preset file itself (YAML)


@record(frozen=True)
class LibraryReleases:
    kind: str  # as --tls-library spells it: openssl, aws-lc, boringssl...
    display: str
    versions: tuple[str, ...]  # newest first; empty for a library without release numbers


@record(frozen=True)
class SystemTarget:
    """What a distribution's release installs with its nginx package (knowledge/nginx.toml)."""

    name: str
    target: TargetChoice
    source: str


@record(frozen=True)
class TargetChoices:
    """The releases the knowledge holds (knowledge/releases.json), newest first, what is
    assumed when none is given, and the targets of known distributions' releases."""

    nginx: tuple[str, ...]
    libraries: tuple[LibraryReleases, ...]
    default_nginx: str
    default_library: str
    systems: tuple[SystemTarget, ...] = ()


def _selection(select: tuple[str, ...], ignore: tuple[str, ...]) -> Selection:
    from nginxgen.lint.options import codes_of

    return Selection(
        select=codes_of(list(select), "select"), ignore=codes_of(list(ignore), "ignore")
    )


def _load(
    name: str,
    texts: dict[str, str] | None,
    spans: bool = False,
    shared: PassCache | None = None,
) -> tuple[Loaded, list[str]]:
    """A tree as the command loads it (its folders' map inferred the same way), from the text
    given for `name` (a file or an `nginx -T` dump) or from disk; and the command's notes of
    where it was read."""
    from nginxgen.base.errors import NginxgenError
    from nginxgen.conf.load import LoadError, load_path, where_read
    from nginxgen.conf.tree import TreeMapping

    mapping = TreeMapping([])
    path_map, infer = mapping.for_main(name)
    try:
        loaded = load_path(name, None, None, path_map, texts, shared, spans, infer)
    except LoadError as exc:
        raise NginxgenError(str(exc)) from None
    return loaded, list(dict.fromkeys(where_read(loaded, mapping, name)))


def lint_text(
    text: str,
    name: str = "nginx.conf",
    target: TargetChoice | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
) -> LintResult:
    """The findings of a config given as text: one file named `name` (its includes read from
    disk, relative to its folder), or an `nginx -T` dump holding every file."""
    return lint_files({name: text}, name, target, select, ignore)


def lint_files(
    files: dict[str, str],
    main: str,
    target: TargetChoice | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
) -> LintResult:
    """The findings of a tree given as texts (path -> text), read from its main file: its
    includes are found among the texts first, then on disk (generated files before writing)."""
    return _lint(main, files, target, select, ignore)


def lint_path(
    path: str,
    target: TargetChoice | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
) -> LintResult:
    """The findings of the tree whose main file (or dump) is at `path`."""
    return _lint(path, None, target, select, ignore)


def _lint(
    name: str,
    texts: dict[str, str] | None,
    choice: TargetChoice | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
) -> LintResult:
    from nginxgen.lint.run import lint_tree

    selection = _selection(select, ignore)
    target = (choice or TargetChoice()).resolve()
    loaded, said = _load(name, texts)
    findings = lint_tree(loaded, target, selection, build_fixes=False)
    return LintResult(target, tuple(findings), tuple(loaded.files), tuple(said))


def fix_text(
    text: str,
    name: str = "nginx.conf",
    target: TargetChoice | None = None,
    unsafe: bool = False,
) -> FixResult:
    """`nginxgen lint --fix --diff` (with `unsafe`: `--unsafe-fixes --diff`) of a config given as
    text, one file or an `nginx -T` dump (each of its files fixed where it is in the dump)."""
    from nginxgen.conf.load import PassCache, split_dump
    from nginxgen.files.diff import FileDiff, unified
    from nginxgen.lint.findings import fix_classes
    from nginxgen.lint.fix import run_fixes
    from nginxgen.lint.run import lint_tree

    resolved = (target or TargetChoice()).resolve()
    classes = fix_classes(unsafe)
    dump = split_dump(text)
    shared = PassCache()

    def load(fixed: dict[str, str]) -> Loaded:
        if dump is None:
            return _load(name, {name: text, **fixed}, spans=True, shared=shared)[0]
        return _load_dump(dump, fixed)

    outcome = run_fixes(load, lambda loaded: lint_tree(loaded, resolved, Selection()), classes)
    diff = unified(FileDiff(f, outcome.originals[f], new) for f, new in outcome.changed.items())
    return FixResult(
        resolved,
        diff,
        dict(outcome.changed),
        tuple(outcome.fixed),
        tuple(outcome.findings),
        classes,
    )


def _load_dump(dump: dict[str, str], fixed: dict[str, str]) -> Loaded:
    """A dump's files as a tree that edits can be made on: each file's text kept, as a tree on
    disk keeps it, with the fixes so far over them."""
    import os

    from nginxgen.conf.load import Loader

    main = next(iter(dump))
    loader = Loader(os.path.dirname(main), dump, overlay=fixed, spans=True, keep_texts=True)
    return loader.load(main)


def generate(request: GenerateRequest) -> GeneratedSite:
    """`nginxgen generate --config SITE [--preset P]` to stdout, as a mapping of file name to
    text. Certificates and keys are read and matched when this install can (else a note says
    they were not: a browser page has no cryptography); CA files not here are a warning."""
    from nginxgen.generate.cli import rendered, resolve_options
    from nginxgen.generate.presets import SiteText

    choice = request.target
    site = SiteText(request.site_name, request.site) if request.site is not None else None
    options = resolve_options(
        preset=request.preset,
        config=site,
        nginx_version=choice.nginx_version,
        tls_library=choice.tls_library,
        nginx_bin=choice.nginx_bin,
        domain=None,
        cert=None,
        key=None,
        listen=None,
        http_listen=None,
        cpu=request.cpu,
        out=None,
        into=None,
        root=None,
        prefix=None,
        force=False,
        diff=False,
        comments=request.comments,
        access_log=request.access_log,
        hsts_subdomains=request.hsts_subdomains,
        tree_map=None,
    )
    _, files = rendered(options)
    return GeneratedSite(options.target, files, tuple(options.notes))


def explain(code: str) -> RuleDoc:
    """A rule's documentation, by its code (NGX201) or name."""
    from nginxgen.base.errors import NginxgenError
    from nginxgen.lint.rules import catalog

    wanted = code.strip()
    for doc in rules():
        if wanted.upper() == doc.code or wanted == doc.name:
            return doc
    known = catalog()
    raise NginxgenError(f"unknown rule {code!r} ({len(known)} rules: NGX001 to {max(known)})")


def rules() -> list[RuleDoc]:
    """Every lint rule's documentation, by code."""
    from nginxgen.lint.rule_docs import page
    from nginxgen.lint.rules import catalog

    return [
        RuleDoc(
            code,
            entry.rule.name,
            entry.rule.severity_range,
            entry.summary,
            entry.rule.autofix[0] if entry.rule.autofix else None,
            page(entry),
        )
        for code, entry in catalog().items()
    ]


def presets() -> list[PresetDoc]:
    """The presets `generate --preset` takes, with what each sets (its file) and its sources."""
    from nginxgen.generate.presets import list_presets, read_yaml

    out = []
    for info in list_presets():
        data = read_yaml(info.path)
        extends = data.get("extends")
        out.append(
            PresetDoc(
                info.name,
                info.summary,
                str(data.get("description", "")).strip(),
                str(data.get("source", "")),
                str(extends) if extends is not None else None,
                info.path.read_text(encoding="utf-8"),
            )
        )
    return out


def targets() -> TargetChoices:
    """The nginx releases and TLS libraries a target may name, newest first."""
    from nginxgen.knowledge import builds, nginx, releases

    def versions(product: str) -> tuple[str, ...]:
        known = releases.releases(product)
        if known is None:
            return ()
        return tuple(
            f"{major}.{minor}.{patch}"
            for (major, minor), (first, last) in sorted(known.branches.items(), reverse=True)
            for patch in range(last, first - 1, -1)
        )

    libs = tuple(
        LibraryReleases(kind, builds.library_display(kind), versions(kind))
        for kind in builds.LIBRARY_KINDS
    )
    from nginxgen.knowledge.target import parse_library

    systems = tuple(
        SystemTarget(d.name, TargetChoice(d.nginx, d.tls_library), d.source)
        for d in nginx.distributions()
    )
    return TargetChoices(
        versions("nginx"),
        libs,
        str(nginx.current_nginx()),
        str(parse_library("openssl")),
        systems,
    )
