"""One spelling per concept: `-h` on every command, an example in every help, run arguments
spelled RUN..., metavars naming the kind of value; docs/CLI.md is the help pages verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from localagentbench.cli._reference import command_paths, help_text, reference

PATHS = list(command_paths())
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "(root)")
def test_every_command_takes_h_and_shows_an_example(path: tuple[str, ...]) -> None:
    code, text = help_text(path, "-h")
    assert code == 0
    assert text.startswith("Usage: localagentbench")
    assert "Example" in text
    assert help_text(path, "--help")[1] == text


@pytest.mark.parametrize("path", PATHS, ids=lambda p: " ".join(p) or "(root)")
def test_metavars_name_the_kind_of_value(path: tuple[str, ...]) -> None:
    _, text = help_text(path)
    usage = text.splitlines()[0]
    assert not re.search(r"\{\w+\}", usage), usage  # typer's {runs}...
    assert "runs" not in usage.lower().replace("run...", "").replace("[run]", "")
    vague = re.findall(r"--[\w-]+ (TEXT|NUMBER)\b", text)
    assert not vague, vague


def test_run_arguments_are_spelled_run_everywhere() -> None:
    usages = {" ".join(p): help_text(p)[1].splitlines()[0] for p in PATHS if p and p[0] != "docs"}
    takes_runs = {name: u for name, u in usages.items() if "RUN" in u}
    assert {"report", "tables", "judge", "regrade", "rejudge", "plan"} <= set(takes_runs)
    for usage in takes_runs.values():
        assert re.search(r"(\[RUN\]\.\.\.|RUN\.\.\.|RUN)$", usage), usage


def test_plan_takes_repeat_and_keeps_repeats_as_a_hidden_alias(cli) -> None:
    args = ("plan", "--tasks", "24", "--base-rate", "0.5", "--json")
    new = cli(*args, "--repeat", "2")
    old = cli(*args, "--repeats", "2")
    assert new[0] == old[0] == 0
    assert new[1] == old[1]
    assert "--repeats" not in help_text(("plan",))[1]


def test_docs_cli_md_is_the_commands_own_help() -> None:
    """Regenerate with: python3 -m localagentbench.cli._reference > docs/CLI.md"""
    assert (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8") == reference()
