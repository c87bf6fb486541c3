"""The rendered examples in `examples/`: every preset for the targets people run most."""

from __future__ import annotations

from pathlib import Path

from nginxgen.base.errors import NginxgenError
from nginxgen.generate.compose import compose
from nginxgen.generate.plan import Plan, make_plan
from nginxgen.generate.presets import list_presets
from nginxgen.generate.render import render
from nginxgen.knowledge.target import Target, resolve

EXAMPLE_TARGETS = {
    "nginx-1.22.1_openssl-3.0": ("1.22.1", "openssl-3.0"),
    "nginx-1.26.3_openssl-3.5": ("1.26.3", "openssl-3.5"),
    "nginx-stable_openssl-3.5": (None, "openssl-3.5"),
}
DOMAIN = "example.com"
CERT = "/etc/ssl/example.com/fullchain.pem"
KEY = "/etc/ssl/example.com/privkey.pem"


def example_target(folder: str) -> Target:
    nginx, library = EXAMPLE_TARGETS[folder]
    target = resolve(nginx, library)
    return Target(target.nginx, target.library)  # the folder name says what is assumed


def preset_plans(target: Target) -> dict[str, Plan | str]:
    """Each preset planned for the example site on a target, or the refusal text where it
    cannot work there (also what `nginxgen doctor` says fits a machine)."""
    out: dict[str, Plan | str] = {}
    for preset in list_presets():
        model = compose(
            preset.name,
            None,
            domains=[DOMAIN, f"www.{DOMAIN}"],
            certs=[CERT],
            keys=[KEY],
            listen=None,
            http_listen=None,
            cpu=None,
            comments=True,
            check_certificates=False,
        )
        try:
            out[preset.name] = make_plan(model, target)
        except NginxgenError as exc:
            out[preset.name] = str(exc)
    return out


def render_examples() -> dict[str, dict[str, str] | str]:
    """`<target>/<preset>` -> files, or the refusal text where the preset cannot work there."""
    result: dict[str, dict[str, str] | str] = {}
    for folder in EXAMPLE_TARGETS:
        for name, plan in preset_plans(example_target(folder)).items():
            result[f"{folder}/{name}"] = plan if isinstance(plan, str) else render(plan)
    return result


def write_examples(root: Path) -> list[Path]:
    written = []
    for key, files in render_examples().items():
        folder = root / key
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        if isinstance(files, str):
            path = folder / "REFUSED.txt"
            path.write_text(files + "\n", encoding="utf-8")
            written.append(path)
            continue
        for name, text in files.items():
            path = folder / name
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
