import pytest

from strtools import title_case


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a tale of two cities", "A Tale of Two Cities"),
        ("what are you looking at", "What Are You Looking At"),
        ("  war   AND peace ", "War and Peace"),
        ("THE END", "The End"),
        ("of", "Of"),
        ("", ""),
        ("x-ray vision", "X-ray Vision"),
    ],
)
def test_title_case(text, expected):
    assert title_case(text) == expected
