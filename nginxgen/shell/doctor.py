"""`nginxgen doctor`: what this machine's nginx and kernel can do for TLS, and which presets fit.

Read from: `nginx -V` (version, TLS library, `--with-*_module`), the knowledge base (the groups
and kTLS path that library has), /proc (the `tls` kernel module in /proc/modules, the kernel TLS
counters in /proc/net/tls_stat read twice to see whether they move, the CPU's `aes` flag in
/proc/cpuinfo), and the generator (which presets plan without a refusal for this target).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from nginxgen.generate.compose import cpu_has_aes
from nginxgen.generate.examples import preset_plans
from nginxgen.knowledge import advisories, libraries, nginx, tls_groups
from nginxgen.knowledge.target import Target

MODULES = ("http_v2", "http_v3", "stream_ssl")
RECOMMENDED = ("pq", "intermediate")  # first that fits: ML-KEM enforced where the library can


def _tls_stat(proc: Path) -> dict[str, int] | None:
    """/proc/net/tls_stat: `TlsTxSw 12` lines (absent without the kernel's TLS module)."""
    try:
        text = (proc / "net" / "tls_stat").read_text()
    except OSError:
        return None
    counters = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if value.strip().isdigit():
            counters[name] = int(value)
    return counters


def _tls_module(proc: Path) -> bool | None:
    try:
        lines = (proc / "modules").read_text().splitlines()
    except OSError:
        return None
    return any(line.split(" ", 1)[0] == "tls" for line in lines)


def ktls(proc: Path, target: Target, interval: float) -> dict[str, Any]:
    before = _tls_stat(proc)
    if before is not None and interval > 0:
        time.sleep(interval)
    after = _tls_stat(proc)
    moving = None
    if before is not None and after is not None:
        moving = any(after.get(k, 0) != v for k, v in before.items())
    nginx_path = libraries.has(target.library, "ktls") and nginx.feature_available(
        target, "ssl_sendfile"
    )
    module = _tls_module(proc)
    return {
        "nginx_and_library": nginx_path,
        "kernel_module": module,
        "tls_stat": after,
        "moving": moving,
        "usable": bool(nginx_path and (after is not None or module)),
    }


def diagnose(target: Target, nginx_bin: str, proc: Path, interval: float) -> dict[str, Any]:
    available = [
        g
        for g in sorted(tls_groups.all_groups(), key=lambda g: g.id.lower())
        if g.available(target.library)
    ]
    groups = [g.id for g in available]
    mlkem = [g.id for g in available if g.pq and not g.draft]
    aes = cpu_has_aes(proc / "cpuinfo")
    plans = preset_plans(target)
    fit = sorted(name for name, plan in plans.items() if not isinstance(plan, str))
    recommended = next((name for name in RECOMMENDED if name in fit), fit[0] if fit else None)
    return {
        "nginx_bin": nginx_bin,
        "target": target.as_dict(),
        "modules": {
            name: (name in target.modules) if target.modules is not None else None
            for name in MODULES
        },
        "groups": groups,
        "mlkem": mlkem,
        "ktls": ktls(proc, target, interval),
        "cpu": {
            "aes": aes,
            "cpu_option": None if aes is None else ("aes-ni" if aes else "no-aes-ni"),
        },
        "advisories": [
            {"cve": a.cve, "name": a.name, "severity": a.severity, "fixed": list(a.fixed)}
            for a in advisories.advisories(target.nginx)
        ],
        "presets": {
            "fit": fit,
            "refused": {name: plan for name, plan in plans.items() if isinstance(plan, str)},
            "recommended": recommended,
        },
    }


def text_report(found: dict[str, Any]) -> str:
    def yes(value: bool | None) -> str:
        return "unknown" if value is None else ("yes" if value else "no")

    target = found["target"]
    k = found["ktls"]
    cpu = found["cpu"]
    presets = found["presets"]
    modules = ", ".join(f"{name} {yes(on)}" for name, on in found["modules"].items())
    counters = "absent" if k["tls_stat"] is None else "present"
    if k["moving"] is not None:
        counters += " and moving" if k["moving"] else " and not moving"
    lines = [
        f"nginx: {found['nginx_bin']}: nginx {target['nginx']} with {target['tls_library']}",
        f"modules: {modules}",
        f"ML-KEM: {', '.join(found['mlkem']) or 'none (this library has no ML-KEM groups)'}",
        f"groups: {' '.join(found['groups'])}",
        f"kTLS: nginx and library {yes(k['nginx_and_library'])}, kernel module "
        f"{yes(k['kernel_module'])}, counters {counters}",
        f"CPU AES instructions: {yes(cpu['aes'])}",
        "security advisories (nginx.org, for this upstream release; a package may carry the "
        f"fixes): {', '.join(a['cve'] or a['name'] for a in found['advisories']) or 'none'}",
        f"presets that fit: {', '.join(presets['fit'])}",
    ]
    for name, why in presets["refused"].items():
        lines.append(f"  {name}: {why.splitlines()[0]}")
    if presets["recommended"]:
        option = f" --cpu {cpu['cpu_option']}" if cpu["cpu_option"] else ""
        lines.append(
            f"suggested: nginxgen generate --preset {presets['recommended']}{option} "
            f"--nginx-bin {found['nginx_bin']}"
        )
    return "\n".join(lines) + "\n"
