"""The knowledge base's accessors against its own files: every accessor reads keys that exist
(called for targets across releases and libraries), every key a caller names in its source
(`libraries.has(library, "ktls")`) is one the knowledge has, and every record that carries a
source names one. A misspelt key fails here, not when its branch first runs."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import nginxgen.knowledge
from nginxgen.base.records import record
from nginxgen.base.version import Version
from nginxgen.knowledge import libraries, nginx, tls_groups
from nginxgen.knowledge.data import from_table, toml_file
from nginxgen.knowledge.target import Library, Target
from tests.paths import REPO

LIBRARIES = [
    Library("openssl", Version("1.1.1")),
    Library("openssl", Version("3.0.13")),
    Library("openssl", Version("3.5.7")),
    Library("openssl", Version("4.0.3")),
    Library("quictls", Version("3.3.0")),
    Library("boringssl", None),
    Library("aws-lc", Version("1.37.0")),
    Library("libressl", Version("4.3.0")),
]
NGINX = [Version(v) for v in ("1.18.0", "1.22.1", "1.25.5", "1.26.3", "1.29.7", "1.31.3")]
TARGETS = [
    *(Target(v, Library("openssl", Version("3.5.7"))) for v in NGINX),
    *(Target(Version("1.26.3"), lib) for lib in LIBRARIES),
    Target(Version("1.26.3"), LIBRARIES[2], modules=frozenset({"http_ssl"}), without=frozenset()),
]


def topic_modules() -> list[ModuleType]:
    """Every topic module of the package (data, the files' reader, is not one)."""
    names = [m.name for m in pkgutil.iter_modules(nginxgen.knowledge.__path__) if m.name != "data"]
    return [importlib.import_module(f"nginxgen.knowledge.{name}") for name in sorted(names)]


def accessors(module: ModuleType) -> Iterator[tuple[str, Callable[..., object]]]:
    for name, value in vars(module).items():
        plain = getattr(value, "__wrapped__", value)  # functools.cache keeps the function there
        public = not name.startswith("_") and inspect.isfunction(plain)
        if public and plain.__module__ == module.__name__:
            yield name, value


# Arguments by annotation: an accessor whose every parameter is one of these (or has a default)
# reads only keys of its own, and is called with each of them.
SAMPLES: dict[str, list[object]] = {
    "Target": list(TARGETS),
    "Target | None": [None, *TARGETS],
    "Library": list(LIBRARIES),
    "Version": [*NGINX, Version("1.30.4")],
}


def calls(function: Callable[..., object]) -> list[tuple[object, ...]] | None:
    """The argument lists to call `function` with, or None when a parameter is a key or a value
    the caller brings (a name, a path, a suite): those are checked by the source scan below."""
    wanted = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.default is inspect.Parameter.empty
    ]
    if any(str(p.annotation) not in SAMPLES for p in wanted):
        return None
    if not wanted:
        return [()]
    if len(wanted) == 1:
        return [(value,) for value in SAMPLES[str(wanted[0].annotation)]]
    return None


def test_every_accessor_reads_keys_that_exist() -> None:
    called = []
    for module in topic_modules():
        for name, function in accessors(module):
            argument_lists = calls(function)
            if argument_lists is None:
                continue
            for arguments in argument_lists:
                function(*arguments)  # a misspelt key raises KeyError here
            called.append(f"{module.__name__.rsplit('.', 1)[1]}.{name}")
    # the named accessors that replaced the old `nginx_fact(key)` are among them
    for name in (
        "nginx.defaults",
        "nginx.client_certificates",
        "nginx.duplicates",
        "nginx.value_types",
        "nginx.backports",
        "nginx.add_header",
        "nginx.tickets_on_under_off",
        "nginx.tickets_off_under_on",
        "nginx.vhost_session_cache_off",
        "nginx.keepalive_requests_default",
        "nginx.ticket_rotation",
        "nginx.stream_virtual_servers",
        "web.hsts",
        "logs.generated_log",
        "upstream.upstream_tls_defaults",
        "upstream.upstream_keepalive_defaults",
        "nginx_values.custom_grammars",
        "directives.directive_shapes",
        "ech.directive",
        "ech.status",
        "ech.ech_refusal",
        "pki.system_ca_bundle",
        "nginx.listen_certificate",
    ):
        assert name in called, name


