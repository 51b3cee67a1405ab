"""The Seatbelt profile, read back: what a generated profile allows and denies, decided here
the way Seatbelt decides (deny by default, the last matching rule wins), on any system.

The profile is parsed as the s-expressions it is; `decide` evaluates file and network
operations against its rules. Running it under sandbox-exec is the macOS job's
(`test_seatbelt_macos.py`)."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import psutil  # noqa: F401  (imported for real before tests pretend to be on macOS)
import pytest

from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import (
    BACKENDS,
    ObservedSandbox,
    SandboxSpec,
    SandboxUnavailableError,
    SeatbeltSandbox,
    _seatbelt,
    available_backends,
    select,
    store_profile,
)
from localagentbench.sandbox._seatbelt import LEVEL, WEAKER_THAN_BWRAP, build_profile, render

pytestmark = [
    pytest.mark.portable,  # runs on macOS too; the profile holds POSIX paths, so not Windows
    pytest.mark.skipif(sys.platform == "win32", reason="Seatbelt profiles hold POSIX paths"),
]

Sexp = str | list["Sexp"]
_TOKEN = re.compile(r'\s*(?:(;[^\n]*)|(\()|(\))|("(?:[^"\\]|\\.)*")|([^\s()";]+))')


def parse(text: str) -> list[Sexp]:
    """The profile's top-level forms; strings come back unquoted (prefixed '"')."""
    stack: list[list[Sexp]] = [[]]
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            if text[position:].strip():
                raise ValueError(f"unparseable at {position}: {text[position : position + 20]!r}")
            break
        position = match.end()
        comment, opening, closing, string, atom = match.groups()
        if comment:
            continue
        if opening:
            stack.append([])
        elif closing:
            done = stack.pop()
            stack[-1].append(done)
        elif string:
            stack[-1].append('"' + re.sub(r"\\(.)", r"\1", string[1:-1]))
        elif atom:
            stack[-1].append(atom)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def _op_matches(rule_op: str, op: str) -> bool:
    return rule_op == op or (rule_op.endswith("*") and op.startswith(rule_op[:-1]))


def _filter_matches(node: Sexp, path: str | None, remote: str | None) -> bool:
    assert isinstance(node, list)
    kind, *args = node
    if kind == "subpath":
        base = args[0][1:]
        return path is not None and (path == base or path.startswith(base.rstrip("/") + "/"))
    if kind == "literal":
        return path is not None and path == args[0][1:]
    if kind == "remote":
        return remote is not None and args[0] == "tcp" and args[1][1:] == remote
    if kind in ("target", "global-name"):
        return False
    raise AssertionError(f"filter the test does not know: {node}")


