"""A real model on the CPU through the gateway (SmolLM2-135M from its registry package).

Asserts the plumbing, not the model's skill: the server starts, real generations are
counted with the backend's own usage, a trial reaches a verdict, the model's digest is in
the run's provenance, and no server process outlives the run. CI sets
LAB_REQUIRE_REAL_MODEL=1 so that a missing runtime or a failed fetch fails instead of
skipping.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labtest import processes_with
from localagentbench.gateway import probe
from localagentbench.gateway.llamacpp import SERVERS, SHIPPED
from localagentbench.runner import RunOptions, configuration_from_cli, execute

pytestmark = pytest.mark.slow

MODEL = "llamacpp/smollm2-135m"


def _no_server_left(model: Path) -> bool:
    return not processes_with(f"--model\0{model}")


def test_probe_starts_the_server_and_answers(smollm2: Path) -> None:
    """The canary runs against a real model; SmolLM2's template ignores tools."""
    result = probe(MODEL)
    assert result.verdict in {"none", "pseudo"}
    assert result.latency_s > 0
    assert result.text  # a real generation came back
    SERVERS.stop_all()
    assert _no_server_left(smollm2)


ASK = """\
import json, os, urllib.request
body = {"model": "m", "max_tokens": 24, "temperature": 0,
        "messages": [{"role": "user", "content": open(os.environ["LAB_PROMPT_FILE"]).read()}]}
request = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions",
                                 json.dumps(body).encode(), {"Content-Type": "application/json"})
reply = json.load(urllib.request.urlopen(request, timeout=600))
print(reply["choices"][0]["message"]["content"].strip().splitlines()[-1:] or "(empty)")
"""


def test_a_trial_with_a_real_model_reaches_a_verdict(
    smollm2: Path, make_task: Callable[..., Path], tmp_path: Path
) -> None:
    """One easy task, a one-request command agent: generations counted, a verdict given,
    the model's sha256 in run.json, the server gone after the run."""
    make_task()
    agent = tmp_path / "ask.py"
    agent.write_text(f"#!{sys.executable}\n{ASK}")
    agent.chmod(0o755)
    config = configuration_from_cli("command", MODEL, agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run")
    )
    [record] = result.run_dir.records()
    assert record.status == "completed", record.error
    assert record.heldout is not None  # the hidden tests ran: a verdict was reached
    assert record.requests >= 1
    assert record.tokens.output > 0
    assert record.tokens.counting == "gateway-backend"
    info = json.loads((result.run_dir.path / "run.json").read_text())
    model_info = info["configurations"][0]["model_info"]
    assert model_info["sha256"] == SHIPPED["smollm2-135m"].sha256
    assert model_info["verified"] is True
    assert model_info["runtime"].startswith("xllamacpp ")
    assert list((result.run_dir.path / "llamacpp").glob("*.log"))
    assert _no_server_left(smollm2)


@pytest.mark.skipif(shutil.which("mini") is None, reason="mini-swe-agent not installed")
def test_mini_swe_agent_drives_a_real_model(
    smollm2: Path, make_task: Callable[..., Path], tmp_path: Path
) -> None:
    """A real agent CLI against a real model, bounded to two turns."""
    make_task()
    config = configuration_from_cli("mini-swe-agent", MODEL, tool_call_repair=True)
    settings = {"step_limit": 2, "max_output_tokens": 96}
    config = config.model_copy(update={"settings": settings})
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run")
    )
    [record] = result.run_dir.records()
    # the model's skill is not under test: a slow machine may time the agent out, and
    # even then the grader must reach a verdict
    assert record.status in {"completed", "agent_error", "timeout"}, record.error
    assert record.heldout is not None  # the hidden tests ran: a verdict was reached
    assert record.requests >= 1
    assert record.tokens.output > 0
    assert _no_server_left(smollm2)
