"""The `environment:` block of a task file: what loads, what is refused in one line."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from localagentbench.tasks import Environment


def test_each_ecosystem_and_setup_load() -> None:
    env = Environment.model_validate(
        {
            "python": {"requirements": ["more-itertools==10.5.0"]},
            "node": {"lockfile": "repo/package-lock.json"},
            "go": {"modules": True},
            "setup": ["make deps"],
        }
    )
    assert env.setup == [["make", "deps"]]
    assert env.files() == ["repo/package-lock.json", "repo/package.json"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"python": {}}, "give exactly one of requirements, requirements_file or lockfile"),
        (
            {"python": {"requirements": ["a"], "lockfile": "x.txt"}},
            "(got requirements, lockfile)",
        ),
        ({"python": {"requirements": ["--index-url=x"]}}, "is empty or an option"),
        ({}, "names nothing to build"),
        ({"go": {"modules": False}}, "names nothing to build"),
        ({"setup": ["make deps | tee"]}, "runs without a shell"),
        ({"ruby": {"gemfile": "Gemfile"}}, "Extra inputs are not permitted"),
    ],
)
def test_bad_environment_is_one_clear_error(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError) as e:
        Environment.model_validate(data)
    assert message in str(e.value)


def test_a_task_names_the_field(make_task, tmp_path) -> None:
    from localagentbench.tasks import load_suite

    root = make_task(environment={"python": {}})
    loaded = load_suite(root.parent, [])
    assert loaded.problems, "a broken environment must be reported"
    line = str(loaded.problems[0])
    assert "environment" in line
    assert "exactly one of" in line
