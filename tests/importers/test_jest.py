"""Jest files converted to node:test mechanically; error messages the tests assert, read."""

from __future__ import annotations

import shutil

import pytest
from tests.importers._track import (
    CIRCULAR_BUFFER_TEST,
    LEAP_TEST,
    TWO_FER_EXAMPLE,
    TWO_FER_SPEC,
)

from localagentbench._proc import run_process
from localagentbench.importers._jest import (
    EXPECT_FILE,
    EXPECT_MODULE,
    JestError,
    commonjs_use,
    esm_imports,
    to_node_test,
)
from localagentbench.importers._messages import asserted_messages, missing_from


def test_relative_imports_get_the_js_extension() -> None:
    source = "import { a } from './a';\nimport b from '../lib/b.js';\nimport c from 'node:fs';\n"
    assert esm_imports(source) == (
        "import { a } from './a.js';\nimport b from '../lib/b.js';\nimport c from 'node:fs';\n"
    )


def test_a_file_using_the_jest_object_is_refused_with_the_reason() -> None:
    with pytest.raises(JestError, match=r"jest\.fn"):
        to_node_test("test('x', () => { const f = jest.fn(); });\n", "./" + EXPECT_FILE)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_converted_tests_run_under_node_test_and_matchers_fail_when_they_should(tmp_path) -> None:
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / EXPECT_FILE).write_text(EXPECT_MODULE)
    (tmp_path / "two-fer.js").write_text(TWO_FER_EXAMPLE)
    extra = (
        "\ntest('matchers', async () => {\n"
        "  expect({ a: [1, { b: undefined }] }).toEqual({ a: [1, {}] });\n"
        "  expect([1, 2]).not.toContain(3);\n"
        "  expect(0.1 + 0.2).toBeCloseTo(0.3);\n"
        "  expect(() => { throw new RangeError('bad'); }).toThrow(RangeError);\n"
        "  await expect(Promise.reject(new Error('no'))).rejects.toThrow('no');\n"
        "  expect(() => expect(1).toBe(2)).toThrow('expected 1 to be 2');\n"
        "  expect(() => expect(1).toBeFrobbed()).toThrow('not supported');\n"
        "});\n"
    )
    (tmp_path / "two-fer.spec.js").write_text(
        to_node_test(TWO_FER_SPEC + extra, "./" + EXPECT_FILE)
    )
    done = run_process(["node", "--test", "two-fer.spec.js"], cwd=tmp_path, timeout_s=120)
    assert done.exit_code == 0, done.stdout + done.stderr
    assert "# pass 5" in done.stdout


def test_asserted_messages_are_read_from_python_and_javascript_tests() -> None:
    assert asserted_messages(LEAP_TEST, "python") == [("ValueError", "year must be positive")]
    assert asserted_messages(TWO_FER_SPEC, "javascript") == [("Error", "name must not be empty")]
    regex = "expect(() => f()).toThrow('plain text');\n"
    assert asserted_messages(regex, "javascript") == [("Error", "plain text")]


def test_only_messages_the_instructions_lack_are_added() -> None:
    pairs = [("ValueError", "Year must be positive"), ("ValueError", "too big")]
    text = "Raise an error: year must be positive."
    assert missing_from(text, pairs) == [("ValueError", "too big")]


def test_the_message_names_the_class_a_type_check_demands_not_the_assert_raises_base() -> None:
    """circular-buffer: ``assertRaises(BufferError)``, then ``type(err.exception)`` must be
    ``BufferEmptyException``: the prompt must name the class the tests accept."""
    assert asserted_messages(CIRCULAR_BUFFER_TEST, "python") == [
        ("BufferEmptyException", "Circular buffer is empty"),
        ("BufferFullException", "Circular buffer is full"),
    ]
    forms = {
        "self.assertIsInstance(err.exception, EmptyError)": "EmptyError",
        "self.assertIs(type(err.exception), EmptyError)": "EmptyError",
        "self.assertEqual(EmptyError, type(err.exception))": "EmptyError",
        "self.assertEqual(type(other.exception), EmptyError)": "BufferError",  # not this block's
        "self.assertEqual(len(err.exception.args), 1)": "BufferError",
    }
    for check, kind in forms.items():
        source = (
            "class T(unittest.TestCase):\n"
            "    def test_x(self):\n"
            "        with self.assertRaises(BufferError) as err:\n"
            "            read()\n"
            '        self.assertEqual(err.exception.args[0], "empty")\n'
            f"        {check}\n"
        )
        assert asserted_messages(source, "python") == [(kind, "empty")], check
    # each block keeps its own class: a type check narrows the block it follows only
    two = (
        "def test_x(self):\n"
        "    with self.assertRaises(ValueError) as err:\n"
        "        f()\n"
        '    self.assertEqual(err.exception.args[0], "one")\n'
        "    with self.assertRaises(BufferError) as err:\n"
        "        g()\n"
        "    self.assertEqual(type(err.exception), FullError)\n"
        '    self.assertEqual(err.exception.args[0], "two")\n'
    )
    assert asserted_messages(two, "python") == [("ValueError", "one"), ("FullError", "two")]


def test_commonjs_files_are_refused_with_what_they_use() -> None:
    """Exercism grep's spec and the word-search and parallel-letter-frequency examples are
    CommonJS, which the converted (ES module) tests cannot load."""
    spec = "const { test, expect } = require('@jest/globals');\ntest('x', () => {});\n"
    with pytest.raises(JestError, match=r"CommonJS file \(uses require\)"):
        to_node_test(spec, "./" + EXPECT_FILE)
    assert commonjs_use("class W {}\n\nmodule.exports = W;\n") == "module.exports"
    assert commonjs_use("const { Worker } = require('node:worker_threads');\n") == "require"
    # ES modules, comments and methods named like it are not CommonJS
    assert commonjs_use(TWO_FER_EXAMPLE) is None
    assert commonjs_use("// module.exports = x was the old way\nexport const a = 1;\n") is None
    assert commonjs_use("export const f = (m) => m.require('x');\n") is None
