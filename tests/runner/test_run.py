"""End-to-end runs through the public runner and CLI (issue 2 acceptance 3-7)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from labtest import needs_bundled_toolchains, processes_with, script
from localagentbench.records import RunDir
from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.tasks import bundled_suite, load_tasks


def _run(tasks: Path, agent: str = "mock", out: Path | None = None, **kw: object):
    config = configuration_from_cli(
        agent,
        None,
        mock_behavior=kw.pop("behavior", None),  # type: ignore[arg-type]
        agent_cmd=kw.pop("cmd", None),  # type: ignore[arg-type]
    )
    options = RunOptions(tasks_dir=tasks, configurations=[config], out=out, **kw)  # type: ignore[arg-type]
    return execute(options)


@needs_bundled_toolchains
@pytest.mark.slow
def test_mock_solve_succeeds_on_every_bundled_task(tmp_path):
    result = _run(bundled_suite(), behavior="solve", out=tmp_path / "run", concurrency=2)
    records = result.run_dir.records()
    assert len(records) == len(load_tasks(bundled_suite()))
    failed = [
        (r.trial_id, r.visible.reason, r.heldout and r.heldout.reason)
        for r in records
        if not r.success
    ]
    assert failed == []
    assert all(r.status == "completed" and not r.false_success for r in records)


@pytest.mark.slow
def test_mock_noop_succeeds_on_no_bundled_task(tmp_path):
    result = _run(bundled_suite(), behavior="noop", out=tmp_path / "run", concurrency=2)
    records = result.run_dir.records()
    assert records
    assert not any(r.success for r in records)
    assert all(r.claimed_done and r.false_success for r in records)
    assert result.summary.configurations["mock-noop"].success_rate == 0


def test_overfit_command_agent_is_recorded(make_task, tmp_path):
    """Passes the visible test by special-casing it, fails the held-out one."""
    make_task()
    agent = script(
        tmp_path / "cheat.sh",
        """\
        printf 'def add(a, b):\\n    if (a, b) == (2, 2):\\n' > calc.py
        printf '        return 4\\n    return a - b\\n' >> calc.py
        echo "All tests pass, done."
    """,
    )
    result = _run(tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent))
    [record] = result.run_dir.records()
    assert record.visible.passed is True
    assert record.heldout is not None
    assert record.heldout.passed is False
    assert record.overfit is True
    assert record.success is False
    assert record.claimed_done is True
    assert record.false_success is True
    assert record.final_answer == "All tests pass, done."


def test_command_agent_environment_contract(make_task, tmp_path, monkeypatch):
    make_task()
    monkeypatch.setenv("SECRET_FROM_HARNESS", "leak")
    agent = script(
        tmp_path / "env.sh",
        """\
        env | sort > "$HOME/seen-env"
        test "$(pwd)" = "$LAB_WORKSPACE" || exit 3
        test "$(cat "$LAB_PROMPT_FILE")" = "$LAB_PROMPT" || exit 4
        echo "final answer from file" > "$LAB_ANSWER_FILE"
        echo "not the answer"
    """,
    )
    result = _run(
        tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent), keep_workdir=True
    )
    [record] = result.run_dir.records()
    assert record.agent_exit_code == 0
    assert record.final_answer == "final answer from file"
    seen = dict(
        line.split("=", 1)
        for line in (Path(record.workdir) / "home" / "seen-env").read_text().splitlines()
    )
    assert "SECRET_FROM_HARNESS" not in seen
    contract = {
        "LAB_PROMPT",
        "LAB_PROMPT_FILE",
        "LAB_WORKSPACE",
        "LAB_MODEL",
        "LAB_BASE_URL",
        "LAB_TRIAL_ID",
        "LAB_ANSWER_FILE",
        "HOME",
        "PATH",
        "LANG",
    }
    shell = {"PWD", "SHLVL", "_", "OLDPWD"}  # set by sh itself
    assert contract <= set(seen)
    # Under landlock (no bwrap) /tmp is the host's, so the jail points TMPDIR into the trial.
    assert set(seen) - contract - shell <= {"LAB_PROC_TAG", "TMPDIR"}, set(seen)
    if "TMPDIR" in seen:
        assert Path(seen["TMPDIR"]).is_relative_to(record.workdir)
    assert seen["LAB_TRIAL_ID"] == "calc-add--command--r1"


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_timeout_kills_agent_and_everything_it_started(make_task, tmp_path, sandbox):
    """An agent that starts a double-forked, setsid'd child and sleeps past timeout_s.

    With no sandbox the subprocess helper's sweep must find the escaped child; with
    bwrap the jail's PID namespace takes it down. Either way nothing is left.
    """
    if sandbox == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bwrap not installed (apt-get install bubblewrap)")
    make_task(timeout_s=2)
    marker = f"{time.time_ns() % 10**9}.4242"
    agent = script(
        tmp_path / "hang.sh",
        f"""\
        python -c 'import os,time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{marker}"])
    os._exit(0)'
        sleep 1000
    """,
    )
    start = time.monotonic()
    result = _run(tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent), sandbox=sandbox)
    [record] = result.run_dir.records()
    assert record.status == "timeout"
    assert 2 <= record.wall_s < 2 + 3 + 2
    assert time.monotonic() - start < 60
    assert processes_with(marker) == []


def test_huge_invalid_utf8_output_is_capped_and_record_valid(make_task, tmp_path):
    make_task()
    agent = script(
        tmp_path / "noisy.sh",
        """\
        python -c 'import sys; w=sys.stdout.buffer.write
