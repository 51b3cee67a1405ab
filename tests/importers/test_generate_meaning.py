"""Generated tasks that do not leak their answer and are judged by meaning (issue 41)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from tests.importers._shop import go_shop, python_shop
from tests.importers._track import go_track

from localagentbench._proc import run_process
from localagentbench.grading import classify_run
from localagentbench.importers import ImportResult, draw_candidates, generate_tasks, import_exercism
from localagentbench.importers._golang import COMMAND as GO_COMMAND
from localagentbench.importers._golang import GoProject
from localagentbench.importers._mutate import mutations
from localagentbench.importers._prove import Candidate
from localagentbench.importers._pylang import PythonProject
from localagentbench.importers._pyrepo import python_modules
from localagentbench.importers._rename import Rename
from localagentbench.importers._tests import TestRun
from localagentbench.importers._toolchain import toolchain_mismatch
from localagentbench.importers._usages import callers


def _answers(candidate: Candidate) -> list[str]:
    """What the task's grading expects that the agent must find: the `set` items and the
    lines the reference patch adds (stripped, long enough to be code, not a lone brace)."""
    found = [
        item for check in candidate.data.get("checks", []) for item in check.get("expected", [])
    ]
    for line in candidate.patch.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            code = line[1:].strip()
            if len(code) >= 8:
                found.append(code)
    return found


def _draw(project, tmp_path) -> list[Candidate]:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    made = draw_candidates(project, scratch, ImportResult(out=tmp_path / "unused"), seed=1, count=1)
    assert {c.data["category"] for c in made} == {"bugfix", "refactor"}
    return made


def _assert_no_leak(made: list[Candidate]) -> None:
    kinds = set()
    for candidate in made:
        kinds.add(candidate.data["id"].split("-")[1])
        prompt = candidate.data["prompt"]
        answers = _answers(candidate)
        assert answers, candidate.task_id
        leaked = [a for a in answers if a in prompt]
        assert not leaked, f"{candidate.task_id}: the prompt gives away {leaked}"
    assert kinds == {"bug", "rename", "callers"}


def test_no_python_prompt_contains_an_expected_answer(tmp_path) -> None:
    _assert_no_leak(_draw(python_shop(tmp_path / "shop"), tmp_path))


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_no_go_prompt_contains_an_expected_answer(tmp_path) -> None:
    _assert_no_leak(_draw(go_shop(tmp_path / "shop"), tmp_path))


TZ = {
    "tz/__init__.py": "from .core import head, partition\n\n__all__ = ['head', 'partition']\n",
    "tz/core.py": (
        "def partition(n, seq):\n"
        '    """partition a sequence into tuples of n; partition never pads."""\n'
        "    return [tuple(seq[i : i + n]) for i in range(0, len(seq), n)]\n\n\n"
        "def head(text):\n"
        "    # partition the text at the first comma\n"
        '    return text.partition(",")[0]\n\n\n'
        "def pairs(seq):\n"
        "    return partition(2, seq)\n"
    ),
    "tests/test_core.py": (
        "import tz as t\nfrom tz.core import head\n\n\n"
        "def test_partition():\n    assert t.partition(2, [1, 2, 3]) == [(1, 2), (3,)]\n\n\n"
        'def test_head():\n    assert head("a,b") == "a"\n'
    ),
    "more/__init__.py": "from .more import *\n",
    "more/more.py": "__all__ = ['rlocate']\n\n\ndef rlocate(xs):\n    return len(xs)\n",
    "tests/test_more.py": (
        "import more as mi\nfrom more import rlocate as rl\n\n\n"
        "def test_rlocate():\n    assert mi.rlocate([1]) == 1\n\n\n"
        "def test_aliased():\n    assert rl([]) == 0\n\n\n"
        "def test_not_a_call():\n    assert 'rlocate' in dir(mi)\n"
    ),
}
"""`partition` beside `str.partition` and the English word; `rlocate` re-exported by a star
import and called through a module alias and an aliased name."""


def _tz(root):
    for rel, text in TZ.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _check(root, rename, project):
    """Run the rename task's check as the grader would: its command in the graded copy."""
    check, shipped = project.rename_check(rename)
    for name, data in shipped.items():
        (root / name).write_bytes(data)
    argv = [sys.executable if a == "python" else a for a in check["command"][0]]
    return subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=120)


