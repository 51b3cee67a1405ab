"""`generate` from a Go module: go/parser through goast, go test for the proof."""

from __future__ import annotations

import random
import shutil

import pytest
import yaml
from tests.importers._shop import go_shop, python_shop

from localagentbench.importers import ImportResult, draw_candidates, generate_tasks
from localagentbench.importers._golang import GoProject
from localagentbench.importers._langs import detect_language
from localagentbench.tasks import bundled_suite, load_suite

pytestmark = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not on PATH: Go tasks cannot be generated here"
)


def test_the_language_is_read_from_the_folder(tmp_path) -> None:
    assert detect_language(go_shop(tmp_path / "g"), None) == "go"
    assert detect_language(python_shop(tmp_path / "p"), None) == "python"
    assert detect_language(tmp_path / "p", "go") == "go"


def test_goast_finds_callers_sites_and_renames_from_the_syntax_tree(tmp_path) -> None:
    project = GoProject(go_shop(tmp_path / "shop"))
    assert project.module == "example.com/shop"
    # An aliased import and an external test package count; a local variable does not.
    assert project.callers("example.com/shop/price", "Label") == [
        "example.com/shop/cart.Describe",
        "example.com/shop/price.TestLabel",
    ]
    assert project.callers("example.com/shop/price", "Discount") == [
        "example.com/shop/price.TestDiscountFrom100",
        "example.com/shop/price.TestNoDiscountBelow100",
    ]
    sites = project.mutations()
    assert [(s.rel, s.line, s.operator) for s in sites] == [
        ("price/price.go", 8, "compare-flip"),
        ("price/price.go", 17, "drop-branch"),
    ]
    source = (tmp_path / "shop" / "price" / "price.go").read_bytes()
    assert b"case total > 100:" in sites[0].apply(source)
    renamed = {(r.module, r.old) for r in project.renames(random.Random(0))}
    assert ("example.com/shop/price", "Label") in renamed
    assert ("example.com/shop/cart", "Describe") in renamed
    assert project.test_files() == ["cart/cart_test.go", "price/price_test.go"]


@pytest.mark.slow
def test_go_mutation_tasks_pass_check_and_verify_twice_and_the_equivalent_mutant_is_counted(
    tmp_path, cli
) -> None:
    out = tmp_path / "suite"
    result = generate_tasks(
        go_shop(tmp_path / "shop"), out, seed=1, count=2, repeat=2, kinds=["mutation"]
    )
    assert result.written == ["shop-bug-price-price-l8-compare-flip"]
    assert [(r.item, r.reason) for r in result.rejected] == [
        ("price/price.go:17 drop-branch", "equivalent mutant")
    ]
    flip = yaml.safe_load((out / result.written[0] / "task.yaml").read_text())
    assert flip["language"] == "go"
    assert flip["fail_to_pass"] == ["TestDiscountFrom100"]
    assert sorted(flip["pass_to_pass"]) == ["TestDescribe", "TestLabel", "TestNoDiscountBelow100"]
    assert flip["version"] == 2
    code, _, stderr = cli("check", "--tasks", str(out))
    assert code == 0, stderr


@pytest.mark.slow
def test_go_rename_and_callers_tasks_pass_check_and_verify_twice(tmp_path, cli) -> None:
    out = tmp_path / "suite"
    project = go_shop(tmp_path / "shop")
    code, stdout, stderr = cli(
        "generate", str(project), "--out", str(out), "--seed", "1", "--count", "1",
        "--kind", "rename", "--kind", "callers", "--repeat", "2",
    )  # fmt: skip
    assert code == 0, stderr
    assert "2 generated task(s) written" in stdout
    loaded = load_suite(out)
    assert not loaded.problems
    by_check = {t.checks[0].kind: t for t in loaded.tasks}
    rename, callers = by_check["command"], by_check["set"]
    assert rename.language == "go"
    assert rename.checks[0].command[0][4:7] == ["go", "run", "lab_rename_check.go"]
    assert rename.fail_to_pass
    assert callers.checks[0].expected  # recomputed from the code; equal to goast's answer
    owner, _, name = callers.provenance.item.rpartition(".")
    assert callers.checks[0].expected == GoProject(project).callers(owner, name)


@pytest.mark.slow
def test_generate_on_the_bundled_go_fixture(tmp_path, cli) -> None:
    out = tmp_path / "suite"
    repo = bundled_suite() / "go-ini-rename" / "repo"
    code, stdout, stderr = cli(
        "generate", str(repo), "--out", str(out), "--seed", "2", "--count", "1",
        "--project", "iniconf", "--repeat", "2",
    )  # fmt: skip
    assert code == 0, stderr
    loaded = load_suite(out)
    assert not loaded.problems
    assert {t.category for t in loaded.tasks} == {"bugfix", "refactor"}
    assert len(loaded.tasks) == 3, stdout
    for task in loaded.tasks:
        assert task.language == "go"
        assert task.version == 3


def test_the_same_seed_draws_the_same_go_candidates(tmp_path) -> None:
    project = go_shop(tmp_path / "shop")

    def draw(name):
        scratch = tmp_path / name
        scratch.mkdir()
        result = ImportResult(out=tmp_path / "unused")
        made = draw_candidates(project, scratch, result, seed=5, count=1, kinds=["callers"])
        return [(c.task_id, c.data["version"], c.data["checks"][0]["expected"]) for c in made]

    first = draw("a")
    assert first
    assert first == draw("b")
    assert {version for _, version, _ in first} == {6}


def test_an_unknown_language_is_one_line(tmp_path, cli) -> None:
    code, _, stderr = cli(
        "generate", str(go_shop(tmp_path / "shop")), "--language", "rust", "--out", str(tmp_path)
    )
    assert code == 2
    assert "--language rust: valid languages are python, go" in stderr


def test_goast_reads_a_module_through_a_symlinked_root(tmp_path) -> None:
    (tmp_path / "link").symlink_to(go_shop(tmp_path / "shop"), target_is_directory=True)
    project = GoProject(tmp_path / "link")
    assert project.test_files() == ["cart/cart_test.go", "price/price_test.go"]