for _ in range(75): w(b"\\xff\\xfe garbage \\xc3\\x28 " * 50000)'
        printf "\\nlast line \\377 done\\n"
    """,
    )
    result = _run(tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent))
    [record] = result.run_dir.records()
    assert record.stdout_bytes > 50_000_000
    assert record.output_truncated is True
    log = (result.run_dir.trial(record.trial_id) / "agent.stdout").read_text(encoding="utf-8")
    assert "bytes truncated" in log
    assert len(log.encode()) < 3_000_000
    json.loads((result.run_dir.record_path(record.trial_id)).read_text())
    assert record.final_answer == "last line \ufffd done"


def test_master_copy_tampering_is_detected_restored_and_kept(make_task, tmp_path):
    """Threat: an agent walks up to the task's master fixture and edits it (seen in real runs)."""
    task = make_task()
    master = task / "repo" / "calc.py"
    agent = script(
        tmp_path / "tamper.sh",
        f"""\
        cat calc.py
        case "$LAB_TRIAL_ID" in
          *--r1) printf 'def add(a, b):\\n    return a + b\\n' > {master};;
        esac
        echo done
    """,
    )
    options = RunOptions(
        tasks_dir=tmp_path / "suite",
        repeats=2,
        out=tmp_path / "run",
        sandbox="none",
        configurations=[configuration_from_cli("command", None, agent_cmd=str(agent))],
    )
    result = execute(options)
    first, second = sorted(result.run_dir.records(), key=lambda r: r.repeat)
    # Trial 1 tampered with the master; trial 2 started from the recorded pristine tree.
    assert first.restored is False
    assert second.restored is True
    second_saw = (result.run_dir.trial(second.trial_id) / "agent.stdout").read_text()
    assert "a - b" in second_saw
    assert "a + b" not in second_saw
    assert first.success is False
    assert second.success is False
    incidents = [i for i in result.run_dir.incidents() if i.kind == "tree_restored"]
    assert len(incidents) == 1
    assert incidents[0].trial_id == second.trial_id
    forensics = result.run_dir.forensics / second.trial_id / "calc.py"
    assert "a + b" in forensics.read_text()
    assert "a - b" in master.read_text()  # the master itself was restored


def test_sandbox_makes_master_copy_tampering_impossible(make_task, tmp_path):
    """With bwrap the master copy is not even visible: the edit fails, nothing to restore."""
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap not installed (apt-get install bubblewrap)")
    task = make_task()
    master = task / "repo" / "calc.py"
    agent = script(
        tmp_path / "tamper.sh",
        f"""\
        printf 'def add(a, b):\\n    return a + b\\n' > {master} && echo wrote || echo blocked
    """,
    )
    result = _run(
        tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent), repeats=2, sandbox="bwrap"
    )
    records = result.run_dir.records()
    assert [r.final_answer for r in records] == ["blocked", "blocked"]
    assert [r.isolation for r in records] == ["bwrap", "bwrap"]
    assert not any(r.restored for r in records)
    assert "a - b" in master.read_text()