def test_a_python_rename_renames_identifiers_only_and_its_check_leaves_prose_alone(
    tmp_path,
) -> None:
    root = _tz(tmp_path / "tz")
    project = PythonProject(root)
    rename = Rename("tz.core", "function", "partition", "chunk")
    untouched = _check(root, rename, project)
    assert untouched.returncode == 1
    assert "tz/core.py:1: still refers to tz.core.partition" in untouched.stdout
    (root / "lab_rename_check.py").unlink()
    assert project.rename_in(root, rename) == ["tests/test_core.py", "tz/__init__.py", "tz/core.py"]
    core = (root / "tz" / "core.py").read_text()
    assert "def chunk(n, seq):" in core
    assert '"""partition a sequence into tuples of n; partition never pads."""' in core
    assert "# partition the text at the first comma" in core
    assert 'text.partition(",")' in core  # str's method is another object
    assert "return chunk(2, seq)" in core
    assert "t.chunk(2, [1, 2, 3])" in (root / "tests" / "test_core.py").read_text()
    assert "__all__ = ['head', 'chunk']" in (root / "tz" / "__init__.py").read_text()
    done = _check(root, rename, project)
    assert done.returncode == 0, done.stdout
    # The old name kept as an alias, or a re-export left behind, is caught.
    init = root / "tz" / "__init__.py"
    init.write_text(init.read_text() + "from .core import chunk as partition\n")
    assert "tz/__init__.py:4" in _check(root, rename, project).stdout
    init.write_text("from .core import head, partition\n")
    assert "tz/__init__.py:1" in _check(root, rename, project).stdout


def test_callers_are_found_through_re_exports_and_module_aliases(tmp_path) -> None:
    modules = python_modules(_tz(tmp_path / "tz"))
    assert callers(modules, "more.more", "rlocate") == [
        "tests.test_more.test_rlocate",
        "tests.test_more.test_aliased",
    ]
    assert callers(modules, "tz.core", "partition") == [
        "tests.test_core.test_partition",
        "tz.core.pairs",
    ]


@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_a_go_rename_renames_identifiers_only_and_its_check_runs_on_the_graded_copy(
    tmp_path,
) -> None:
    root = go_shop(tmp_path / "shop")
    project = GoProject(root)
    rename = Rename("example.com/shop/price", "function", "Label", "Name")
    assert project.rename_in(root, rename) == [
        "cart/cart.go",
        "price/price.go",
        "price/price_test.go",
    ]
    price = (root / "price" / "price.go").read_text()
    assert "// Label is a product's name" in price  # the comment is prose
    assert "func Name(name string) string {" in price
    cart = (root / "cart" / "cart.go").read_text()
    assert "p.Name(n)" in cart
    assert "Label := func(s string) string { return s }" in cart  # a local of that name
    assert "return Label(name)" in cart
    done = _check(root, rename, project)
    assert done.returncode == 0, done.stderr
    (root / "price" / "extra.go").write_text("package price\n\nvar _ = Label\n")
    left = _check(root, rename, project)
    assert left.returncode == 1
    assert left.stdout.startswith("price/extra.go\t3\t")


@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_a_go_package_without_tests_does_not_fail_the_modules_proof(tmp_path) -> None:
    root = go_shop(tmp_path / "shop")
    (root / "cart" / "cart_test.go").unlink()  # cart: a package with no test file
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "GOFLAGS": "-mod=readonly"}

    def proof() -> tuple[str, str]:
        ran = run_process(GO_COMMAND, cwd=root, env=env, timeout_s=300)
        return classify_run(GO_COMMAND, ran, root)

    outcome, reason = proof()
    assert outcome == "passed", reason
    price_tests = root / "price" / "price_test.go"
    price_tests.write_text(price_tests.read_text().replace("got != 50", "got != 51", 1))
    assert proof()[0] == "failed"  # a failing test is a failure, not "ran no tests"
    price_tests.unlink()
    assert proof() == ("env-fault", f"`{' '.join(GO_COMMAND)}` ran no tests")


def test_python_mutants_leave_no_visible_mark(tmp_path) -> None:
    source = (
        "def f(xs, n, flag):\n"
        "    for x in xs:\n"
        "        if x:\n"
        "            n += 1\n"
        "    if flag:\n"
        "        n = 0\n"
        "    head = xs[: n - 1]\n"
        "    return head, list(range(n or 2)), xs[3:]\n"
    )
    (tmp_path / "m.py").write_text(source)
    (module,) = python_modules(tmp_path)
    sites = mutations(module, set())
    changed = {(s.operator, s.line): s.apply(source.encode()).decode() for s in sites}
    # The `if` alone in its loop is not drawn (a lone `pass` would mark it); its sibling is.
    assert ("drop-branch", 3) not in changed
    assert "    if flag:\n" not in changed["drop-branch", 5]
    assert "pass" not in changed["drop-branch", 5]
    assert "    head = xs[: n]\n" in changed["off-by-one", 7]
    assert "xs[4:]" in changed["off-by-one", 8]
    assert not [s for s in sites if b"(" in s.text and s.operator == "off-by-one"]
    assert [s.line for s in sites if s.operator == "off-by-one"] == [7, 8]  # `n or 2` skipped


