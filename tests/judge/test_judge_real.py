"""A real judge: SmolLM2-135M through llama.cpp scores real stored patches.

Asserts the plumbing, not the model's taste: every request reaches the real model, each
reply is parsed into a 1..5 score (the JSON schema sent with each request keeps llama.cpp
to the verdict's shape) or recorded as a judge error after one retry, the model's sha256 is
in every verdict, and a rejudge makes a second stamp with the earlier verdicts kept. CI
sets LAB_REQUIRE_REAL_MODEL=1 so that a missing runtime or a failed fetch fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.gateway.llamacpp import SHIPPED
from localagentbench.judge import (
    JudgeOptions,
    judge_runs,
    load_verdicts,
    read_exchanges,
    stamps,
)

from .conftest import RunFactory

pytestmark = pytest.mark.slow

MODEL = "llamacpp/smollm2-135m"


def test_a_real_model_judges_stored_patches_and_rejudges(
    smollm2: Path, stored_run: RunFactory
) -> None:
    run = stored_run(no_patch=("calc-add--beta-aider-llama--r1",))
    [first] = judge_runs([run], JudgeOptions(model=MODEL))
    [again] = judge_runs([run], JudgeOptions(model=MODEL, rejudge_of=first.session.stamp))
    assert stamps(run) == [first.session.stamp, again.session.stamp]
    for stamp in stamps(run):
        verdicts = load_verdicts(run, stamp)
        judged = verdicts["calc-add--alpha-opencode-qwen--r1"]
        assert verdicts["calc-add--beta-aider-llama--r1"].status == "no_patch"
        assert judged.status in {"scored", "judge_error"}
        if judged.status == "scored":
            assert judged.score in {1, 2, 3, 4, 5}
        else:
            assert judged.attempts == 2
            assert len(judged.parse_errors) == 2
        exchanges = read_exchanges(run, judged.trial_id, stamp)
        assert len(exchanges) == judged.attempts
        assert all(e.response["text"] for e in exchanges)  # real generations came back
        assert exchanges[0].response["usage"]["output_tokens"] > 0
        info = judged.judge.model_info or {}
        assert info["sha256"] == SHIPPED["smollm2-135m"].sha256
        assert judged.judge.backend == f"llamacpp:{smollm2}"
    # temperature 0 on the same model and prompt: the rejudge gives the same verdict
    old = load_verdicts(run, first.session.stamp)["calc-add--alpha-opencode-qwen--r1"]
    new = load_verdicts(run, again.session.stamp)["calc-add--alpha-opencode-qwen--r1"]
    assert (new.status, new.score) == (old.status, old.score)
