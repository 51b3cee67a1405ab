"""fail_to_pass / pass_to_pass: run on the pristine tree (held-out injected) and after the agent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from labtest import script
from localagentbench.runner import RunOptions, configuration_from_cli, execute

OTHER = "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
HELDOUT = "tests/test_heldout_calc.py::test_add_negative"


def _calc(make_task, **fields):
    return make_task(
        files={
            "calc.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
            "tests/test_other.py": OTHER,
        },
        fail_to_pass=[HELDOUT, *fields.pop("extra_f2p", [])],
        pass_to_pass=["tests/test_other.py::test_sub", *fields.pop("extra_p2p", [])],
        **fields,
    )


def _checks(verdict):
    return {c.kind: c for c in verdict.checks}


def test_fix_passes_both_lists(make_task, graded):
    verdict = graded(_calc(make_task), lambda w: (w / "calc.py").write_text(FIXED))
    checks = _checks(verdict)
    assert checks["fail-to-pass"].passed, checks["fail-to-pass"].reason
    assert checks["pass-to-pass"].passed, checks["pass-to-pass"].reason
    assert checks["pass-to-pass"].reason == "all 1 still pass"
    assert verdict.success is True


def test_unfixed_fails_fail_to_pass_naming_the_test(make_task, graded):
    verdict = graded(_calc(make_task))
    f2p = _checks(verdict)["fail-to-pass"]
    assert f2p.status == "failed"
    assert HELDOUT in f2p.reason
    assert f2p.details["failing"] == [HELDOUT]
    assert verdict.success is False


def test_pass_to_pass_is_a_hard_floor(make_task, graded):
    """Fixing the bug while breaking a test that passed before is never solved."""
    broken = FIXED.replace("return a - b", "return b - a")
    verdict = graded(_calc(make_task), lambda w: (w / "calc.py").write_text(broken))
    checks = _checks(verdict)
    assert checks["fail-to-pass"].passed
    assert checks["pass-to-pass"].status == "failed"
    assert "tests/test_other.py::test_sub" in checks["pass-to-pass"].reason
    assert verdict.success is False


def test_task_problems_are_named_not_held_against_the_agent(make_task, graded):
    """A fail-to-pass test already passing, or a pass-to-pass test failing, on the pristine tree."""
    task = _calc(
        make_task,
        extra_f2p=["tests/test_other.py::test_sub"],
        extra_p2p=["tests/test_calc.py::test_add_small"],
    )
    verdict = graded(task, lambda w: (w / "calc.py").write_text(FIXED))
    checks = _checks(verdict)
    assert checks["fail-to-pass"].passed
    assert (
        "already pass on the pristine tree: tests/test_other.py::test_sub"
        in checks["fail-to-pass"].reason
    )
    assert checks["pass-to-pass"].passed
    assert "not passing on the pristine tree" in checks["pass-to-pass"].reason
    assert checks["pass-to-pass"].details["stale"] == ["tests/test_calc.py::test_add_small"]


def test_a_missing_test_id_is_not_a_pass(make_task, graded):
    """Threat: the agent deletes the file holding a pass-to-pass test."""
    task = _calc(make_task)
    verdict = graded(
        task,
        lambda w: ((w / "calc.py").write_text(FIXED), (w / "tests" / "test_other.py").unlink()),
    )
    assert _checks(verdict)["pass-to-pass"].status == "failed"
    assert verdict.success is False


def test_without_the_pristine_tree_it_is_an_error_not_a_pass(make_task, graded):
    verdict = graded(
        _calc(make_task), lambda w: (w / "calc.py").write_text(FIXED), with_pristine=False
    )
    assert {c.status for c in verdict.checks} == {"error"}
    assert verdict.success is False


@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed (apt-get install -y golang-go)"
)
def test_go_ids_run_separately_so_a_panic_does_not_hide_pass_to_pass(tmp_path, graded):
    root = tmp_path / "suite" / "go-one"
    files = {
        "repo/go.mod": "module ex\n\ngo 1.18\n",
        "repo/ex.go": (
            "package ex\n\nfunc At(xs []int, i int) int { return xs[i+1] }\n\n"
            "func One() int { return 1 }\n"
        ),
        "repo/one_test.go": (
            'package ex\n\nimport "testing"\n\n'
            "func TestOne(t *testing.T) { if One() != 1 { t.Fatal() } }\n"
        ),
        "heldout/at_test.go": (
            'package ex\n\nimport "testing"\n\n'
            "func TestAt(t *testing.T) { if At([]int{7}, 0) != 7 { t.Fatal() } }\n"
        ),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    cmd = ["env", "GOTOOLCHAIN=local", "GOPROXY=off", "go", "test", "-count=1", "./..."]
    (root / "task.yaml").write_text(
        yaml.safe_dump(
            {
                "id": "go-one",
                "title": "t",
                "prompt": "p",
                "difficulty": "easy",
                "category": "bugfix",
                "language": "go",
                "repo": {"type": "fixture", "path": "repo"},
                "oracle": {"command": cmd},
                "heldout": {"path": "heldout", "command": cmd},
                "fail_to_pass": ["TestAt"],
                "pass_to_pass": ["TestOne"],
            }
        )
    )
    unfixed = _checks(graded(root))
    assert unfixed["fail-to-pass"].status == "failed"
    assert unfixed["pass-to-pass"].reason == "all 1 still pass"
    fixed = graded(
        root, lambda w: (w / "ex.go").write_text(files["repo/ex.go"].replace("i+1", "i"))
    )
    assert fixed.success is True


def test_the_runner_gives_grading_the_pristine_tree(make_task, tmp_path: Path):
    """End to end: a real run grades fail-to-pass on the pristine tree and after the agent."""
    _calc(make_task)
    agent = script(tmp_path / "fix.sh", f"cat > calc.py <<'PY'\n{FIXED}PY\necho Done\n")
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "r")
    )
    [record] = result.run_dir.records()
    kinds = {c.kind: c.status for c in record.checks}
    assert kinds == {"fail-to-pass": "passed", "pass-to-pass": "passed"}
    assert record.success is True
    logs = {p.name for p in (result.run_dir.trial(record.trial_id) / "grading").iterdir()}
    assert {"f2p-pristine.log", "f2p-agent.log", "p2p-pristine.log", "p2p-agent.log"} <= logs
