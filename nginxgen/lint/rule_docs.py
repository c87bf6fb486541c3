"""One documentation page per lint rule, from the rule module itself (its docstring and RULE),
so that `nginxgen explain`, docs/rules/ and the code can never disagree."""

from __future__ import annotations

from pathlib import Path

from nginxgen.lint.context import TARGET_PARTS, Rule
from nginxgen.lint.findings import Applicability, Severity
from nginxgen.lint.rules import RuleEntry, catalog

SEVERITY_MEANING = {
    Severity.ERROR: "nginx refuses the config, or a security setting silently does not apply",
    Severity.WARNING: "insecure, or silently ignored",
    Severity.INFO: "speed or hygiene",
}


def page(entry: RuleEntry) -> str:
    rule = entry.rule
    return (
        f"# {rule.code} {rule.name}\n\n"
        f"{_severity(rule)}\n\n"
        f"{entry.doc.strip()}\n\n"
        f"## Fix\n\n{rule.fix}\n\n"
        f"Automatic fix: {_autofix(rule)}\n\n"
        "## Silence it\n\n"
        f"On the line or the line above: `# nginxgen: ignore[{rule.code}] why this is fine here`"
        f" (a reason is required). For a whole run: `--ignore {rule.code}`, or "
        f'`ignore = ["{rule.code}"]` under `[tool.nginxgen]`.\n'
    )


def _severity(rule: Rule) -> str:
    line = f"Severity: **{rule.severity}** ({SEVERITY_MEANING[rule.severity]})"
    for severity, when in rule.otherwise:
        line += f"; **{severity}** when {when}"
    return line + ("" if not rule.otherwise else ".")


def _autofix(rule: Rule) -> str:
    if rule.autofix is None:
        return "none (the right value is one only you know, or the fix is not automatic yet)."
    kind, what = rule.autofix
    flag = "--fix" if kind is Applicability.SAFE else "--unsafe-fixes"
    parts = " or ".join(TARGET_PARTS[p] for p in rule.target_bound)
    bound = (
        f" The fix is right only for the target's {parts}: where that was assumed (no flag,"
        " settings file or nginx binary said it), it is unsafe."
        if parts
        else ""
    )
    return f"**{kind}**, with `{flag}`: {what}.{bound}"


def index() -> str:
    lines = [
        "# Lint rules\n",
        "Generated from the rule modules by `python scripts/render_rule_docs.py`; "
        "`nginxgen explain CODE` prints the same page.\n",
        "| Code | Name | Severity | What |",
        "|---|---|---|---|",
    ]
    for code, entry in catalog().items():
        summary = entry.summary.replace("|", "\\|")
        lines.append(
            f"| [{code}]({code}.md) | {entry.rule.name} | {entry.rule.severity_range} | {summary} |"
        )
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name -> text for docs/rules/."""
    out = {"README.md": index()}
    out.update({f"{code}.md": page(entry) for code, entry in catalog().items()})
    return out


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
