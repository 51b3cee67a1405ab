"""Real agent CLIs end to end against the scripted model through the gateway: each must
fix hello.py with no model and no GPU, its side requests must not consume steps.

Marked slow; skipped when the CLI is not on PATH. Install them with
`npm install -g @anthropic-ai/claude-code @openai/codex opencode-ai @google/gemini-cli
@qwen-code/qwen-code`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from localagentbench.gateway import Gateway, TrialRoute

PROMPT = "Fix hello.py so that it prints Hello, world!"
FIXED = "print('Hello, world!')\n"

Setup = Callable[[TrialRoute, Path, Path], tuple[list[str], dict[str, str]]]


def claude(route: TrialRoute, workspace: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    env = {
        "ANTHROPIC_BASE_URL": route.anthropic_base_url,
        "ANTHROPIC_API_KEY": "sk-unused",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",
    }
    argv = [
        "claude",
        "-p",
        PROMPT,
        "--dangerously-skip-permissions",
        "--model",
        "claude-sonnet-4-5",
    ]
    return argv, env


def codex(route: TrialRoute, workspace: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    codex_home = home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5-codex"\nmodel_provider = "lab"\n[model_providers.lab]\nname = "lab"\n'
        f'base_url = "{route.responses_base_url}"\n'
        'env_key = "OPENAI_API_KEY"\nwire_api = "responses"\n'
    )
    env = {"OPENAI_API_KEY": "sk-unused", "CODEX_HOME": str(codex_home)}
    argv = [
        "codex",
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        PROMPT,
    ]
    return argv, env


def opencode(route: TrialRoute, workspace: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "lab",
        "options": {"baseURL": route.openai_base_url, "apiKey": "unused"},
        "models": {"scripted": {"name": "scripted", "tool_call": True}},
    }
    config = {
        "provider": {"lab": provider},
        "model": "lab/scripted",
        "autoupdate": False,
        "share": "disabled",
    }
    (workspace / "opencode.json").write_text(json.dumps(config))
    return ["opencode", "run", "--model", "lab/scripted", PROMPT], {
        "OPENCODE_DISABLE_AUTOUPDATE": "1"
    }


def gemini(route: TrialRoute, workspace: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True},
        "privacy": {"usageStatisticsEnabled": False},
    }
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"GEMINI_API_KEY": "unused", "GOOGLE_GEMINI_BASE_URL": route.gemini_base_url}
    return ["gemini", "-p", PROMPT, "--yolo", "-m", "gemini-2.5-pro"], env


def qwen(route: TrialRoute, workspace: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    settings = {
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
        "general": {"disableAutoUpdate": True},
        "privacy": {"usageStatisticsEnabled": False},
    }
    (home / ".qwen").mkdir()
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    env = {
        "OPENAI_API_KEY": "unused",
        "OPENAI_BASE_URL": route.openai_base_url,
        "OPENAI_MODEL": "scripted",
    }
    return ["qwen", "-p", PROMPT, "--yolo", "-m", "scripted"], env


AGENTS: dict[str, tuple[Setup, str]] = {
    "qwen": (qwen, "openai-chat"),
    "gemini": (gemini, "gemini"),
    "claude-code": (claude, "anthropic"),
    "codex": (codex, "openai-responses"),
    "opencode": (opencode, "openai-chat"),
}


UPSTREAM_ENV = {
    "openai": ("LAB_OPENAI_BASE_URL", "openai_base_url"),
    "ollama": ("LAB_OLLAMA_HOST", "ollama_host"),
    "anthropic": ("LAB_ANTHROPIC_BASE_URL", "anthropic_base_url"),
}

CASES = [
    (agent, backend)
    for agent in sorted(AGENTS)
    for backend in ("scripted", "openai", "ollama", "anthropic")
    if agent != "gemini" or backend in {"scripted", "openai"}  # Gemini CLI takes ~40 s a run
]


def _reap_orphans() -> None:
    """Collect the zombies a real agent CLI left us: its background `git` processes outlive
    it and, the harness being the subreaper, are re-parented to this process (started here
    with subprocess, in our own session, so the harness leaves them to their starter)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_bytes().rpartition(b") ")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[0] == b"Z" and int(fields[1]) == me:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(int(entry), os.WNOHANG)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "backend"), CASES)
def test_real_agent_fixes_hello_with_the_scripted_model(
    name: str, backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Directly on the scripted backend, or with the scripted model behind a second
    gateway reached through the `openai/`, `ollama/` or `anthropic/` backend."""
    setup, front = AGENTS[name]
    argv0 = {"claude-code": "claude"}.get(name, name)
    if shutil.which(argv0) is None:
        pytest.skip(f"{argv0} not on PATH")
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    (workspace / "hello.py").write_text("print('Helo wrld')\n")
    model = "scripted/fix-greeting"
    with Gateway() as upstream, Gateway() as gateway:
        if backend != "scripted":
            up = upstream.open_trial(
                "up", model=model, workspace=workspace, log_path=tmp_path / "up.jsonl"
            )
            variable, field = UPSTREAM_ENV[backend]
            monkeypatch.setenv(variable, getattr(up, field))
            model = f"{backend}/upstream"
        route = gateway.open_trial(
            "real", model=model, workspace=workspace, log_path=tmp_path / "gateway.jsonl"
        )
        argv, extra = setup(route, workspace, home)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "TERM": "dumb", **extra}
        done = subprocess.run(
            argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=240, check=False
        )
        _reap_orphans()
        stats = gateway.close_trial("real")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (workspace / "hello.py").read_text() == FIXED
    assert "Done: the greeting is fixed." in done.stdout
    entries = [json.loads(line) for line in (tmp_path / "gateway.jsonl").read_text().splitlines()]
    main = [e for e in entries if e["side"] is None]
    assert [e["response"]["text"] for e in main] == [
        "I will read the file first.",
        "Now I fix the greeting.",
        "Done: the greeting is fixed.",
    ]
    assert {e["front"] for e in entries} == {front}
    assert stats.requests == len(entries)
    assert stats.errors == 0
    assert stats.token_source == "gateway-backend"
    assert (stats.input_tokens, stats.output_tokens) == (100 * stats.requests, 20 * stats.requests)


@pytest.mark.slow
def test_real_agent_session_recorded_then_replayed(tmp_path: Path) -> None:
    """A cassette recorded from a real Claude Code session replays in a new workspace."""
    if shutil.which("claude") is None:
        pytest.skip("claude not on PATH")
    cassette = tmp_path / "claude.yaml"
    for run, model in enumerate(["scripted/fix-greeting", f"replay/{cassette}"]):
        workspace, home = tmp_path / f"ws{run}", tmp_path / f"home{run}"
        workspace.mkdir()
        home.mkdir()
        (workspace / "hello.py").write_text("print('Helo wrld')\n")
        with Gateway() as gateway:
            route = gateway.open_trial(
                "real",
                model=model,
                workspace=workspace,
                log_path=tmp_path / f"gateway{run}.jsonl",
                cassette_path=cassette if run == 0 else None,
            )
            argv, extra = claude(route, workspace, home)
            env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), **extra}
            done = subprocess.run(
                argv,
                cwd=workspace,
                env=env,
                capture_output=True,
                text=True,
                timeout=240,
                check=False,
            )
            _reap_orphans()
            stats = gateway.close_trial("real")
        assert done.returncode == 0, done.stderr[-2000:]
        assert (workspace / "hello.py").read_text() == FIXED
        assert stats.errors == 0
    assert "{workspace}/hello.py" in cassette.read_text()
