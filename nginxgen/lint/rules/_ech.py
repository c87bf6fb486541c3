"""Shared by the Encrypted Client Hello rules: the key files that decide on each TLS address
(the config model's answer, nginxgen/conf/per_name.py) and what each file holds (nginxgen/base/ech_configs.py)."""

from __future__ import annotations

from collections.abc import Iterator

from nginxgen.base.records import record
from nginxgen.conf.config import Server
from nginxgen.conf.effective import Effective
from nginxgen.conf.load import Stmt
from nginxgen.conf.per_name import NameModel
from nginxgen.lint.context import Context
from nginxgen.lint.rules._files import read

TYPE_CHECKING = False
if TYPE_CHECKING:  # nginxgen.base.ech_configs only once a key file is read: most configs have none
    from nginxgen.base import ech_configs as ech


@record
class EchSocket:
    socket: str
    default: Server
    files: tuple[str, ...]  # the deciding files, the retry configs' first
    line: Stmt  # the first deciding line (where a finding about the address points)
    model: NameModel  # for a client that sends no name: the default server's answers
    block: Effective  # the http{} or stream{} model the address is one of


def ech_sockets(ctx: Context) -> Iterator[EchSocket]:
    """Every TLS address, of http{} or of stream{}, whose default server has ECH key files
    (the default server decides in both: scripts/ech_nginx_proof.py)."""
    for block in ctx.families():
        for socket, default, _ in block.tls_sockets():
            model = NameModel(block, socket, None, default, default)
            answer = model.ech_files()
            if answer.value and answer.line is not None:
                first = next(s for s in default.effective("ssl_ech_file") if s.args)
                yield EchSocket(socket, default, answer.value, first, model, block)


@record
class KeyFile:
    keys: ech.EchKeyFile | None  # None: it does not parse
    problem: str | None  # why it does not work, as nginx would show it


def key_file(ctx: Context, path: str) -> KeyFile | None:
    """What a key file holds; None when it cannot be read here."""
    data = read(ctx, path)
    if data is None:
        return None
    from nginxgen.base import ech_configs as ech

    text = data.decode("utf-8", "replace")
    try:
        keys = ech.read_key_file(text)
    except ech.EchError as exc:
        if "-----BEGIN ECHCONFIG-----" in text and "-----BEGIN PRIVATE KEY-----" not in text:
            return KeyFile(None, "it has an ECHCONFIG but no PRIVATE KEY: nginx starts and "
                                 "decrypts nothing")  # fmt: skip
        line = f" (line {exc.line})" if exc.line else ""
        return KeyFile(None, f"it does not parse{line}: {exc}: nginx -t fails "
                             "(OSSL_ECHSTORE_read_pem failed)")  # fmt: skip
    if not keys.matches():
        return KeyFile(keys, "its private key is not the one its ECHCONFIG publishes: clients "
                             "encrypt to a key nginx does not have")  # fmt: skip
    return KeyFile(keys, None)
