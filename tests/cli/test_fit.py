"""Output that fits: tables use a terminal's width and never wrap a cell when piped."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from cli._runs import make_run
from localagentbench.cli import _common, _run
from localagentbench.records import RunDir
from localagentbench.results import summarise

LONG_IDS = (
    "mini-swe-agent-llamacpp-qwen2.5-coder-1.5b-instruct-q4_k_m-repair",
    "aider-llamacpp-qwen2.5-coder-1.5b-instruct-q4_k_m-diff",
)


def _summary(tmp_path: Path):
    outcomes = {
        (task, config, repeat): (repeat + len(task)) % 2 == 0
        for task in ("py-calib-titlecase", "go-calib-clamp")
        for config in LONG_IDS
        for repeat in range(3)
    }
    rows = RunDir(make_run(tmp_path / "run", outcomes)).rows()
    return summarise("r", rows, "now")


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1] in "┃│┏┡└"]


def test_piped_leaderboard_keeps_every_row_on_one_line(tmp_path, monkeypatch, capsys):
    """Piped (not a terminal, no $COLUMNS): one line per configuration, none folded."""
    monkeypatch.delenv("COLUMNS", raising=False)
    _run._print_summary(_summary(tmp_path))
    out = capsys.readouterr().out
    body = [line for line in out.splitlines() if line.startswith("│")]
    assert len(body) == len(LONG_IDS)
    for config in LONG_IDS:
        assert any(config in line for line in body), config
    assert "configuration" in out


def test_leaderboard_fits_a_100_column_terminal(tmp_path, monkeypatch):
    fixed = Console(width=100, force_terminal=True, record=True, highlight=False)
    monkeypatch.setattr(_run, "console", lambda: fixed)
    _run._print_summary(_summary(tmp_path))
    lines = fixed.export_text().splitlines()
    assert lines
    assert max(len(line) for line in lines) <= 100
    header = next(line for line in lines if "configuration" in line or "configurat" in line)
    assert "configuration" in header  # the header word is never broken


def test_columns_env_sets_the_width_even_when_piped(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert _common.console().width == 100


def test_piped_console_is_wide(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    assert _common.console().width == _common.PIPE_WIDTH


def test_agents_prints_whole_install_commands_when_piped(cli, monkeypatch):
    """The install commands people copy are printed whole (they were cut at 80 columns)."""
    import localagentbench.agents as agents_pkg
    from localagentbench.agents import AgentStatus

    statuses = [
        AgentStatus("mock", True, None, None, None, "built in; no model"),
        AgentStatus(
            "claude-code", False, None, "anthropic", "npm i -g @anthropic-ai/claude-code@2.1.197"
        ),
        AgentStatus(
            "openhands",
            False,
            None,
            "openai-chat",
            "uv tool install --python 3.12 openhands==1.16.0 (needs Python 3.12)",
        ),
    ]
    monkeypatch.setattr(agents_pkg, "agent_statuses", lambda: statuses)
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = cli("agents")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert len(rows) == len(statuses)
    for s in statuses[1:]:
        assert any(str(s.install) in row for row in rows), s.install
