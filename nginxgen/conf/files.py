"""The files a config names (certificates, keys, DH parameters, ticket keys): where nginx would
find each, and its bytes. A file that cannot be read here (a variable in the path, a CI runner
without the secrets) is None: callers only speak about what they could see. What is in a
certificate or key, nginxgen.base.pem says."""

from __future__ import annotations

import os

from nginxgen.base.patterns import lazy
from nginxgen.conf.load import Loaded


def resolve(loaded: Loaded, path: str) -> str | None:
    """The file nginx would open for this path, or None when it cannot be known here. Asked
    once per path and tree: nothing a lint reads changes while it runs."""
    known = loaded.resolved
    if path not in known:
        full = None
        if "$" not in path and not path.startswith(("data:", "engine:", "store:")):
            full = loaded.here(path)
            if not (os.path.isfile(full) and os.access(full, os.R_OK)):
                full = None
        known[path] = full
    return known[path]


def read(loaded: Loaded, path: str) -> bytes | None:
    full = resolve(loaded, path)
    if full is None:
        return None
    try:
        with open(full, "rb") as handle:
            data = handle.read(1 << 20)  # a chain or a key; not a reason to read a huge file
    except OSError:
        return None
    if full not in loaded.reads:
        loaded.reads[full] = os.path.realpath(full)  # a read outside the tree is named (conf.tree)
    return data


def absent(
    loaded: Loaded, path: str, nginx_conf_path: str | None, prefix: str | None = None
) -> bool:
    """Whether the file nginx would open for this path is known not to exist, and not merely
    not here: the tree is the one this machine's nginx reads (its main file sits in the folder
    of the binary's --conf-path, `nginx_conf_path`, from `--nginx-bin`) and the file is not
    there. Elsewhere a file missing here may be on the server (a CI runner without the
    secrets, a copy of the tree, a test's placeholder). A relative path is read from the main
    file's folder, or from `prefix` (nginx's own: load_module)."""
    if not nginx_conf_path or "$" in path or path.startswith(("data:", "engine:", "store:")):
        return False
    if not loaded.files or not os.path.isfile(loaded.files[0]):  # text given on stdin
        return False
    main_folder = os.path.dirname(os.path.realpath(loaded.files[0]))
    if os.path.realpath(os.path.dirname(nginx_conf_path)) != main_folder:
        return False
    if prefix is not None and not os.path.isabs(path):
        return not os.path.lexists(os.path.join(prefix, path))
    return not os.path.lexists(loaded.here(path))


# the variable a per-handshake certificate path is named by, the one whose value a name tells
_SERVER_NAME = lazy(r"\$(?:ssl_server_name\b|\{ssl_server_name\})")
_VARIABLE = lazy(r"\$(?:\{\w+\}|\w+)")


def for_name(path: str, sni: str | None) -> str | None:
    """The file a certificate path with variables names for one handshake (nginx reads it then,
    ngx_http_ssl_certificate): `$ssl_server_name` is the name the client sent ("" without
    one); None where another variable is in it, or a `data:` value."""
    if path.startswith(("data:", "engine:", "store:")):
        return None
    named = _SERVER_NAME.sub(lambda _: sni or "", path)
    return None if "$" in named else named


def missing_for_name(loaded: Loaded, path: str, sni: str | None) -> bool:
    """Whether the file a per-handshake path names for this name is known not to be there: it
    is not, while a file the same path names for some other name is (the folder holds this
    line's files, and not this one). A folder that is not here, or holds none of them, tells
    nothing (the files may be on the server only)."""
    named = for_name(path, sni)
    if named is None or not _VARIABLE.search(path) or resolve(loaded, named) is not None:
        return False
    import glob  # only for a path with variables: not on every lint's start

    pieces = _VARIABLE.split(path)
    pattern = "*".join(glob.escape(piece) for piece in pieces)
    return any(
        os.path.isfile(found) and os.access(found, os.R_OK)
        for found in glob.iglob(loaded.here(pattern))
    )
