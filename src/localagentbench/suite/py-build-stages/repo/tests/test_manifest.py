import pytest

from pkgplan.manifest import ManifestError, parse_manifest

EXAMPLE = """
# package: dependencies
app: web, db, ?metrics
web: http, templates   # trailing comment
db:
http:
templates:
"""


def test_parse_example():
    pkgs = parse_manifest(EXAMPLE)
    assert list(pkgs) == ["app", "web", "db", "http", "templates"]
    assert pkgs["app"].requires == ["web", "db"]
    assert pkgs["app"].optional == ["metrics"]
    assert pkgs["db"].requires == []


def test_duplicate_package():
    with pytest.raises(ManifestError) as info:
        parse_manifest("a:\nb:\na: b\n")
    assert info.value.lineno == 3


def test_bad_line():
    with pytest.raises(ManifestError):
        parse_manifest("just words\n")


def test_bad_name():
    with pytest.raises(ManifestError):
        parse_manifest("App: x\n")
