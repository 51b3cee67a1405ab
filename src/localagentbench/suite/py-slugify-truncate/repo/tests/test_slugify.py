from slugify import slugify, smart_truncate


def test_transliterates_to_ascii():
    assert slugify("影師嗎") == "ying-shi-ma"
    assert slugify("C'est déjà l'été.") == "c-est-deja-l-ete"


def test_separator_and_stopwords():
    assert slugify("the quick brown fox", separator="_") == "the_quick_brown_fox"
    assert slugify("the quick brown fox", stopwords=["the"]) == "quick-brown-fox"


def test_max_length_without_word_boundary_cuts_inside_a_word():
    assert slugify("jaja---lol-méméméoo--a", max_length=9) == "jaja-lol"


def test_word_boundary_never_exceeds_max_length():
    assert slugify("one two three", max_length=6, word_boundary=True) == "one"
