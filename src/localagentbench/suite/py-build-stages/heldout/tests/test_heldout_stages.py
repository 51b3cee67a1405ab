"""Held-out checks for build_stages and cycle reporting."""

import pytest

from pkgplan import graph
from pkgplan.graph import MissingDependencyError, build_order, build_stages
from pkgplan.manifest import parse_manifest


def edges_of(text):
    pkgs = parse_manifest(text)
    return {name: set(p.requires) | {d for d in p.optional if d in pkgs} for name, p in pkgs.items()}


def assert_valid_cycle(text, cycle):
    edges = edges_of(text)
    assert cycle, "cycle must not be empty"
    assert len(set(cycle)) == len(cycle), "no package repeats inside the cycle"
    assert cycle[0] == min(cycle), "cycle starts at its alphabetically smallest member"
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        assert b in edges[a], f"{a} does not depend on {b}"


def test_stage_uses_longest_dependency_chain():
    text = "d: c, a\nc: b\nb: a\na:\n"
    assert build_stages(parse_manifest(text)) == [["a"], ["b"], ["c"], ["d"]]


def test_independent_packages_share_stages_sorted():
    text = "zeta:\nalpha:\nmid: zeta\nbeta: alpha, zeta\n"
    assert build_stages(parse_manifest(text)) == [["alpha", "zeta"], ["beta", "mid"]]


def test_optional_dependency_only_when_defined():
    assert build_stages(parse_manifest("a: ?b\nb:\n")) == [["b"], ["a"]]
    assert build_stages(parse_manifest("a: ?ghost\n")) == [["a"]]


def test_empty_manifest():
    assert build_stages({}) == []
    assert build_order({}) == []


def test_stages_missing_dependency():
    with pytest.raises(MissingDependencyError) as info:
        build_stages(parse_manifest("a:\nb: a, nope\n"))
    assert (info.value.package, info.value.dependency) == ("b", "nope")


def test_stages_consistent_with_order():
    text = "app: web, db\nweb: http, tpl\ndb: sql\nsql:\nhttp:\ntpl: http\ncli: app, ?web\n"
    stages = build_stages(parse_manifest(text))
    assert stages == [["http", "sql"], ["db", "tpl"], ["web"], ["app"], ["cli"]]
    order = build_order(parse_manifest(text))
    assert sorted(order) == sorted(n for s in stages for n in s)


def test_cycle_error_is_value_error_for_both_functions():
    text = "a: b\nb: a\n"
    for fn in (build_order, build_stages):
        with pytest.raises(ValueError):
            fn(parse_manifest(text))
        with pytest.raises(graph.CycleError):
            fn(parse_manifest(text))


def test_cycle_excludes_packages_hanging_off_it():
    text = "top: m\nm: x\nx: y\ny: z\nz: m, leaf\nleaf:\n"
    for fn in (build_order, build_stages):
        with pytest.raises(graph.CycleError) as info:
            fn(parse_manifest(text))
        assert info.value.cycle == ["m", "x", "y", "z"]


def test_self_dependency_is_a_cycle():
    with pytest.raises(graph.CycleError) as info:
        build_stages(parse_manifest("ok:\nloop: loop, ok\n"))
    assert info.value.cycle == ["loop"]


def test_cycle_via_optional_dependency():
    text = "b: c\nc: ?b\n"
    with pytest.raises(graph.CycleError) as info:
        build_order(parse_manifest(text))
    assert info.value.cycle == ["b", "c"]


def test_two_cycles_any_one_reported_validly():
    text = "p: q\nq: p, r\nr: s\ns: t\nt: r\n"
    for fn in (build_order, build_stages):
        with pytest.raises(graph.CycleError) as info:
            fn(parse_manifest(text))
        assert_valid_cycle(text, info.value.cycle)


def test_long_chain_does_not_hit_recursion_limit():
    n = 5000
    lines = [f"p{i:05d}: p{i + 1:05d}" for i in range(n)] + [f"p{n:05d}:"]
    stages = build_stages(parse_manifest("\n".join(lines)))
    assert len(stages) == n + 1
    assert stages[0] == [f"p{n:05d}"] and stages[-1] == ["p00000"]


def test_long_cycle_does_not_hit_recursion_limit():
    n = 5000
    lines = [f"p{i:05d}: p{(i + 1) % n:05d}" for i in range(n)]
    with pytest.raises(graph.CycleError) as info:
        build_order(parse_manifest("\n".join(lines)))
    assert info.value.cycle == [f"p{i:05d}" for i in range(n)]
