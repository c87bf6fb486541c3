"""`nginxgen lsp` in a real editor (issue 28): headless Neovim (Debian's, installed by
scripts/provision.py) starts the server with its built-in LSP client, shows the diagnostic on
the right line, applies the fix-all code action with its own workspace-edit code (the result
is byte for byte what `lint --unsafe-fixes` leaves) and shows the hover that names the deciding
server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import require_program
from tests.lsp.test_lsp import OPTIONS, VHOST, tree, unsafe_fixed
from tests.paths import REPO

SCRIPT = r"""
local out = {}
local id = vim.lsp.start_client({
  name = "nginxgen",
  cmd = {PYTHON, "-m", "nginxgen", "lsp"},
  cmd_cwd = REPO,
  root_dir = ROOT,
  init_options = OPTIONS,
})
vim.lsp.buf_attach_client(0, id)
local client = vim.lsp.get_client_by_id(id)
vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  local lsp = d.user_data and d.user_data.lsp or {}
  table.insert(out.diagnostics, {lnum = d.lnum, col = d.col, end_col = d.end_col,
    message = d.message, code = d.code or lsp.code})
end
local uri = vim.uri_from_bufnr(0)
local hover = client.request_sync("textDocument/hover",
  {textDocument = {uri = uri}, position = {line = 5, character = 8}}, 20000, 0)
out.hover = hover and hover.result and hover.result.contents.value or vim.NIL
local actions = client.request_sync("textDocument/codeAction", {textDocument = {uri = uri},
  range = {start = {line = 0, character = 0}, ["end"] = {line = 0, character = 0}},
  context = {diagnostics = {}}}, 20000, 0)
out.titles = {}
for _, action in ipairs(actions and actions.result or {}) do
  table.insert(out.titles, action.title)
  if action.kind == "source.fixAll" and action.title:find("unsafe") then
    vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
  end
end
vim.cmd("silent! wall")
local file = io.open(OUT, "w")
file:write(vim.fn.json_encode(out))
file:close()
vim.cmd("qa!")
"""


def lua_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid Lua string literal here (ASCII paths)


@pytest.mark.live
def test_neovim_shows_fixes_and_hovers(tmp_path: Path) -> None:
    nvim = require_program("nvim", "python scripts/provision.py installs it")
    root = tree(tmp_path / "etc")
    expected = unsafe_fixed(root, tmp_path / "copy")
    out = tmp_path / "out.json"
    options = "{" + ", ".join(f"{k} = {lua_string(v)}" for k, v in OPTIONS.items()) + "}"
    script = tmp_path / "init.lua"
    script.write_text(
        f"PYTHON = {lua_string(sys.executable)}\nREPO = {lua_string(str(REPO))}\n"
        f"ROOT = {lua_string(str(root))}\nOPTIONS = {options}\nOUT = {lua_string(str(out))}\n"
        + SCRIPT
    )
    vhost = root / "conf.d" / "b.conf"
    done = subprocess.run(
        [nvim, "--headless", "--clean", "-n", str(vhost), "-c", f"luafile {script}"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert out.is_file(), done.stdout + done.stderr
    found = json.loads(out.read_text())
    curve = [d for d in found["diagnostics"] if d["code"] == "NGX101"]
    assert curve and curve[0]["lnum"] == 5 and curve[0]["col"] == 0, found["diagnostics"]
    assert "ignored on *:443: server a.example" in found["hover"]
    assert any("fix all" in t and "unsafe" in t for t in found["titles"]), found["titles"]
    after = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.conf"))}
    assert after == expected and after["conf.d/b.conf"] != VHOST
