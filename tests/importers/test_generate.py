"""`generate` on a tiny project built in tmp_path and on a bundled fixture."""

from __future__ import annotations

import pytest
import yaml
from tests.importers._shop import python_shop as _project

from localagentbench.importers import ImportResult, draw_candidates, generate_tasks
from localagentbench.importers._mutate import mutations
from localagentbench.importers._pyrepo import python_modules
from localagentbench.importers._usages import callers
from localagentbench.tasks import bundled_suite, load_suite


def test_mutation_sites_of_the_four_operators(tmp_path) -> None:
    source = (
        "def f(xs, a, b):\n    if a < b:\n        g(a, b)\n    for i in range(len(xs)):\n"
        "        xs = xs[1:]\n    return a == b\n\n\ndef g(x, y):\n    return x\n"
    )
    (tmp_path / "m.py").write_text(source)
    (module,) = python_modules(tmp_path)
    sites = mutations(module, {"g"})
    ops = sorted(s.operator for s in sites)
    assert ops == [
        "compare-flip",
        "compare-flip",
        "drop-branch",
        "off-by-one",
        "off-by-one",
        "swap-args",
    ]
    raw = source.encode()
    applied = {
        s.operator + str(s.line): s.apply(raw).decode().splitlines()[s.line - 1] for s in sites
    }
    assert applied["compare-flip2"] == "    if a <= b:"
    assert applied["swap-args3"] == "        g(b, a)"
    assert applied["off-by-one4"] == "    for i in range(len(xs) + 1):"  # no added brackets
    assert applied["off-by-one5"] == "        xs = xs[2:]"
    assert b"pass" not in b"".join(s.text for s in sites)
    assert applied["compare-flip6"] == "    return a != b"


def test_callers_recomputed_from_the_code_match_the_bundled_task() -> None:
    """The hand-written py-invoicer-usages answer is what the AST says."""
    task = bundled_suite() / "py-invoicer-usages"
    expected = yaml.safe_load((task / "task.yaml").read_text())["checks"][0]["expected"]
    found = callers(python_modules(task / "repo"), "invoicer.money", "round_money")
    assert sorted(found) == sorted(expected)


def test_the_same_seed_draws_the_same_candidates(tmp_path) -> None:
    project = _project(tmp_path / "shop-project")

    def draw(seed):
        result = ImportResult(out=tmp_path / "unused")
        scratch = tmp_path / f"scratch-{seed}-{len(list(tmp_path.iterdir()))}"
        scratch.mkdir()
        made = draw_candidates(project, scratch, result, seed=seed, count=1, kinds=["callers"])
        return [(c.task_id, c.data["version"], c.patch) for c in made], result

    first, _ = draw(5)
    again, _ = draw(5)
    assert first
    assert first == again
    assert {version for _, version, _ in first} == {6}  # the seed enters the version


@pytest.mark.slow
def test_generated_tasks_pass_check_and_verify_twice_and_the_equivalent_mutant_is_counted(
    tmp_path, cli
) -> None:
    project = _project(tmp_path / "shop-project")
    out = tmp_path / "suite"
    result = generate_tasks(project, out, seed=1, count=2, repeat=2, kinds=["mutation"])
    assert result.written == ["shop-project-bug-shop-price-l2-compare-flip"]
    assert [(r.item, r.reason) for r in result.rejected] == [
        ("shop/price.py:6 drop-branch", "equivalent mutant")
    ]
    assert result.counts() == {"equivalent mutant": 1}
    flip = yaml.safe_load((out / result.written[0] / "task.yaml").read_text())
    assert flip["fail_to_pass"] == ["tests/test_price.py::test_discount_from_100"]
    assert sorted(flip["pass_to_pass"]) == [
        "tests/test_price.py::test_no_discount_below_100",
        "tests/test_price.py::test_total",
    ]
    assert flip["version"] == 2
    assert flip["provenance"]["seed"] == 1
    mutant = (out / result.written[0] / "repo" / "shop" / "price.py").read_text()
    assert "if total > 100 else" in mutant
    code, _, stderr = cli("check", "--tasks", str(out))
    assert code == 0, stderr


@pytest.mark.slow
def test_generate_on_a_bundled_fixture_rename_and_callers(tmp_path, cli) -> None:
    out = tmp_path / "suite"
    repo = bundled_suite() / "py-invoicer-usages" / "repo"
    code, stdout, stderr = cli(
        "generate",
        str(repo),
        "--out",
        str(out),
        "--seed",
        "3",
        "--count",
        "1",
        "--kind",
        "rename",
        "--kind",
        "callers",
        "--project",
        "invoicer",
        "--repeat",
        "2",
    )
    assert code == 0, stderr
    assert "2 generated task(s) written" in stdout
    loaded = load_suite(out)
    assert not loaded.problems
    for task in loaded.tasks:
        assert task.version == 4
        assert task.provenance is not None
        assert task.provenance.seed == 3
    by_check = {t.checks[0].kind: t for t in loaded.tasks}
    assert set(by_check) == {"command", "set"}  # the rename's check reads the syntax tree
    rename = by_check["command"]
    assert rename.fail_to_pass
    assert rename.heldout is not None
    listed = by_check["set"].checks[0].expected
    assert listed
    assert "calibration.json" not in {p.name for p in out.iterdir()}
