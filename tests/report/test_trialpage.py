"""A trial page's parts read from the trial folder: capped, escaped, symlinks never followed."""

from __future__ import annotations

import json

from localagentbench.records import RunDir
from localagentbench.report._site import template_env
from localagentbench.report._trialpage import GATEWAY_ROWS, TEXT_CAP, trial_page


def _record(hostile_run):
    return RunDir(hostile_run).records()[0]


def test_gateway_requests_and_trajectory_steps_are_shown(hostile_run, tmp_path):
    folder = tmp_path / "trial"
    folder.mkdir()
    lines = [
        {
            "seq": 1,
            "at": "t",
            "front": "openai",
            "path": "/v1/chat/completions",
            "status": 200,
            "latency_s": 1.25,
            "ttft_s": 0.5,
            "usage": {"input": 900, "output": 80, "source": "backend"},
            "error": None,
            "request": {"messages": []},
        },
        {
            "seq": 2,
            "front": "openai",
            "path": "/v1/<b>",
            "status": 429,
            "error": "<i>slow down</i>",
        },
    ]
    (folder / "gateway.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    (folder / "trajectory.json").write_text(
        json.dumps({"steps": [{"role": "assistant", "content": "<script>x</script>"}, "ls -la"]})
    )
    page = trial_page(_record(hostile_run), folder, prompt="Fix <it>")
    assert [g.seq for g in page.gateway] == [1, 2]
    assert page.gateway[0].latency_s == 1.25
    assert page.gateway[0].input_tokens == 900
    assert [s.text for s in page.steps] == ["<script>x</script>", "ls -la"]
    html = (
        template_env()
        .get_template("trial.html")
        .render(root="../../", run=None, page=page, r=page.record)
    )
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert "&lt;i&gt;slow down&lt;/i&gt;" in html
    assert "/v1/&lt;b&gt;" in html
    assert "<i>" not in html
    assert "Fix &lt;it&gt;" in html


def test_a_planted_symlink_is_not_followed(hostile_run, tmp_path):
    """An agent that swaps agent.stdout for a link to a host file must not publish that file."""
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    folder = tmp_path / "trial"
    folder.mkdir()
    (folder / "agent.stdout").symlink_to(secret)
    (folder / "patch.diff").symlink_to(secret)
    page = trial_page(_record(hostile_run), folder, prompt=None)
    assert page.stdout.text == ""
    assert page.patch.text == ""


def test_huge_files_are_capped_and_say_so(hostile_run, tmp_path):
    folder = tmp_path / "trial"
    folder.mkdir()
    (folder / "agent.stderr").write_bytes(b"\xff" * (TEXT_CAP * 3))
    (folder / "gateway.jsonl").write_text(
        "".join(json.dumps({"seq": i, "status": 200}) + "\n" for i in range(GATEWAY_ROWS + 7))
    )
    page = trial_page(_record(hostile_run), folder, prompt=None)
    assert page.stderr.truncated
    assert page.stderr.size == TEXT_CAP * 3
    assert len(page.gateway) == GATEWAY_ROWS
    assert page.gateway_omitted == 7


def test_a_judge_verdict_in_the_record_is_shown_escaped(hostile_run, tmp_path):
    record = _record(hostile_run).model_copy()
    data = record.model_dump()
    data["judge"] = {"quality": 4, "model": "judge-x", "reason": "<script>bad</script>"}
    record = type(record).model_validate(data)
    page = trial_page(record, None, prompt=None)
    html = (
        template_env()
        .get_template("trial.html")
        .render(root="../../", run=None, page=page, r=record, cap=TEXT_CAP)
    )
    assert "<h3>Judge</h3>" in html
    assert "judge-x" in html
    assert "<script>" not in html


def _render(page):
    env = template_env()
    return env.get_template("trial.html").render(root="../../", run=None, page=page, r=page.record)


