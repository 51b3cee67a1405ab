"""The bundled suite's shape (SPEC section 10, issue 8 scope)."""

from __future__ import annotations

from collections import Counter

import pytest

from localagentbench.tasks import CATEGORIES, bundled_suite, load_suite

SOURCE_SUFFIXES = (".py", ".js", ".go", ".md")


@pytest.fixture(scope="module")
def tasks():
    loaded = load_suite(bundled_suite())
    assert loaded.problems == []
    return loaded.tasks


def test_size_and_languages(tasks):
    languages = Counter(t.language for t in tasks)
    assert len(tasks) >= 24
    assert languages["python"] >= 12
    assert languages["javascript"] + languages["typescript"] >= 6
    assert languages["go"] >= 6


def test_every_category_and_tier(tasks):
    assert {t.category for t in tasks} == set(CATEGORIES)
    assert {t.tier for t in tasks} == {"expected-pass", "boundary", "expected-fail"}
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}


def test_heldout_references_and_projects(tasks):
    assert sum(t.heldout is not None for t in tasks) >= 12
    assert all(t.reference is not None for t in tasks)
    assert all(t.project for t in tasks)
    projects = Counter(t.project for t in tasks)
    assert sum(n for n in projects.values() if n > 1) >= 6, "tasks of one project cluster"


def test_every_check_kind_is_used(tasks):
    kinds = {c.kind for t in tasks for c in t.checks}
    assert {"set", "absent", "diff-range", "contains", "regression-test-added"} <= kinds
    assert any(t.fail_to_pass for t in tasks)
    assert any(t.pass_to_pass for t in tasks)


def test_test_writing_is_judged_by_behaviour(tasks):
    """A `test` task's held-out material holds broken variants its tests must catch."""
    writing = [t for t in tasks if t.category == "test"]
    assert writing
    for t in writing:
        assert t.heldout is not None
        variants = list(t.resolve(t.heldout.path).rglob("mutant_*"))
        assert len(variants) >= 3, t.id


def test_hard_tasks_are_realistic(tasks):
    """Several files (code, tests, docs) and 200+ lines: a bug to locate, not a one-liner."""
    for t in (t for t in tasks if t.difficulty == "hard"):
        assert t.fixture_dir is not None
        sources = [p for p in t.fixture_dir.rglob("*") if p.suffix in SOURCE_SUFFIXES]
        lines = sum(len(p.read_text().splitlines()) for p in sources)
        assert len(sources) >= 4, t.id
        assert lines >= 200, (t.id, lines)


def test_no_caches_in_fixtures(tasks):
    for t in tasks:
        assert t.fixture_dir is not None
        junk = [
            p
            for p in t.fixture_dir.rglob("*")
            if p.name in {"__pycache__", ".pytest_cache", "node_modules", ".git"}
        ]
        assert junk == [], t.id
