"""The files a config names (certificates, keys, DH parameters, ticket keys): where nginx would
find each, and its bytes. A file that cannot be read here (a variable in the path, a CI runner
without the secrets) is None: callers only speak about what they could see. What is in a
certificate or key, nginxgen.base.pem says."""

from __future__ import annotations

import os

from nginxgen.conf.load import Loaded


def resolve(loaded: Loaded, path: str) -> str | None:
    """The file nginx would open for this path, or None when it cannot be known here."""
    if "$" in path or path.startswith(("data:", "engine:", "store:")):
        return None
    full = loaded.here(path)
    return full if os.path.isfile(full) and os.access(full, os.R_OK) else None


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


def absent(loaded: Loaded, path: str, nginx_conf_path: str | None) -> bool:
    """Whether the file nginx would open for this path is known not to exist, and not merely
    not here: the tree is the one this machine's nginx reads (its main file sits in the folder
    of the binary's --conf-path, `nginx_conf_path`, from `--nginx-bin`) and the file is not
    there. Elsewhere a file missing here may be on the server (a CI runner without the
    secrets, a copy of the tree, a test's placeholder)."""
    if not nginx_conf_path or "$" in path or path.startswith(("data:", "engine:", "store:")):
        return False
    if not loaded.files or not os.path.isfile(loaded.files[0]):  # text given on stdin
        return False
    main_folder = os.path.dirname(os.path.realpath(loaded.files[0]))
    if os.path.realpath(os.path.dirname(nginx_conf_path)) != main_folder:
        return False
    return not os.path.lexists(loaded.here(path))