def test_a_trial_that_changed_nothing_says_no_change_made(hostile_run, tmp_path):
    folder = tmp_path / "trial"
    folder.mkdir()
    (folder / "patch.diff").write_text("diff --git a/tests/test_pad.py b/tests/test_pad.py\n")
    record = _record(hostile_run).model_copy(update={"no_change": True, "patch_bytes": 50})
    html = _render(trial_page(record, folder, prompt=None))
    assert 'id="no-change"' in html
    assert "the patch only adds tests" in html
    changed = _render(trial_page(record.model_copy(update={"no_change": False}), folder, None))
    assert 'id="no-change"' not in changed
    # A record from before the field: an empty patch is "no change made".
    old = record.model_copy(update={"no_change": None, "patch_bytes": 0})
    assert trial_page(old, tmp_path / "none", None).no_change is True


def test_tool_calls_and_their_classes_are_listed_and_unobservable_use_says_so(
    hostile_run, tmp_path
):
    from localagentbench.records._parts import GatewayStats

    base = _record(hostile_run)
    gateway = GatewayStats(
        trial_id=base.trial_id,
        model="scripted/x",
        requests=2,
        tool_requests=2,
        tools_declared=["bash", "webfetch"],
        tool_calls={"webfetch": 2, "<odd>": 1},
    )
    record = base.model_copy(update={"agent": "opencode", "gateway": gateway})
    html = _render(trial_page(record, tmp_path / "none", None))
    section = html[html.index('id="tool-use"') : html.index('id="gateway"')]
    assert "<code>webfetch</code></td><td>fetch-url</td><td>yes</td><td>2</td>" in section
    assert "<code>&lt;odd&gt;</code></td><td>other (unknown name)</td><td>no</td><td>1" in section
    assert "3 tool call(s), 2 to web search or fetch tools" in section
    blind = _render(trial_page(base, tmp_path / "none", None))
    assert "Tool use not observable" in blind


FLAGS = [
    {
        "rule": "runner-shadow",
        "severity": "tamper",
        "path": "pytest/__init__.py",
        "detail": "a module named <pytest> shadows it",
    },
    {"rule": "test-changed", "severity": "notice", "path": "tests/test_a.py", "detail": "edited"},
]


def test_suspicious_flags_are_listed_on_the_trial_page(hostile_run):
    record = _record(hostile_run)
    record = type(record).model_validate({**record.model_dump(), "suspicious": FLAGS})
    html = _render(trial_page(record, None, prompt=None))
    assert '<a href="#suspicious">1 tamper, 1 notice flag(s)</a>' in html
    assert '<h3 id="suspicious">Suspicious patch</h3>' in html
    assert "<code>pytest/__init__.py</code>" in html
    assert "runner-shadow" in html
    assert "a module named &lt;pytest&gt; shadows it" in html
    clean = _render(trial_page(_record(hostile_run), None, prompt=None))
    assert 'id="suspicious"' not in clean


def test_report_md_counts_suspicious_trials_per_configuration(hostile_run):
    from localagentbench.report import markdown_report
    from localagentbench.results import summarise

    run = RunDir(hostile_run)
    records = run.records()
    flagged = [
        type(r).model_validate({**r.model_dump(), "suspicious": FLAGS[:1]})
        if r.config_id == "hostile"
        else r
        for r in records
    ]
    text = markdown_report(run.read_info(), summarise("r", flagged, "now"), flagged)
    assert "## Suspicious patches" in text
    hostile = sum(r.config_id == "hostile" for r in records)
    assert f"- hostile: {hostile} trial(s) with tamper flags, 0 with notices only" in text
    assert "- reference:" not in text.split("## Suspicious patches")[1].split("##")[0]
    plain = markdown_report(run.read_info(), summarise("r", records, "now"), records)
    assert "Suspicious patches" not in plain


def test_the_site_index_counts_suspicious_trials_only_when_flagged(hostile_run):
    from localagentbench.report._load import load_run
    from localagentbench.report._site import render_index

    run = load_run(hostile_run)
    assert 'id="suspicious"' not in render_index(template_env(), [run], "t")
    hostile = next(e for e in run.entries if e.config_id == "hostile")
    hostile.suspicious_trials, hostile.suspicious_notices = 2, 1
    html = render_index(template_env(), [run], "t")
    assert '<a href="#suspicious">Suspicious patches</a>' in html
    assert "<li>hostile: 2 trial(s) with tamper flags, 1 with notices only</li>" in html
