"""Each option is declared once (nginxgen.files.options): the flag of every command that is the
same option has the same names and help, the settings file's keys are the declared ones, and
the editor's keys are those keys in camel case."""

from __future__ import annotations

from nginxgen.files.options import BY_FLAG, OPTIONS, SETTINGS
from nginxgen.files.settings import KEYS
from nginxgen.lint.args import parse
from nginxgen.lsp.workspace import Settings
from nginxgen.shell.commands import app

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typer.core import TyperCommand


def _commands() -> list[TyperCommand]:
    # typer is imported after nginxgen.shell.commands, which sets how typer prints its help
    import typer.main
    from typer.core import TyperGroup

    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    found = []
    for command in group.commands.values():
        if isinstance(command, TyperGroup):
            found.extend(command.commands.values())
        found.append(command)
    return found


def test_a_shared_flag_is_the_declared_option_everywhere() -> None:
    from typer.core import TyperOption

    checked = 0
    for command in _commands():
        for param in command.params:
            if not isinstance(param, TyperOption):
                continue
            declared = {BY_FLAG[name] for name in param.opts if name in BY_FLAG}
            if not declared or param.name in ("output", "format"):
                continue  # --format's choices are each command's own
            (option,) = declared
            assert set(param.opts) == {option.flag, *option.aliases}, (command.name, param.opts)
            assert param.help == option.help, (command.name, param.opts)
            checked += 1
    # generate and probe take the target, the tree's map (and generate its prefix) from it
    assert checked >= 9, checked


def test_settings_keys_and_editor_keys_come_from_the_declarations() -> None:
    assert KEYS is SETTINGS
    assert SETTINGS["path-map"] == "table"
    assert {o.editor_key for o in OPTIONS if o.editor} == {
        "nginxVersion", "tlsLibrary", "nginxBin", "root", "pathMap"
    }  # fmt: skip


def test_the_path_map_has_one_name_in_three_places() -> None:
    assert parse(["--path-map", "/etc/nginx=conf", "x.conf"]).path_map == ["/etc/nginx=conf"]
    assert parse(["--map", "/etc/nginx=conf", "x.conf"]).path_map == ["/etc/nginx=conf"]
    editor = Settings.read({"nginxgen": {"pathMap": {"/etc/nginx": "conf"}, "root": "a.conf"}})
    assert editor.arguments().path_map == ["/etc/nginx=conf"]
    # a later configuration that leaves a key out keeps it
    later = Settings.read({"nginxVersion": "1.22.1"}, editor)
    assert later.arguments().path_map == ["/etc/nginx=conf"]
    assert (later.arguments().root, later.arguments().nginx_version) == ("a.conf", "1.22.1")
