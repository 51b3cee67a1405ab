"""Pure pieces: side-request rules, script loading, percentiles, rate-limit parsing."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

import localagentbench.gateway as package
from localagentbench.gateway import ScriptError, load_script, shipped_scripts
from localagentbench.gateway._canonical import ChatRequest, Message, ToolSpec
from localagentbench.gateway._side import side_reason
from localagentbench.gateway._stats import percentile
from localagentbench.gateway.backends._ollama import normalise_host
from localagentbench.gateway.backends._scripted import sample_json, side_json
from localagentbench.gateway.backends._upstream import is_rate_limited, retry_after_s

BASH = ToolSpec("bash", "", {"type": "object", "properties": {"command": {}}})


def request(system: str = "", user: str = "go", tools: bool = False, **kw: object) -> ChatRequest:
    messages = ([Message("system", system)] if system else []) + [Message("user", user)]
    return ChatRequest(model="m", messages=messages, tools=[BASH] if tools else [], **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("req", "seen_tools", "rule"),
    [
        (
            request("You are a title generator. You output ONLY a thread title."),
            False,
            "side-task system prompt",
        ),
        (
            request("Generate a concise commit message for these changes."),
            False,
            "side-task system prompt",
        ),
        (
            request("Analyze if this message indicates a new conversation topic."),
            False,
            "side-task system prompt",
        ),
        (request(user="quota", max_tokens=1), True, "probe (tiny max_tokens)"),
        (request("You are a coding agent."), True, "no tools from an agent that sends tools"),
        (
            request("Decide who speaks next.", json_mode=True),
            False,
            "structured JSON answer without tools",
        ),
    ],
    ids=[
        "opencode-title",
        "aider-commit",
        "claude-topic",
        "quota-probe",
        "toolless-after-tools",
        "json",
    ],
)
def test_side_requests_are_recognised(req: ChatRequest, seen_tools: bool, rule: str) -> None:
    assert side_reason(req, seen_tools=seen_tools) == rule


@pytest.mark.parametrize(
    ("req", "seen_tools"),
    [
        (request("You are a coding agent. Fix the page title.", tools=True), True),
        (
            request("Act as an expert software developer.", user="write a commit message helper"),
            False,
        ),
        (request("You are a coding agent.", tools=True, max_tokens=4096), True),
    ],
    ids=["tools-mention-title", "aider-first-turn", "normal-turn"],
)
def test_main_loop_requests_are_not_side(req: ChatRequest, seen_tools: bool) -> None:
    assert side_reason(req, seen_tools=seen_tools) is None


def test_shipped_scripts_load_and_unknown_names_list_them() -> None:
    shipped = {"fix-greeting", "probe-native", "probe-pseudo", "probe-none", "rate-limited", "slow"}
    assert shipped <= set(shipped_scripts())
    for name in shipped_scripts():
        assert load_script(name).name == name
    assert load_script("fix-greeting").usage is not None
    with pytest.raises(ScriptError, match="fix-greeting"):
        load_script("no-such-script")


def test_script_errors_name_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nsteps:\n  - tool_calls: [{args: {}}]\n")
    with pytest.raises(ScriptError, match=r"bad\.yaml: steps\.0\.tool_calls\.0\.name"):
        load_script(str(bad))
    empty = tmp_path / "empty.yaml"
    empty.write_text("name: x\nsteps: []\n")
    with pytest.raises(ScriptError, match="steps"):
        load_script(str(empty))
    with pytest.raises(ScriptError, match="cannot read"):
        load_script(str(tmp_path / "missing.yaml"))


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0], 90) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], 90) == pytest.approx(9.1)


def test_retry_after_forms() -> None:
    assert retry_after_s({"retry-after": "12"}) == 12.0
    assert retry_after_s({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_s({"x-ratelimit-reset-requests": "6m0s"}) == 360.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (retry_after_s({"retry-after": later}) or 0) <= 31
    assert retry_after_s({}) is None
    assert retry_after_s({"retry-after": "soon"}) is None


def test_rate_limit_classification() -> None:
    assert is_rate_limited(429, "")
    assert is_rate_limited(529, "overloaded")
    assert is_rate_limited(403, '{"error": {"code": "insufficient_quota"}}')
    assert not is_rate_limited(403, "forbidden")
    assert not is_rate_limited(500, "quota")


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("0.0.0.0:9999", "http://127.0.0.1:9999"),
        ("https://ollama.example:443/", "https://ollama.example:443"),
        ("http://host:1/t/x", "http://host:1/t/x"),
    ],
)
def test_ollama_host_forms(raw: str, url: str) -> None:
    assert normalise_host(raw) == url


def test_side_json_replies_satisfy_the_schema() -> None:
    title = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    assert json.loads(side_json(title, "Scripted session")) == {"title": "Scripted session"}
    speaker = {
        "type": "OBJECT",
        "properties": {
            "reasoning": {"type": "string"},
            "next_speaker": {"type": "string", "enum": ["user", "model"]},
            "count": {"type": ["integer", "null"]},
        },
    }
    assert sample_json(speaker, "x") == {"reasoning": "x", "next_speaker": "user", "count": 0}
    assert json.loads(side_json(None, "x"))["next_speaker"] == "user"


def test_every_pydantic_field_has_a_docstring() -> None:
    """STYLE: typed records document every field where it is declared."""
    missing = []
    for path in Path(package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            if not any(getattr(base, "id", "") == "BaseModel" for base in node.bases):
                continue
            for position, statement in enumerate(node.body):
                if isinstance(statement, ast.AnnAssign):
                    following = node.body[position + 1] if position + 1 < len(node.body) else None
                    documented = isinstance(following, ast.Expr) and isinstance(
                        getattr(following, "value", None), ast.Constant
                    )
                    if not documented:
                        missing.append(f"{path.name}:{node.name}.{ast.unparse(statement.target)}")
    assert missing == []


def test_anthropic_cache_reads_and_writes_count_as_prompt_tokens() -> None:
    from localagentbench.gateway.backends._anthropic import _prompt_tokens

    usage = {"input_tokens": 10, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 5}
    assert _prompt_tokens(usage, 0, 0) == (315, 300)
    # a later usage without prompt fields keeps what message_start reported
    assert _prompt_tokens({"output_tokens": 7}, 315, 300) == (315, 300)