def test_a_rejection_reason_is_one_readable_line() -> None:
    output = "\n".join(
        [
            '{"Action":"output","Package":"m/p","Output":"--- FAIL: TestX (0.00s)\\n"}',
            '{"Action":"fail","Package":"m/p","Test":"TestX"}',
            "\x1b[31mFAILED\x1b[0m tests/test_a.py::test_b - assert 1 == 2",
        ]
    )
    tail = TestRun(1, None, output).tail()
    assert tail == "--- FAIL: TestX (0.00s) | FAILED tests/test_a.py::test_b - assert 1 == 2"
    assert len(TestRun(1, None, "x" * 1000).tail()) == 300


@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_go_mutants_leave_no_visible_mark(tmp_path) -> None:
    source = (
        "package cut\n\n"
        "func Cut(s []int, i, n int) []int {\n"
        "\tif n < 0 {\n"
        "\t\tn = 0\n"
        "\t}\n"
        "\treturn append(s[i:], s[:n-1]...)[(i * 2):]\n"
        "}\n"
    )
    (tmp_path / "go.mod").write_text("module example.com/cut\n\ngo 1.18\n")
    (tmp_path / "cut.go").write_text(source)
    sites = GoProject(tmp_path).mutations()
    changed = {(s.operator, s.apply(source.encode()).decode()) for s in sites}
    bumps = sorted(text for op, text in changed if op == "off-by-one")
    assert [b.splitlines()[6] for b in bumps] == [
        "\treturn append(s[i+1:], s[:n-1]...)[(i * 2):]",
        "\treturn append(s[i:], s[:n]...)[(i * 2):]",
    ]  # the bracketed bound is not drawn
    (dropped,) = [text for op, text in changed if op == "drop-branch"]
    assert (
        dropped
        == "package cut\n\nfunc Cut(s []int, i, n int) []int {\n" + source.split("}\n", 1)[1]
    )


def test_a_toolchain_mismatch_is_one_reason_naming_both_versions(tmp_path) -> None:
    (tmp_path / "go.mod").write_text("module m\n\ngo 1.26\n")
    assert toolchain_mismatch(tmp_path, "go", (1, 19, 8)) == (
        "needs Go 1.26 (go.mod's go directive); this machine has go 1.19.8"
    )
    assert toolchain_mismatch(tmp_path, "go", (1, 26, 0)) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\nrequires-python = ">=3.12"\n')
    assert toolchain_mismatch(tmp_path, "python", (3, 11, 7)) == (
        "needs Python >=3.12 (pyproject.toml's requires-python); this machine has Python 3.11.7"
    )
    assert toolchain_mismatch(tmp_path, "python", (3, 12, 1)) is None
    (tmp_path / "package.json").write_text('{"engines": {"node": "^20.1 || >=22"}}')
    assert toolchain_mismatch(tmp_path, "javascript", (18, 19, 0)) == (
        "needs Node ^20.1 || >=22 (package.json's engines.node); this machine has node 18.19.0"
    )
    assert toolchain_mismatch(tmp_path, "javascript", (20, 3, 0)) is None
    assert toolchain_mismatch(tmp_path, "javascript", (23, 0, 0)) is None
    (tmp_path / "package.json").write_text('{"engines": {"node": "lts/*"}}')
    assert toolchain_mismatch(tmp_path, "javascript", (18, 0, 0)) is None  # not read: no verdict


def test_generate_names_both_versions_when_the_project_needs_a_newer_python(tmp_path, cli) -> None:
    project = python_shop(tmp_path / "shop")
    (project / "pyproject.toml").write_text('[project]\nname = "shop"\nrequires-python = ">=9"\n')
    code, _, stderr = cli("generate", str(project), "--out", str(tmp_path / "out"))
    assert code == 2
    assert "needs Python >=9 (pyproject.toml's requires-python); this machine has Python 3." in (
        stderr
    )
    assert len(stderr.strip().splitlines()) == 1


@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_an_exercism_go_exercise_for_a_newer_go_is_rejected_naming_both_versions(
    tmp_path,
) -> None:
    track = go_track(tmp_path / "go")
    go_mod = track / "exercises" / "practice" / "hamming" / "go.mod"
    go_mod.write_text("module hamming\n\ngo 1.99\n")
    result = import_exercism(track, "go", tmp_path / "out")
    assert result.written == []
    ((item, reason, detail),) = [(r.item, r.reason, r.detail) for r in result.rejected]
    assert reason == "toolchain too old"
    assert detail.startswith(
        "hamming: needs Go 1.99 (go.mod's go directive); this machine has go 1."
    )


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH (apt-get install golang-go)"
)
def test_a_go_module_with_an_untested_package_yields_proven_tasks(tmp_path) -> None:
    root = go_shop(tmp_path / "shop")
    (root / "cart" / "cart_test.go").unlink()
    result = generate_tasks(root, tmp_path / "suite", seed=1, count=1, kinds=["mutation"])
    assert result.written == ["shop-bug-price-price-l8-compare-flip"], result.rejected