def _records(value: object) -> Iterator[object]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _records(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _records(item)
    elif hasattr(value, "source"):
        yield value


def test_every_record_with_a_source_names_one() -> None:
    """A fact without a source is one nobody can check; the citations themselves are checked to
    be public by tests/house/test_self_contained.py."""
    found = 0
    for module in topic_modules():
        for _, function in accessors(module):
            for arguments in calls(function) or []:
                for item in _records(function(*arguments)):
                    source = item.source  # type: ignore[attr-defined]
                    assert isinstance(source, str) and source.strip(), item
                    found += 1
    for group in tls_groups.all_groups():
        assert group.source.strip(), group
    for name in libraries.capability_names():
        assert libraries.capability(LIBRARIES[0], name).source.strip(), name
    assert found > 50


@record(frozen=True)
class _Sample:
    name: str
    words: frozenset[str]
    order: tuple[str, ...] | None
    listed: list[str]
    note: str | None = None


def test_a_record_from_a_table_reads_each_field_by_its_name() -> None:
    table = {"name": "a", "words": ["x", "y"], "order": ["2", "1"], "listed": ["z"], "more": 1}
    made = from_table(_Sample, table)
    # arrays become the declared collection; a field with a default may be absent
    assert made == _Sample("a", frozenset({"x", "y"}), ("2", "1"), ["z"], None)
    assert from_table(_Sample, {**table, "order": None}, name="b").name == "b"
    assert from_table(_Sample, {**table, "order": None}).order is None
    assert from_table(_Sample, {**table, "note": "n"}).note == "n"


def test_a_record_from_a_table_without_a_key_fails() -> None:
    """The accessors above raise then: a key missing from a file fails this module's tests."""
    with pytest.raises(KeyError, match="words"):
        from_table(_Sample, {"name": "a", "order": None, "listed": []})


# --- keys named in the callers' source -----------------------------------------------------------

# accessor name -> (which argument is the key, counted from the end; the keys the knowledge has).
# The scan matches the name wherever it is called: `libraries.has(library, "ktls")`, and the
# config model's and the rules' `ctx.has("ktls")`, which ask the same table.
KEYED: dict[str, Callable[[ast.Call], set[str]]] = {}


def _keys(*names: str) -> Callable[[Callable[[ast.Call], set[str]]], None]:
    def register(function: Callable[[ast.Call], set[str]]) -> None:
        for name in names:
            KEYED[name] = function

    return register


@_keys("has", "capability")
def _capabilities(_: ast.Call) -> set[str]:
    return set(libraries.capability_names())


@_keys("feature_available", "feature_since")
def _features(_: ast.Call) -> set[str]:
    return set(toml_file("nginx")["feature"])


@_keys("group_syntax", "group_syntax_summary")
def _syntax(_: ast.Call) -> set[str]:
    return set(toml_file("libraries")["syntax"])


@_keys("directive_status")
def _directives(call: ast.Call) -> set[str]:
    table = "directive"
    if len(call.args) == 3 and isinstance(call.args[2], ast.Constant):
        table = str(call.args[2].value)
    return set(nginx.known_names(table))


def literal_keys(tree: ast.AST) -> Iterator[tuple[int, str, str, set[str]]]:
    """(line, accessor, key, the keys it knows) for each call of a keyed accessor whose key is
    a string literal in the source."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name not in KEYED:
            continue
        strings = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not strings:
            continue
        key = node.args[1] if name == "directive_status" and len(node.args) > 1 else strings[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            yield node.lineno, name, key.value, KEYED[name](node)


def test_every_key_a_caller_names_exists() -> None:
    wrong, seen = [], 0
    for path in sorted((REPO / "nginxgen").rglob("*.py")):
        for line, name, key, known in literal_keys(ast.parse(path.read_text(), str(path))):
            seen += 1
            if key not in known:
                wrong.append(f"{path.relative_to(REPO)}:{line}: {name}({key!r})")
    assert wrong == []
    assert seen > 40  # the scan sees the callers (ctx.has, libraries.has, ...)


@pytest.mark.parametrize(
    "source",
    [
        'libraries.has(target.library, "ktsl")',
        'ctx.has("tls13_stateful_resumtion")',
        'nginx.feature_available(target, "ssl_sendfil")',
        'tls_groups.group_syntax(library, "stars")',
        'nginx.directive_status(target, "ssl_early_dat")',
        'nginx.directive_status(target, "quik", "listen_param")',
    ],
)
def test_the_scan_catches_a_misspelt_key(source: str) -> None:
    found = list(literal_keys(ast.parse(source)))
    assert len(found) == 1 and found[0][2] not in found[0][3]


def test_the_package_runs_nothing_on_import() -> None:
    """Callers import the topic they read: the package itself binds no accessor."""
    path = Path(nginxgen.knowledge.__file__)
    tree = ast.parse(path.read_text())
    assert all(isinstance(n, ast.Expr) for n in tree.body), (
        "knowledge/__init__.py: only a docstring"
    )


def test_only_the_topics_read_the_files() -> None:
    """Outside the package no module reads the knowledge files themselves (their tables are
    untyped): callers get typed records from a topic module. The cipher engine reads its own
    models' file (cipher_models.toml) into its own records: its model, and its suite names
    (those beyond OpenSSL's table, which the probe enumerates too)."""
    readers = []
    for path in sorted((REPO / "nginxgen").rglob("*.py")):
        if path.parent.name == "knowledge":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "nginxgen.knowledge.data":
                readers.append(str(path.relative_to(REPO)))
    assert readers == ["nginxgen/ciphers/model.py", "nginxgen/ciphers/suites.py"]


def test_the_directive_table_read_by_line_is_the_json_document() -> None:
    """A lint decodes nginx_directives.json one directive at a time (data.json_file_by_line):
    what it reads must be what the whole document says, for every name."""
    import json

    from nginxgen.knowledge.data import dumps_by_line, json_file, json_file_by_line

    document = json_file("nginx_directives")
    head, rows = json_file_by_line("nginx_directives", "directives")
    assert head == {k: v for k, v in document.items() if k != "directives"}
    assert {name: json.loads(text) for name, text in rows.items()} == document["directives"]
    assert dumps_by_line(document, "directives") == (
        Path(nginxgen.knowledge.__file__).parent / "nginx_directives.json"
    ).read_text(encoding="utf-8")


def test_the_intermediate_suites_are_the_intermediate_presets() -> None:
    """What lint's fix writes for nginx's default ssl_ciphers (web.intermediate_ciphers) is the
    intermediate preset's list: one list, said twice."""
    from nginxgen.generate.presets import load_preset
    from nginxgen.knowledge import web

    assert tuple(load_preset("intermediate")["policy"]["ciphers"]) == web.intermediate_ciphers()