def test_kill_9_then_resume_loses_and_duplicates_nothing(make_task, tmp_path):
    make_task("one")
    make_task("two")
    agent = script(
        tmp_path / "slow-fix.sh",
        """\
        sleep 0.4
        sed -i 's/a - b/a + b/' calc.py
        echo fixed
    """,
    )
    out = tmp_path / "run"
    argv = [
        sys.executable,
        "-m",
        "localagentbench",
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        str(agent),
        "--repeat",
        "3",
        "--out",
        str(out),
    ]
    import subprocess

    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while len(list(out.glob("trials/*/record.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished_before = {p.parent.name: p.read_text() for p in out.glob("trials/*/record.json")}
    assert 2 <= len(finished_before) < 6

    resumed = subprocess.run(
        [*argv[:4], "--resume", str(out)], capture_output=True, text=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    run_dir = RunDir(out)
    records = run_dir.records()
    ids = [r.trial_id for r in records]
    assert len(ids) == len(set(ids)) == 6
    for trial, text in finished_before.items():  # finished trials were kept untouched
        assert run_dir.record_path(trial).read_text() == text
    summary = json.loads(run_dir.summary_json.read_text())
    config = summary["configurations"]["command"]
    assert config["trials"] == 6
    assert config["successes"] == 6
    assert {c["task_id"]: c["trials"] for c in summary["cells"]} == {"one": 3, "two": 3}
    assert any(i.kind == "resumed" for i in run_dir.incidents())


def test_resume_of_a_finished_run_runs_nothing(make_task, tmp_path):
    make_task()
    first = _run(tmp_path / "suite", behavior="solve", out=tmp_path / "run")
    assert first.ran == 1
    from localagentbench.runner import resume_options

    again = execute(resume_options(tmp_path / "run"), resume=True)
    assert again.ran == 0
    assert again.skipped == 1
    assert again.summary.configurations["mock-solve"].successes == 1


def test_mock_break_is_damage(make_task, tmp_path):
    make_task()
    result = _run(tmp_path / "suite", behavior="break", out=tmp_path / "run")
    [record] = result.run_dir.records()
    assert record.damage == ["deleted tracked file: calc.py"]
    assert record.success is False
    assert record.false_success is True


def test_missing_agent_binary_is_a_clear_config_error(make_task, tmp_path, cli):
    make_task()
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        "no-such-agent-binary --x",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 2
    assert "error: configuration 'command': command agent: 'no-such-agent-binary' not found" in err
    assert len(err.strip().splitlines()) == 1


def test_ctrl_c_keeps_finished_trials_and_counts_no_interrupted_one(make_task, tmp_path):
    """SIGINT mid-run: exit 130, finished records kept, the interrupted trial not recorded."""
    import subprocess

    make_task()
    # The first repeat finishes at once; every later one outlasts the signal, so the run
    # cannot end before it is sent.
    agent = script(
        tmp_path / "slow.sh",
        """\
        case "$LAB_TRIAL_ID" in *--r1) ;; *) sleep 60 ;; esac
        echo done
    """,
    )
    out = tmp_path / "run"
    argv = [
        sys.executable,
        "-m",
        "localagentbench",
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        str(agent),
        "--repeat",
        "20",
        "--out",
        str(out),
    ]
    # Ctrl-C's default action in the child, whatever this test inherited: a shell starts a
    # background job with SIGINT ignored, and Python keeps an ignored SIGINT ignored.
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while len(list(out.glob("trials/*/record.json"))) < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the next trial's agent is now running (for a minute)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "--resume" in err
    run_dir = RunDir(out)
    records = run_dir.records()
    assert 1 <= len(records) < 20
    folders = [p for p in run_dir.trials.iterdir()]
    assert len(folders) == len(records)  # no half-finished trial folder left among the trials
    summary = json.loads(run_dir.summary_json.read_text())
    assert summary["trials"] == len(records)
    assert any(i.kind == "interrupted" for i in run_dir.incidents())


def test_infra_error_is_rerun_annotated_and_reported_apart(make_task, tmp_path):
    """An agent that cannot start is the harness's problem: rerun, logged, never a model failure."""
    make_task()
    agent = tmp_path / "bad-interpreter.sh"
    # Executable, so it passes the pre-flight; its interpreter does not exist, so it cannot start.
    agent.write_text("#!/nonexistent/interpreter\necho hi\n")
    agent.chmod(0o755)
    result = _run(tmp_path / "suite", "command", tmp_path / "run", cmd=str(agent), max_reruns=1)
    [record] = result.run_dir.records()
    assert record.status == "infra_error"
    assert "could not start" in (record.error or "")
    reruns = [i for i in result.run_dir.incidents() if i.kind == "rerun"]
    assert len(reruns) == 1
    assert (result.run_dir.path / "reruns" / f"{record.trial_id}-1" / "record.json").is_file()
    config = result.summary.configurations["command"]
    assert config.trials == 0
    assert config.infra_errors == 1


def test_low_disk_stops_before_starting_trials(make_task, tmp_path, cli):
    make_task()
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "mock",
        "--out",
        str(tmp_path / "run"),
        "--min-free-mb",
        str(10**12),
    )
    assert code == 1
    assert "stopped early: only" in err
    assert "--resume" in err
    assert RunDir(tmp_path / "run").records() == []
