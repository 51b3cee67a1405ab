"""A small Exercism-shaped track laid out in a test's tmp_path (the layout of the real tracks:
``config.json``, ``exercises/practice/<slug>/`` with ``.docs``, ``.meta`` and the stub)."""

from __future__ import annotations

import json
from pathlib import Path

LEAP_TEST = """\
import unittest

from leap import leap_year


class LeapTest(unittest.TestCase):
    def test_year_not_divisible_by_4_in_common_year(self):
        self.assertIs(leap_year(2015), False)

    def test_year_divisible_by_4_not_divisible_by_100_in_leap_year(self):
        self.assertIs(leap_year(1996), True)

    def test_year_divisible_by_100_not_divisible_by_400_in_common_year(self):
        self.assertIs(leap_year(2100), False)

    def test_year_divisible_by_400_is_leap_year(self):
        self.assertIs(leap_year(2000), True)

    def test_negative_year_is_refused(self):
        with self.assertRaises(ValueError) as err:
            leap_year(-4)
        self.assertEqual(err.exception.args[0], "year must be positive")
"""

LEAP_EXAMPLE = """\
def leap_year(year):
    if year < 0:
        raise ValueError("year must be positive")
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
"""

WRONG_EXAMPLE = "def leap_year(year):\n    return year % 4 == 0\n"

TWO_FER_SPEC = """\
import { describe, expect, test, xtest } from '@jest/globals';
import { twoFer } from './two-fer';

describe('twoFer()', () => {
  test('no name given', () => {
    expect(twoFer()).toEqual('One for you, one for me.');
  });

  xtest('a name given', () => {
    expect(twoFer('Alice')).toEqual('One for Alice, one for me.');
  });

  xtest('another name given', () => {
    expect(twoFer('Bob')).toEqual('One for Bob, one for me.');
  });

  xtest('an empty name is refused', () => {
    expect(() => twoFer('')).toThrow(new Error('name must not be empty'));
  });
});
"""

TWO_FER_EXAMPLE = """\
export const twoFer = (name = 'you') => {
  if (name === '') {
    throw new Error('name must not be empty');
  }
  return `One for ${name}, one for me.`;
};
"""

CIRCULAR_BUFFER_STUB = """\
class BufferFullException(BufferError):
    def __init__(self, message):
        pass


class BufferEmptyException(BufferError):
    def __init__(self, message):
        pass


class CircularBuffer:
    def __init__(self, capacity):
        pass

    def read(self):
        pass

    def write(self, data):
        pass
"""
"""Exercism Python's circular-buffer stub, cut down: the tests' exception classes are the
stub's, subclasses of the built-in ``BufferError``."""

CIRCULAR_BUFFER_TEST = """\
import unittest

from circular_buffer import (
    CircularBuffer,
    BufferEmptyException,
    BufferFullException,
)


class CircularBufferTest(unittest.TestCase):
    def test_reading_empty_buffer_should_fail(self):
        buf = CircularBuffer(1)
        with self.assertRaises(BufferError) as err:
            buf.read()

        self.assertEqual(type(err.exception), BufferEmptyException)
        self.assertEqual(err.exception.args[0], "Circular buffer is empty")

    def test_can_read_an_item_just_written(self):
        buf = CircularBuffer(1)
        buf.write("1")
        self.assertEqual(buf.read(), "1")

    def test_full_buffer_can_t_be_written_to(self):
        buf = CircularBuffer(1)
        buf.write("1")
        with self.assertRaises(BufferError) as err:
            buf.write("2")

        self.assertEqual(type(err.exception), BufferFullException)
        self.assertEqual(err.exception.args[0], "Circular buffer is full")
"""
"""Its tests as the track writes them: ``assertRaises`` names the built-in base class, an exact
type check after the block the class the tests expect."""

CIRCULAR_BUFFER_EXAMPLE = """\
class BufferFullException(BufferError):
    def __init__(self, message):
        self.message = message


class BufferEmptyException(BufferError):
    def __init__(self, message):
        self.message = message


class CircularBuffer:
    def __init__(self, capacity):
        self.capacity = capacity
        self.items = []

    def read(self):
        if not self.items:
            raise BufferEmptyException("Circular buffer is empty")
        return self.items.pop(0)

    def write(self, data):
        if len(self.items) == self.capacity:
            raise BufferFullException("Circular buffer is full")
        self.items.append(data)
"""

HAMMING_TEST = """\
package hamming

import (
\t"strings"
\t"testing"
)

func TestEmptyStrands(t *testing.T) {
\tif got, err := Distance("", ""); err != nil || got != 0 {
\t\tt.Fatalf("Distance(\\"\\", \\"\\") = %d, %v; want 0, nil", got, err)
\t}
}

// TestDifferentStrands compares strands of one length.
func TestDifferentStrands(t *testing.T) {
\tif got, _ := Distance("GGACTGA", "GGACTGT"); got != 1 {
\t\tt.Fatalf("got %d, want 1", got)
\t}
}

func TestUnequalLengths(t *testing.T) {
\tif _, err := Distance(strings.Repeat("A", 2), "A"); err == nil {
\t\tt.Fatal("want an error for strands of different lengths")
\t}
}
"""

