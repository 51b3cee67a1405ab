"""The tool-use audit on real agent CLIs: a scripted model calls the CLI's own web tool in
one configuration and calls nothing in another; the audit counts the first by class from
the gateway's bodies and shows the second as observed with zero calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench.results import spend_by_config, trial_audit
from localagentbench.runner import Configuration, RunOptions, execute

from ._e2e import require

WEB_STEP: dict[str, Any] = {
    "text": "Let me look this up.",
    "tool_calls": [
        {"name": "google_web_search", "args": {"query": "python add function"}},
        {"name": "web_search", "args": {"query": "python add function"}},
        {"name": "websearch", "args": {"query": "python add function"}},
        {"name": "webfetch", "args": {"url": "https://example.com/", "format": "text"}},
        {"name": "web_fetch", "args": {"url": "https://example.com/", "prompt": "summarise"}},
    ],
}


def _script(tmp_path: Path, name: str, steps: list[dict[str, Any]]) -> str:
    path = tmp_path / f"{name}.yaml"
    usage = {"prompt_tokens": 100, "completion_tokens": 20}
    path.write_text(yaml.safe_dump({"name": name, "usage": usage, "steps": steps}))
    return f"scripted/{path}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("agent", "web_tool", "tool_class"),
    [("gemini", "google_web_search", "search-web"), ("qwen-code", "web_fetch", "fetch-url")],
)
def test_web_tool_call_is_counted_by_class_and_no_call_is_an_observed_zero(
    make_task, tmp_path: Path, agent: str, web_tool: str, tool_class: str
) -> None:
    require(agent)
    make_task()
    web = _script(tmp_path, "web", [WEB_STEP, {"text": "Done."}])
    quiet = _script(tmp_path, "quiet", [{"text": "Nothing to do here."}])
    settings = {"web_tools": True}
    configs = [
        Configuration(id="web", agent=agent, model=web, settings=settings),
        Configuration(id="quiet", agent=agent, model=quiet, settings=settings),
    ]
    result = execute(
        RunOptions(
            tasks_dir=tmp_path / "suite",
            configurations=configs,
            out=tmp_path / "run",
            max_reruns=0,
            concurrency=2,
        )
    )
    records = {r.config_id: r for r in result.run_dir.records()}
    web_record, quiet_record = records["web"], records["quiet"]
    assert web_record.gateway is not None
    assert web_tool in web_record.gateway.tools_declared, web_record.gateway.tools_declared
    audit = trial_audit(web_record)
    assert audit.observable
    assert audit.calls_by_class().get(tool_class, 0) >= 1, audit
    assert [t.name for t in audit.tools if t.calls] == [web_tool]
    unknown = [t.name for t in audit.tools if not t.known]
    assert not unknown, f"{agent} declares tools the class table lacks: {unknown}"

    silent = trial_audit(quiet_record)
    assert silent.observable, silent.reason
    assert silent.calls == 0
    assert silent.tools  # the declared tools are listed, each with zero calls

    spends = spend_by_config(records.values(), None)
    assert spends["web"].web_trials == 1
    assert spends["web"].web_calls >= 1
    assert spends["quiet"].tool_use_text() == "web 0/1 trials, 0 calls"
    assert spends["quiet"].cost_state == "no price"
