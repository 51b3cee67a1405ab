"""Model backends from outside the package: an entry point's name or a dotted path as the
model id's prefix (`echo/REST`, `lab_backend_pkg.echo:make_echo/REST`).

The backend is a real package built in tmp_path; a run proves it with a real completion and
a command agent talks to it through the gateway, end to end through the CLI.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from labtest import install_plugin
from localagentbench.gateway import BACKENDS, UnknownModel, make_backend

ECHO = '''\
"""A small real backend: it answers every request with one fixed line and its usage."""

from localagentbench.gateway import ChatRequest, Finish, TextDelta, Usage


class EchoBackend:
    def __init__(self, rest):
        self.rest = rest

    @property
    def endpoint(self):
        return f"echo:{self.rest}"

    async def stream(self, request: ChatRequest, ctx):
        yield TextDelta(f"{self.rest}: Done: fixed.")
        yield Finish("stop", Usage(input_tokens=7, output_tokens=3))


def make_echo(rest):
    return EchoBackend(rest)


def not_a_backend(rest):
    return rest
'''

CLIENT = """\
import json, os, urllib.request
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode()
req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                             headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=30) as r:
    print(json.load(r)["choices"][0]["message"]["content"])
"""

ENTRY_POINTS = "[localagentbench.backends]\necho = lab_backend_pkg.echo:make_echo\n"


@pytest.fixture(autouse=True)
def _forget_plugin_modules() -> Iterator[None]:
    """Each test imports its own copy of the plug-in package."""
    yield
    for name in [n for n in sys.modules if n.split(".")[0] == "lab_backend_pkg"]:
        del sys.modules[name]


def _plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry_points: str = "") -> None:
    """Install `lab_backend_pkg` in a folder on sys.path, with entry points when given."""
    site = install_plugin(
        tmp_path / "site", "lab_backend_pkg", {"echo": ECHO}, entry_points, "lab-backend"
    )
    monkeypatch.syspath_prepend(str(site))


def _run_with(cli, make_task, tmp_path: Path, model: str) -> dict[str, object]:
    make_task(heldout=False, oracle={"command": ["true"]})
    agent = tmp_path / "agent.py"
    agent.write_text(f"#!{sys.executable}\n" + CLIENT)
    agent.chmod(0o755)
    out = tmp_path / "run"
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        str(agent),
        "--model",
        model,
        "--out",
        str(out),
    )
    assert code == 0, err
    [path] = out.glob("trials/*/record.json")
    record: dict[str, object] = json.loads(path.read_text())
    return record


@pytest.mark.parametrize(
    ("model", "entry_points"),
    [("echo/hello", ENTRY_POINTS), ("lab_backend_pkg.echo:make_echo/hello", "")],
    ids=["entry-point", "dotted-path"],
)
def test_a_run_talks_to_a_plug_in_backend(
    cli, make_task, tmp_path, monkeypatch, model, entry_points
):
    _plugin(tmp_path, monkeypatch, entry_points)
    record = _run_with(cli, make_task, tmp_path, model)
    assert record["status"] == "completed"
    assert record["model"] == model
    assert record["final_answer"] == "hello: Done: fixed."
    assert record["requests"] == 1


def test_the_entry_point_is_listed_beside_the_built_ins(tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    assert BACKENDS.names()[-1] == "echo"
    assert "scripted" in BACKENDS
    assert make_backend("echo/x").endpoint == "echo:x"


def test_an_unknown_prefix_lists_entry_points_and_a_close_one(tmp_path, monkeypatch):
    _plugin(tmp_path, monkeypatch, ENTRY_POINTS)
    with pytest.raises(UnknownModel) as info:
        make_backend("ecko/x")
    message = str(info.value)
    assert "\n" not in message
    assert "echo/..." in message
    assert "scripted/..." in message
    assert message.endswith("did you mean 'echo'?")


def test_a_prefix_alone_still_names_no_backend() -> None:
    with pytest.raises(UnknownModel, match="'scripted' names no backend"):
        make_backend("scripted")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("lab_no_such_pkg.b:make/x", r"does not import: No module named 'lab_no_such_pkg'"),
        ("lab_backend_pkg.echo:not_a_backend/x", r"returned str, not a Backend"),
        ("lab_backend_pkg.echo:gone/x", r"no such attribute"),
    ],
)
def test_a_dotted_path_that_fails_is_one_line_naming_it(tmp_path, monkeypatch, model, expected):
    _plugin(tmp_path, monkeypatch)
    with pytest.raises(UnknownModel, match=expected) as info:
        make_backend(model)
    assert "\n" not in str(info.value)
    assert model.partition("/")[0] in str(info.value)
