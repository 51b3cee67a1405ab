"""The CLI surface: every command documented, JSON listing, exit codes."""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path

import typer

from localagentbench.agents import AGENTS
from localagentbench.cli._app import app
from localagentbench.tasks import bundled_suite, load_tasks

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands() -> list[str]:
    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_every_command_is_in_the_readme_and_has_an_example():
    readme = README.read_text()
    group = typer.main.get_command(app)
    for name in _commands():
        assert f"localagentbench {name}" in readme, f"README does not document `{name}`"
        help_text = group.commands[name].help or ""  # type: ignore[attr-defined]
        assert "localagentbench " in help_text, f"`{name} --help` has no example"


def test_every_run_option_is_in_the_cli_reference():
    """The README lists the commands and links docs/CLI.md, which has every option."""
    reference = (README.parent / "docs" / "CLI.md").read_text()
    assert "(docs/CLI.md)" in README.read_text()
    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    for param in run.params:
        for opt in param.opts:
            if opt.startswith("--") and opt != "--help" and not param.hidden:
                assert f" {opt}" in reference, f"docs/CLI.md does not document run {opt}"


def test_list_tasks_json(cli):
    code, out, _ = cli("list-tasks", "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == len(load_tasks(bundled_suite()))
    for row in rows:
        assert {"id", "language", "category", "difficulty", "tier", "heldout", "version"} <= set(
            row
        )


def test_usage_errors_exit_2_with_one_line(cli, tmp_path):
    code, _, err = cli("run", "--agent", "nonsense", "--out", str(tmp_path / "r"))
    assert code == 2
    valid = ", ".join(sorted(AGENTS))
    assert err.strip() == f"error: unknown agent 'nonsense'; valid: {valid}"
    code, _, err = cli("run")
    assert code == 2
    assert "give exactly one of --agent or --config" in err


def test_unknown_option_is_a_usage_error(cli):
    code, _, err = cli("run", "--no-such-flag")
    assert code == 2
    assert "No such option" in err


def test_python_dash_m_works():
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", "localagentbench", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.startswith("localagentbench ")


def _all_commands() -> list[tuple[list[str], typer.core.TyperCommand]]:
    found = []

    def walk(prefix: list[str], command: object) -> None:
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk([*prefix, name], sub)
        found.append((prefix, command))

    walk([], typer.main.get_command(app))
    return found


def test_help_examples_are_one_per_line_with_readable_placeholders(cli):
    """Click rewraps docstring paragraphs; an example block must survive as written."""
    placeholder = re.compile(r"<(list\[|int|float|str|path|Path|bool)")
    checked = 0
    for words, command in _all_commands():
        code, out, _ = cli(*words, "--help")
        assert code == 0
        lines = [line.strip() for line in out.splitlines()]
        doc = inspect.cleandoc(getattr(command, "help", None) or "")
        for example in (line.strip() for line in doc.splitlines()):
            if example.startswith("localagentbench "):
                assert example in lines, f"{words}: example {example!r} is not on its own line"
                checked += 1
        assert not placeholder.search(out), f"{words} --help: {placeholder.search(out)}"
    assert checked >= len(_commands())


def test_every_lazy_command_summary_is_its_own_help() -> None:
    """`--help` lists commands from summaries kept in cli/_app.py, so that it imports no
    command module: each summary must be the opening of that command's real help."""
    from localagentbench.cli._app import COMMANDS, load_command

    for name, lazy in COMMANDS.items():
        help_text = load_command(name).help or ""
        opening = " ".join(help_text.strip().split("\n\n")[0].split())
        assert opening.startswith(lazy.summary), (name, lazy.summary, opening)
        assert lazy.summary.endswith("."), name
