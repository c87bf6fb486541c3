"""Build the browser page into a folder anyone can host (any static server, GitHub Pages, a file
share) that needs no network beyond its own origin:

- pyodide/: Pyodide's runtime (CPython 3.14 for wasm32) from its npm package;
- wheels/: what nginxgen imports there, each pinned by name, size and sha256 in
  nginxgen/web/pins.json (pydantic-core's wasm32 build and pure wheels from PyPI; markupsafe and
  pyyaml made pure from their pinned sources), and nginxgen's own wheel from this installation;
  wheels.json lists each one the page loads, with its checksum;
- index.html, app.js, app.css, and engine.js (nginxgen in Pyodide, in a worker): the page,
  with the catalogue (targets, presets, rules) and the first screen's generated config computed
  here, so a config is on screen before Pyodide has loaded. That first screen is computed as
  the page computes it: without cryptography.

Downloads go through nginxgen.files.pinned (verified before use, fetched once into `downloads`)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from nginxgen.files.pinned import fetch_pinned, sha256_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import http.server

HERE = Path(__file__).resolve().parent
PINS = HERE / "pins.json"
STATIC = HERE / "static"
# Pyodide's runtime: what loadPyodide fetches (the module, the interpreter, its standard
# library, the lock of the packages it knows, of which the page loads none)
RUNTIME = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
)
# Unpacked first, by the page's own Python (and into the snapshot): what lint needs (ngxparse
# reads Lua blocks) and the pure part of what generate adds; then pydantic and its compiled core,
# with Pyodide's loadPackage (which loads a wheel's WebAssembly libraries).
EARLY_PROJECTS = ("nginxgen", "ngxparse", "jinja2", "markupsafe", "pyyaml")
SNAPSHOT = "snapshot.bin.gz"


def build_site(out: Path, downloads: Path, offline: bool = False) -> Path:
    """The page in `out` (replaced whole, once every part is ready); `offline`: from the files
    already in `downloads` only."""
    pins = json.loads(PINS.read_text())["files"]
    fetched = [fetch_pinned(pin, downloads, offline) for pin in pins]
    staging = out.with_name(out.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    (staging / "pyodide").mkdir(parents=True)
    (staging / "wheels").mkdir()
    wheels = _wheels(fetched, staging / "wheels")
    for path in fetched:
        if path.name.startswith("pyodide-") and path.name.endswith(".tgz"):
            _unpack_runtime(path, staging / "pyodide")
    lock = [{"name": w.name, "size": w.stat().st_size, "sha256": sha256_of(w)} for w in wheels]
    (staging / "wheels.json").write_text(json.dumps(lock, indent=1) + "\n")
    early = [w.name for w in wheels if _project(w.name) in EARLY_PROJECTS]
    data = {
        "catalogue": _computed("catalogue"),
        "first": _computed("first"),
        "wheels": {"early": early, "late": [w.name for w in wheels if w.name not in early]},
        "snapshot": _snapshot(staging, early),
    }
    embedded = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    page = (STATIC / "index.html").read_text(encoding="utf-8").replace("<!--DATA-->", embedded)
    (staging / "index.html").write_text(page, encoding="utf-8")
    for name in ("app.js", "engine.js", "app.css"):
        shutil.copy(STATIC / name, staging / name)
    shutil.rmtree(out, ignore_errors=True)
    staging.replace(out)
    return out


def _snapshot(staging: Path, early: list[str]) -> bool:
    """pyodide/snapshot.bin.gz: Pyodide's memory once started, with the early wheels imported
    (nginxgen/web/snapshot.mjs, under Node); without Node, none, and the page starts Python
    itself (ten times slower to lint ready, docs/benchmarks.md)."""
    import gzip

    node = shutil.which("node")
    if node is None:
        return False
    raw = staging / "snapshot.bin"
    subprocess.run(
        [node, str(HERE / "snapshot.mjs"), str(staging / "pyodide"), str(staging / "wheels"),
         str(raw), *early],
        capture_output=True, check=True, timeout=900,
    )  # fmt: skip
    with (staging / "pyodide" / SNAPSHOT).open("wb") as out:
        out.write(gzip.compress(raw.read_bytes(), compresslevel=6, mtime=0))
    raw.unlink()
    return True


def _project(wheel: str) -> str:
    return wheel.split("-", 1)[0].replace("_", "-").lower()


def _wheels(fetched: list[Path], folder: Path) -> list[Path]:
    from nginxgen.web.wheels import PURE_SOURCES, nginxgen_wheel, pure_wheel

    wheels = [nginxgen_wheel(folder)]
    for path in fetched:
        if path.suffix == ".whl":
            wheels.append(Path(shutil.copy(path, folder / path.name)))
        elif path.name.endswith(".tar.gz") and _project(path.name) in PURE_SOURCES:
            wheels.append(pure_wheel(path, _project(path.name), folder))
    return wheels


def _unpack_runtime(tgz: Path, folder: Path) -> None:
    with tarfile.open(tgz) as archive:
        for name in RUNTIME:
            member = archive.extractfile(f"package/{name}")
            assert member is not None, name  # a regular file in every release we pin
            (folder / name).write_bytes(member.read())


# What the page shows before its engine runs, computed by nginxgen.web.page as the page calls
# it, in a Python where cryptography cannot be imported (as in the browser).
_PROGRAM = """
import json, sys
sys.modules["cryptography"] = None
from nginxgen.web import page
if sys.argv[1] == "catalogue":
    print(json.dumps(page.catalogue()))
else:
    state = dict(page.DEFAULTS)
    print(json.dumps({"state": state, "result": json.loads(page.generate(json.dumps(state)))}))
"""


def _computed(what: str) -> object:
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM, what], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def server(folder: Path, host: str, port: int) -> http.server.HTTPServer:
    """Python's own static server for the page in `folder`, with the types a browser insists
    on for WebAssembly and modules, and quiet (the page's requests are its own business)."""
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {  # noqa: RUF012 (the base class's own attribute, replaced)
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".wasm": "application/wasm",
            ".mjs": "text/javascript",
            ".js": "text/javascript",
            ".whl": "application/zip",
        }

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request: object, client_address: object) -> None:
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)  # type: ignore[arg-type]
            # a tab closed mid-download (a reload, say) is no error of the page's

    handler = functools.partial(Handler, directory=str(folder))
    return Server((host, port), handler)


def serve(folder: Path, host: str, port: int) -> None:
    """Serve the page from `folder` until interrupted."""
    with server(folder, host, port) as running:
        print(f"nginxgen: serving {folder} at http://{host}:{running.server_port}/", flush=True)
        running.serve_forever()
