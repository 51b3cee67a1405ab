import itertools

from slugify import slugify, smart_truncate


def test_exact_fit_keeps_the_word():
    assert slugify("one two three", max_length=7, word_boundary=True) == "one-two"


def test_long_word_skipped_unless_save_order():
    text = "jaja---lol-méméméoo--a"
    assert slugify(text, max_length=15, word_boundary=True) == "jaja-lol-a"
    assert slugify(text, max_length=17, word_boundary=True, save_order=True) == "jaja-lol-mememeoo"
    assert slugify(text, max_length=12, word_boundary=True, save_order=True) == "jaja-lol"


def test_smart_truncate_directly():
    assert smart_truncate("aa bb cc", max_length=4, word_boundary=True) == "aa"
    assert smart_truncate("aa bb cc", max_length=5, word_boundary=True) == "aa bb"


def test_no_slug_is_longer_than_max_length():
    words = ["a", "bb", "ccc", "dddd", "eeeee"]
    for combo in itertools.permutations(words, 4):
        text = " ".join(combo)
        for limit in range(3, 20):
            for save_order in (False, True):
                slug = slugify(text, max_length=limit, word_boundary=True, save_order=save_order)
                assert len(slug) <= limit, (text, limit, save_order, slug)