HAMMING_EXAMPLE = """\
package hamming

import "errors"

// Distance counts the positions where two strands differ.
func Distance(a, b string) (int, error) {
\tif len(a) != len(b) {
\t\treturn 0, errors.New("strands must be of equal length")
\t}
\tcount := 0
\tfor i := range a {
\t\tif a[i] != b[i] {
\t\t\tcount++
\t\t}
\t}
\treturn count, nil
}
"""


def _exercise(
    root: Path,
    slug: str,
    files: dict[str, str],
    meta: dict[str, list[str]],
    instructions: str,
) -> None:
    folder = root / "exercises" / "practice" / slug
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (folder / ".docs").mkdir(parents=True, exist_ok=True)
    (folder / ".docs" / "instructions.md").write_text(instructions)
    (folder / ".meta" / "config.json").write_text(
        json.dumps({"authors": ["someone"], "files": meta, "blurb": slug})
    )


def _config(root: Path, language: str, exercises: list[tuple[str, int]]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "LICENSE").write_text("MIT License\n\nCopyright (c) Exercism\n")
    practice = [
        {"slug": slug, "name": slug.replace("-", " ").title(), "uuid": slug, "difficulty": level}
        for slug, level in exercises
    ]
    (root / "config.json").write_text(
        json.dumps(
            {"language": language, "slug": language.lower(), "exercises": {"practice": practice}}
        )
    )


def python_track(root: Path, *, broken: bool = True) -> Path:
    """``leap`` (its example right) and, with ``broken``, ``leap-broken`` (its example wrong)."""
    exercises = [("leap", 1)] + ([("leap-broken", 2)] if broken else [])
    _config(root, "Python", exercises)
    for slug, example in (("leap", LEAP_EXAMPLE), ("leap-broken", WRONG_EXAMPLE)):
        if slug == "leap-broken" and not broken:
            continue
        _exercise(
            root,
            slug,
            {
                "leap.py": "def leap_year(year):\n    pass\n",
                "leap_test.py": LEAP_TEST,
                ".meta/example.py": example,
            },
            {"solution": ["leap.py"], "test": ["leap_test.py"], "example": [".meta/example.py"]},
            "# Instructions\n\nGiven a year, report if it is a leap year.\n",
        )
    return root


def circular_buffer_track(root: Path) -> Path:
    """Exercism Python's ``circular-buffer``, cut down to three tests."""
    _config(root, "Python", [("circular-buffer", 3)])
    _exercise(
        root,
        "circular-buffer",
        {
            "circular_buffer.py": CIRCULAR_BUFFER_STUB,
            "circular_buffer_test.py": CIRCULAR_BUFFER_TEST,
            ".meta/example.py": CIRCULAR_BUFFER_EXAMPLE,
        },
        {
            "solution": ["circular_buffer.py"],
            "test": ["circular_buffer_test.py"],
            "example": [".meta/example.py"],
        },
        "# Instructions\n\nA circular buffer uses a single, fixed-size buffer.\n\n"
        "Create two custom exceptions, one raised when the buffer is full and one when it is "
        "empty.\n",
    )
    return root


def javascript_track(root: Path) -> Path:
    _config(root, "JavaScript", [("two-fer", 1)])
    _exercise(
        root,
        "two-fer",
        {
            "two-fer.js": "export const twoFer = () => {\n  throw new Error('Remove me');\n};\n",
            "two-fer.spec.js": TWO_FER_SPEC,
            ".meta/proof.ci.js": TWO_FER_EXAMPLE,
            "package.json": '{"devDependencies": {"jest": "^29"}}\n',
            "babel.config.js": "module.exports = {};\n",
        },
        {
            "solution": ["two-fer.js"],
            "test": ["two-fer.spec.js"],
            "example": [".meta/proof.ci.js"],
        },
        '# Instructions\n\nCreate a sentence of the form "One for X, one for me."\n',
    )
    return root


def go_track(root: Path) -> Path:
    _config(root, "Go", [("hamming", 4)])
    _exercise(
        root,
        "hamming",
        {
            "go.mod": "module hamming\n\ngo 1.18\n",
            "hamming.go": "package hamming\n\nfunc Distance(a, b string) (int, error) {\n"
            '\tpanic("Please implement the Distance function")\n}\n',
            "hamming_test.go": HAMMING_TEST,
            ".meta/example.go": HAMMING_EXAMPLE,
        },
        {
            "solution": ["hamming.go"],
            "test": ["hamming_test.go"],
            "example": [".meta/example.go"],
        },
        "# Instructions\n\nCount the differences between two DNA strands.\n",
    )
    return root
