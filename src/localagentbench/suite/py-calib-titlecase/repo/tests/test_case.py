from strtools import squash_spaces, title_case


def test_squash_spaces():
    assert squash_spaces("  a \t b\n c ") == "a b c"


def test_title_case_basic():
    assert title_case("the lord of the rings") == "The Lord of the Rings"
