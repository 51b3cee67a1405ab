import pytest

from pkgplan import graph
from pkgplan.graph import MissingDependencyError, build_order, build_stages
from pkgplan.manifest import parse_manifest

EXAMPLE = """
app: web, db, ?metrics
web: http, templates
db:
http:
templates:
"""


def test_build_order_example():
    assert build_order(parse_manifest(EXAMPLE)) == ["db", "http", "templates", "web", "app"]


def test_optional_dependency_used_when_present():
    pkgs = parse_manifest("a: ?b\nb:\n")
    assert build_order(pkgs) == ["b", "a"]


def test_missing_required_dependency():
    with pytest.raises(MissingDependencyError) as info:
        build_order(parse_manifest("a: b\n"))
    assert (info.value.package, info.value.dependency) == ("a", "b")


def test_build_stages_example():
    assert build_stages(parse_manifest(EXAMPLE)) == [["db", "http", "templates"], ["web"], ["app"]]


def test_cycle_is_reported():
    with pytest.raises(graph.CycleError) as info:
        build_order(parse_manifest("a: b\nb: a\nc:\n"))
    assert info.value.cycle == ["a", "b"]