def decide(rules: list[Sexp], op: str, path: str | None = None, remote: str | None = None):
    """'allow' or 'deny' for one operation, Seatbelt's way: the last matching rule wins."""
    verdict = None
    for rule in rules:
        if not isinstance(rule, list) or rule[0] not in ("allow", "deny"):
            continue
        action, *rest = rule
        ops = [x for x in rest if isinstance(x, str)]
        filters = [x for x in rest if isinstance(x, list)]
        if ops == ["default"]:
            verdict = verdict or action
            continue
        if not any(_op_matches(o, op) for o in ops):
            continue
        if not filters or any(_filter_matches(f, path, remote) for f in filters):
            verdict = action
    assert verdict is not None, "no default rule"
    return verdict


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A harness temp folder with two trials, a task tree, a toolchain holding the package."""
    temp = tmp_path / "T"
    paths = {
        "temp": temp,
        "work": temp / "trial-a" / "work",
        "home": temp / "trial-a" / "home",
        "other": temp / "trial-b" / "work",
        "task": tmp_path / "suite" / "calc-add",
        "toolchain": tmp_path / "py",
        "package": tmp_path / "py" / "site-packages" / "localagentbench",
    }
    for path in paths.values():
        path.mkdir(parents=True, exist_ok=True)
    (paths["package"] / "sandbox").mkdir()
    return paths


def _profile(world: dict[str, Path], **spec_fields: object) -> list[Sexp]:
    spec = SandboxSpec(workspace=world["work"], home=world["home"], **spec_fields)
    profile = build_profile(
        spec,
        toolchains=[world["toolchain"]],
        hidden=[world["package"], world["task"]],
        temp_root=world["temp"],
        launcher_dir=world["package"] / "sandbox",
        system_trees=("/usr", "/bin", "/System"),
    )
    text = render(profile)
    forms = parse(text)
    assert forms[0] == ["version", "1"]
    return forms


def test_the_agent_writes_its_workspace_and_home_only(world: dict[str, Path]):
    rules = _profile(world, network="gateway", gateway_port=40123)
    for tree in ("work", "home"):
        target = str(world[tree] / "src" / "a.py")
        assert decide(rules, "file-read-data", target) == "allow"
        assert decide(rules, "file-write-create", target) == "allow"
    assert decide(rules, "file-write-data", "/usr/bin/python3") == "deny"
    assert decide(rules, "file-write-data", str(world["toolchain"] / "bin" / "x")) == "deny"


def test_toolchains_and_system_are_read_only(world: dict[str, Path]):
    rules = _profile(world)
    for library in ("/usr/lib/libz.dylib", str(world["toolchain"] / "lib" / "_ssl.so")):
        assert decide(rules, "file-map-executable", library) == "allow"
        assert decide(rules, "file-test-existence", library) == "allow"
    hidden = str(world["package"] / "suite" / "x" / "ext.so")
    assert decide(rules, "file-map-executable", hidden) == "deny"
    assert decide(rules, "file-test-existence", hidden) == "deny"
    assert decide(rules, "file-map-executable", str(world["work"] / "build" / "a.so")) == "allow"
    assert decide(rules, "file-read-data", "/usr/lib/libc.dylib") == "allow"
    assert decide(rules, "file-read-data", "/System/Library/dyld/cache") == "allow"
    assert decide(rules, "file-read-data", str(world["toolchain"] / "lib" / "os.py")) == "allow"
    assert decide(rules, "file-write-unlink", "/usr/lib/libc.dylib") == "deny"


def test_task_tree_held_out_tests_references_and_other_trials_are_unreadable(world):
    rules = _profile(world)
    task = world["task"]
    for secret in (
        task / "heldout" / "tests" / "test_heldout.py",
        task / "solution.patch",
        world["package"] / "suite" / "calc-add" / "heldout" / "test_x.py",  # inside a toolchain
        world["other"] / "calc.py",  # another trial's workspace
        Path("/private/tmp/dropped-by-another-trial"),
        Path("/Users/someone/.ssh/id_ed25519"),
    ):
        assert decide(rules, "file-read-data", str(secret)) == "deny", secret
        assert decide(rules, "file-read-metadata", str(secret)) == "deny", secret
        assert decide(rules, "file-write-create", str(secret)) == "deny", secret


def test_the_agents_program_is_readable_even_in_the_temp_folder(world: dict[str, Path]):
    program = world["temp"] / "agent-bin"
    program.mkdir()
    rules = _profile(world, readonly=[program])
    assert decide(rules, "file-read-data", str(program / "agent.sh")) == "allow"
    assert decide(rules, "file-write-data", str(program / "agent.sh")) == "deny"
    assert decide(rules, "file-read-data", str(world["other"] / "calc.py")) == "deny"
    # A path to hide stays hidden inside a granted tree.
    rules = _profile(world, readonly=[world["toolchain"]])
    assert decide(rules, "file-read-data", str(world["package"] / "suite" / "x")) == "deny"


def test_the_launcher_folder_stays_readable_inside_the_hidden_package(world):
    rules = _profile(world)
    launcher = world["package"] / "sandbox" / "_launch.py"
    assert decide(rules, "file-read-data", str(launcher)) == "allow"
    assert decide(rules, "file-write-data", str(launcher)) == "deny"
    assert decide(rules, "file-read-data", str(world["package"] / "cli" / "x.py")) == "deny"


def test_folders_above_visible_trees_give_metadata_never_a_listing(world):
    rules = _profile(world)
    trial = str(world["temp"] / "trial-a")
    assert decide(rules, "file-read-metadata", trial) == "allow"
    assert decide(rules, "file-read-data", trial) == "deny"  # no listing of the trial folder
    assert decide(rules, "file-read-data", str(world["temp"])) == "deny"  # nor of all trials


def test_network_only_to_the_gateway_port(world: dict[str, Path]):
    rules = _profile(world, network="gateway", gateway_port=40123)
    assert decide(rules, "network-outbound", remote="localhost:40123") == "allow"
    assert decide(rules, "network-outbound", remote="localhost:40124") == "deny"
    assert decide(rules, "network-outbound", remote="*:443") == "deny"
    assert decide(rules, "network-bind", remote="localhost:8080") == "deny"


def test_grading_gets_its_own_profile_no_network_and_held_out_files_read_only(world):
    heldout = world["work"] / "tests" / "test_heldout_calc.py"
    heldout.parent.mkdir()
    heldout.write_text("")
    rules = _profile(world, network="none", protect=[heldout])
    assert decide(rules, "network-outbound", remote="localhost:40123") == "deny"
    assert decide(rules, "file-read-data", str(heldout)) == "allow"
    for op in ("file-write-data", "file-write-unlink", "file-write-mode"):
        assert decide(rules, op, str(heldout)) == "deny"
    # Its folder cannot be renamed or removed (moving the file away), yet takes new files.
    assert decide(rules, "file-write-unlink", str(heldout.parent)) == "deny"
    assert decide(rules, "file-write-create", str(heldout.parent / "new.py")) == "allow"
    assert decide(rules, "file-write-data", str(world["work"] / "calc.py")) == "allow"


def test_paths_are_quoted_so_a_name_cannot_add_rules(world: dict[str, Path]):
    odd = world["temp"] / "trial-a" / 'x") (allow default) ("'
    odd.mkdir()
    spec = SandboxSpec(workspace=odd, home=world["home"])
    text = render(
        build_profile(spec, toolchains=[], hidden=[], temp_root=world["temp"], system_trees=())
    )
    rules = parse(text)
    assert ["allow", "default"] not in rules
    assert decide(rules, "file-write-data", str(odd / "f")) == "allow"
    assert decide(rules, "file-read-data", "/etc/passwd") == "deny"


def test_a_newline_in_a_path_is_refused(world: dict[str, Path]):
    odd = world["temp"] / "trial-a" / "x\ny"
    odd.mkdir()
    spec = SandboxSpec(workspace=odd, home=world["home"])
    with pytest.raises(ValueError, match="not expressible"):
        render(build_profile(spec, toolchains=[], hidden=[], temp_root=world["temp"]))


def test_links_are_resolved_to_the_paths_seatbelt_sees(tmp_path: Path):
    real = tmp_path / "private" / "tmp" / "T"
    (real / "w").mkdir(parents=True)
    (real / "h").mkdir()
    link = tmp_path / "tmp"
    link.symlink_to(tmp_path / "private" / "tmp")
    spec = SandboxSpec(workspace=link / "T" / "w", home=link / "T" / "h")
    profile = build_profile(spec, toolchains=[], hidden=[], temp_root=link / "T", system_trees=())
    assert profile.read_write == (str(real / "w"), str(real / "h"))
    assert str(real) in profile.denied


def test_the_profile_is_stored_once_per_distinct_text(tmp_path: Path):
    first = store_profile(tmp_path / "trial", "(version 1)\n(deny default)\n")
    again = store_profile(tmp_path / "trial", "(version 1)\n(deny default)\n")
    other = store_profile(tmp_path / "trial", "(version 1)\n(allow default)\n")
    assert first == again
    assert first != other
    assert first.name.startswith("seatbelt-")
    assert first.suffix == ".sb"
    assert sorted(p.name for p in (tmp_path / "trial").iterdir()) == sorted(
        [first.name, other.name]
    )


def test_labelled_experimental_and_weaker_points_said(monkeypatch: pytest.MonkeyPatch):
    assert LEVEL == "seatbelt-experimental"
    assert "seatbelt" in BACKENDS
    assert any("PID namespace" in w for w in WEAKER_THAN_BWRAP)
    assert any("route" in w for w in WEAKER_THAN_BWRAP)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(_seatbelt, "SANDBOX_EXEC", Path("/nonexistent/sandbox-exec"))
    monkeypatch.setattr(_seatbelt.shutil, "which", lambda _name: None)
    statuses = {s.name: s for s in available_backends()}
    assert set(statuses) == {"seatbelt", "none"}  # macOS lists its own backend, not Linux's
    assert "not found" in statuses["seatbelt"].reason
    with pytest.raises(SandboxUnavailableError, match="sandbox-exec not found"):
        select("seatbelt")


def test_seatbelt_is_chosen_by_default_on_macos(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    fake = _fake_sandbox_exec(tmp_path)
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(_seatbelt, "SANDBOX_EXEC", fake)
    monkeypatch.setattr(_seatbelt.shutil, "which", lambda _name: str(fake))
    chosen = select(None)
    assert isinstance(chosen, SeatbeltSandbox)
    assert chosen.level == LEVEL
    [status] = [s for s in available_backends() if s.name == "seatbelt"]
    assert status.available
    assert "experimental" in status.reason
    assert "no PID namespace" in status.reason


def test_seatbelt_refused_by_name_off_macos(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "platform", "linux")
    with pytest.raises(SandboxUnavailableError, match="macOS only"):
        select("seatbelt")


def _fake_sandbox_exec(tmp_path: Path) -> Path:
    """Stands in for sandbox-exec off macOS: drops ``-p PROFILE`` and runs the rest."""
    fake = tmp_path / "fake-sandbox-exec"
    fake.write_text('#!/bin/sh\n[ "$1" = -p ] || exit 64\nshift 2\nexec "$@"\n')
    fake.chmod(0o755)
    return fake


def test_a_trial_keeps_the_agent_and_grading_profiles_in_its_folder(
    make_task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The wiring, run here with a stand-in for sandbox-exec: each trial folder holds the
    profile its agent ran under and its grading logs the grading profiles; the record says
    which level was enforced."""
    make_task()
    sandbox = SeatbeltSandbox(tool=_fake_sandbox_exec(tmp_path))
    monkeypatch.setattr("localagentbench.runner._run.select", lambda _name: sandbox)
    agent = tmp_path / "agent.sh"
    agent.write_text(
        textwrap.dedent("""\
        #!/bin/sh
        printf 'def add(a, b):\\n    return a + b\\n' > calc.py
        echo done
        """)
    )
    agent.chmod(0o755)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run")
    )
    [record] = result.run_dir.records()
    assert record.isolation == LEVEL
    assert record.success is True
    folder = tmp_path / "run" / "trials" / record.trial_id
    [agent_profile] = folder.glob("seatbelt-*.sb")
    rules = parse(agent_profile.read_text())
    assert decide(rules, "file-read-data", str(tmp_path / "suite" / "calc-add" / "task.yaml")) in (
        "deny"
    )
    assert decide(rules, "file-write-data", str(folder / "record.json")) == "deny"
    grading = sorted((folder / "grading").glob("seatbelt-*.sb"))
    assert grading
    for path in grading:
        text = path.read_text()
        assert "network-outbound" not in text  # grading: no network at all


def test_observed_sandbox_collects_distinct_profiles(world: dict[str, Path], tmp_path: Path):
    observed = ObservedSandbox(SeatbeltSandbox(tool=_fake_sandbox_exec(tmp_path)))
    spec = SandboxSpec(workspace=world["work"], home=world["home"])
    observed.wrap(["true"], spec)
    observed.wrap(["false"], spec)
    [profile] = observed.profiles
    assert profile.startswith("(version 1)")
