"""The language server's latency and memory (issue 28).

    python bench/lsp.py [--lines 500] [--changes 200] [--edits 10000]

Latency: a 500-line vhost file (25 servers, one finding each) is opened in `nginxgen lsp`,
then changed `--changes` times (one argument edited each time); the time from sending each
didChange to receiving its publishDiagnostics is measured, side by side with a plain `nginxgen
lint` process on the same file (what an editor plugin that runs the CLI on save would cost).
Memory: `--edits` changes, each a new random directive name and value (the text the server
has never seen), with the server's resident memory (/proc/PID/status VmRSS) read every 1,000.
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

REPO = Path(__file__).resolve().parent.parent
TARGET = {"nginxVersion": "1.26.3", "tlsLibrary": "openssl-3.5.7"}
SERVER = """server {{
    listen 443 ssl;
    server_name site{i}.example.com;
    ssl_certificate /etc/ssl/site{i}.pem;
    ssl_certificate_key /etc/ssl/site{i}.key;
    ssl_ecdh_curve X25519:prime256v1;
    add_header Strict-Transport-Security "max-age=63072000";
    location / {{
        proxy_pass http://127.0.0.1:8080;
        proxy_set_header Host $host;
    }}
    location /static/ {{
        root /var/www/site{i};
        expires 7d;
    }}
    location /old {{
        return 301 /new;
    }}
    keepalive_timeout {i}s;
}}
"""


def document(lines: int) -> str:
    head = "events {}\nhttp {\nserver { listen 443 ssl default_server; ssl_reject_handshake on; }\n"
    body, i = [], 0
    while len((head + "".join(body)).splitlines()) < lines - 1:
        body.append(SERVER.format(i=i))
        i += 1
    return head + "".join(body) + "}\n"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def run(lines: int, changes: int, edits: int) -> dict[str, object]:
    folder = Path(tempfile.mkdtemp(prefix="nginxgen-lsp-bench-"))
    conf = folder / "nginx.conf"
    text = document(lines)
    conf.write_text(text)
    uri = conf.as_uri()
    client = LanguageClient("bench", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "nginxgen", "lsp", cwd=str(REPO))
    pid = client._server.pid  # type: ignore[union-attr]
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options=TARGET
        )
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "nginx", 1, text))
    )
    first = await published.get()
    version = 1
    latencies = []
    for n in range(changes):
        version += 1
        changed = text.replace("keepalive_timeout 0s", f"keepalive_timeout {n}s", 1)
        started = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(changed)],
            )
        )
        await published.get()
        latencies.append(time.perf_counter() - started)
    cli = []
    for _ in range(max(changes // 10, 5)):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "nginxgen", "lint", "--nginx-version", "1.26.3",
             "--tls-library", "openssl-3.5.7", str(conf)],
            capture_output=True, cwd=REPO, check=False,
        )  # fmt: skip
        cli.append(time.perf_counter() - started)
    rng = random.Random(28)
    memory = [rss_kib(pid)]
    for n in range(edits):
        version += 1
        name = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_") for _ in range(rng.randint(4, 14)))
        line = f"    {name} {rng.randint(0, 10**9)};\n"
        changed = text.replace("    keepalive_timeout 0s;\n", line, 1)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(changed)],
            )
        )
        await published.get()
        if (n + 1) % 1000 == 0:
            memory.append(rss_kib(pid))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "lines": len(text.splitlines()),
        "findings_on_open": len(first.diagnostics),
        "change_to_diagnostics_ms": {
            "median": round(statistics.median(latencies) * 1000, 1),
            "p95": round(sorted(latencies)[int(len(latencies) * 0.95) - 1] * 1000, 1),
            "max": round(max(latencies) * 1000, 1),
        },
        "lint_process_ms": {"median": round(statistics.median(cli) * 1000, 1)},
        "rss_kib_every_1000_edits": memory,
        "machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--edits", type=int, default=10_000)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.lines, args.changes, args.edits))))


if __name__ == "__main__":
    main()
