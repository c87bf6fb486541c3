"""Wheels made here for the browser page, without a build backend or a network: nginxgen's own,
from the installed package (its modules, knowledge, templates and presets, as the wheel that
`pip install .` builds lays them out), and a pure-Python wheel from the source of a package
that ships only binary wheels (markupsafe, pyyaml: each runs without its C speed-up). Each is
byte for byte the same on every run (fixed times and order), so the page's lock of what it
loads names stable checksums."""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from pathlib import Path

from nginxgen.base.records import record

# 1980-01-01, the earliest time a zip entry holds: every entry gets it, so a wheel's bytes
# depend on its files only
_EPOCH = (1980, 1, 1, 0, 0, 0)


@record(frozen=True)
class PureSource:
    """Where a source distribution keeps its package folders, and what of them a pure wheel
    takes."""

    folders: tuple[str, ...]  # relative to the unpacked source's top folder


# The sources the page makes wheels of (nginxgen/web/pins.json pins their archives).
PURE_SOURCES = {
    "markupsafe": PureSource(("src/markupsafe",)),  # _native.py stands in for _speedups.c
    "pyyaml": PureSource(("lib/yaml", "lib/_yaml")),  # the pure reader when libyaml is absent
}
PURE_SUFFIXES = (".py", ".typed")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(
    path: Path, files: dict[str, bytes], dist_info: str, metadata: str, tag: str
) -> Path:
    """A wheel at `path` holding `files` (archive name -> bytes), with its .dist-info."""
    wheel = f"Wheel-Version: 1.0\nGenerator: nginxgen.web\nRoot-Is-Purelib: true\nTag: {tag}\n"
    entries = dict(sorted(files.items()))
    entries[f"{dist_info}/METADATA"] = metadata.encode()
    entries[f"{dist_info}/WHEEL"] = wheel.encode()
    lines = [_record_line(name, data) for name, data in entries.items()]
    lines.append(f"{dist_info}/RECORD,,")
    entries[f"{dist_info}/RECORD"] = ("\n".join(lines) + "\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name, _EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    path.write_bytes(buffer.getvalue())
    return path


def nginxgen_wheel(folder: Path) -> Path:
    """nginxgen's wheel, from this installation: the package's files, with templates/ and
    presets/ inside it (pyproject.toml's force-include), and its installed metadata."""
    from importlib.metadata import metadata

    import nginxgen
    from nginxgen.base.resources import data_dir

    package = Path(nginxgen.__file__).resolve().parent
    files: dict[str, bytes] = {}
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        if path.is_file() and "__pycache__" not in relative.parts:
            files[f"nginxgen/{relative.as_posix()}"] = path.read_bytes()
    for name in ("templates", "presets"):
        root = data_dir(name)
        for path in sorted(root.rglob("*")):
            if path.is_file():
                files[f"nginxgen/{name}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    installed = metadata("nginxgen")
    version = installed["Version"]
    lines = ["Metadata-Version: 2.1", "Name: nginxgen", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in installed.get_all("Requires-Dist") or []]
    text = "\n".join(lines) + "\n"
    name = f"nginxgen-{version}"
    return write_wheel(
        folder / f"{name}-py3-none-any.whl", files, f"{name}.dist-info", text, "py3-none-any"
    )


def pure_wheel(sdist: Path, project: str, folder: Path) -> Path:
    """A py3-none-any wheel of a source archive's pure-Python modules (PURE_SOURCES)."""
    source = PURE_SOURCES[project]
    files: dict[str, bytes] = {}
    info = ""
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            top, _, inside = member.name.partition("/")
            if not member.isfile():
                continue
            if inside == "PKG-INFO":
                info = _read(archive, member).decode()
            for prefix in source.folders:
                if inside.startswith(prefix + "/") and inside.endswith(PURE_SUFFIXES):
                    base = prefix.rsplit("/", 1)[0]
                    files[inside.removeprefix(base + "/")] = _read(archive, member)
    name, version = top.rsplit("-", 1)
    dist = f"{name.replace('-', '_').lower()}-{version}"
    return write_wheel(
        folder / f"{dist}-py3-none-any.whl", files, f"{dist}.dist-info", info, "py3-none-any"
    )


def _read(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = archive.extractfile(member)
    assert handle is not None  # a regular file
    return handle.read()
