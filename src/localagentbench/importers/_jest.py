"""Jest test files made to run under ``node --test`` with no package installed.

The conversion is mechanical: the ``@jest/globals`` import goes, ``describe``/``test``/``it``
and the hooks come from ``node:test`` (``xtest`` and friends run too: Exercism marks every
test after the first as pending, and its CI runs them all), relative imports get the
``.js`` ECMAScript modules need, and ``expect`` comes from a small module written beside
the tests (``EXPECT_MODULE``) that implements the matchers Exercism's tests use over
``node:assert``. A file that uses the ``jest`` object itself (mocks, timers) is refused
with that reason: there is no honest mechanical conversion of it.
"""

from __future__ import annotations

import re

__all__ = [
    "EXPECT_FILE",
    "EXPECT_MODULE",
    "JestError",
    "commonjs_use",
    "esm_imports",
    "to_node_test",
]

EXPECT_FILE = "lab-expect.js"

EXPECT_MODULE = r"""// expect() for node:test: the Jest matchers imported tests use, over
// node:assert.
import assert from 'node:assert/strict';

function equals(a, b, strict) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Map && b instanceof Map) {
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && equals(v, b.get(k), strict));
  }
  if (a instanceof Set && b instanceof Set) {
    return a.size === b.size && [...a].every((v) => [...b].some((w) => equals(v, w, strict)));
  }
  const keys = (o) => Object.keys(o).filter((k) => strict || o[k] !== undefined);
  const ka = keys(a), kb = keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equals(a[k], b[k], strict));
}

function matchesObject(actual, subset) {
  if (typeof subset !== 'object' || subset === null) return equals(actual, subset, false);
  if (typeof actual !== 'object' || actual === null) return false;
  return Object.keys(subset).every((k) => matchesObject(actual[k], subset[k]));
}

function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return { error };
  }
  return null;
}

function throwMatches(caught, expected) {
  if (!caught) return false;
  const { error } = caught;
  const message = error && error.message !== undefined ? error.message : String(error);
  if (expected === undefined) return true;
  if (typeof expected === 'string') return message.includes(expected);
  if (expected instanceof RegExp) return expected.test(message);
  if (typeof expected === 'function') return error instanceof expected;
  if (expected instanceof Error) return message === expected.message;
  return false;
}

const show = (v) => {
  try {
    return typeof v === 'string' ? JSON.stringify(v) : String(JSON.stringify(v) ?? v);
  } catch {
    return String(v);
  }
};

function matchers(actual) {
  return {
    toBe: (e) => [Object.is(actual, e), `${show(actual)} to be ${show(e)}`],
    toEqual: (e) => [equals(actual, e, false), `${show(actual)} to equal ${show(e)}`],
    toStrictEqual: (e) => [equals(actual, e, true), `${show(actual)} to strictly equal ${show(e)}`],
    toBeCloseTo: (e, digits = 2) => [
      Math.abs(actual - e) < 10 ** -digits / 2,
      `${actual} to be close to ${e} (${digits} digits)`,
    ],
    toBeTruthy: () => [Boolean(actual), `${show(actual)} to be truthy`],
    toBeFalsy: () => [!actual, `${show(actual)} to be falsy`],
    toBeNull: () => [actual === null, `${show(actual)} to be null`],
    toBeUndefined: () => [actual === undefined, `${show(actual)} to be undefined`],
    toBeDefined: () => [actual !== undefined, `value to be defined`],
    toBeNaN: () => [Number.isNaN(actual), `${show(actual)} to be NaN`],
    toBeGreaterThan: (e) => [actual > e, `${actual} > ${e}`],
    toBeGreaterThanOrEqual: (e) => [actual >= e, `${actual} >= ${e}`],
    toBeLessThan: (e) => [actual < e, `${actual} < ${e}`],
    toBeLessThanOrEqual: (e) => [actual <= e, `${actual} <= ${e}`],
    toBeInstanceOf: (e) => [actual instanceof e, `value to be an instance of ${e && e.name}`],
    toContain: (e) => [
      actual != null && actual.includes(e),
      `${show(actual)} to contain ${show(e)}`,
    ],
    toContainEqual: (e) => [
      Array.from(actual).some((v) => equals(v, e, false)),
      `${show(actual)} to contain an item equal to ${show(e)}`,
    ],
    toHaveLength: (e) => [
      actual != null && actual.length === e,
      `length ${actual && actual.length} to be ${e}`,
    ],
    toHaveProperty: (key, ...value) => [
      actual != null && key in Object(actual)
        && (value.length === 0 || equals(actual[key], value[0], false)),
      `value to have property ${show(key)}`,
    ],
    toMatch: (e) => [
      typeof actual === 'string' && (e instanceof RegExp ? e.test(actual) : actual.includes(e)),
      `${show(actual)} to match ${String(e)}`,
    ],
    toMatchObject: (e) => [matchesObject(actual, e), `${show(actual)} to match ${show(e)}`],
    toThrow: (e) => [
      throwMatches(typeof actual === 'function' ? thrown(actual) : null, e),
      `function to throw ${
        e === undefined ? 'an error' : show(e instanceof Error ? e.message : e)
      }`,
    ],
  };
}

function build(actual, negate) {
  const table = matchers(actual);
  table.toThrowError = table.toThrow;
  const out = {};
  for (const [name, check] of Object.entries(table)) {
    out[name] = (...args) => {
      const [ok, text] = check(...args);
      if (ok === negate) assert.fail(`expected ${negate ? 'not ' : ''}${text}`);
    };
  }
  return out;
}

function settled(promise, negate, wantRejection) {
  const table = matchers(undefined);
  const out = {};
  for (const name of [...Object.keys(table), 'toThrowError']) {
    out[name] = async (...args) => {
      let value, rejected = false;
      try {
        value = await promise;
      } catch (error) {
        value = error;
        rejected = true;
      }
      if (rejected !== wantRejection) {
        assert.fail(`expected the promise to ${wantRejection ? 'reject' : 'resolve'}`);
      }
      const target = wantRejection && name.startsWith('toThrow') ? () => { throw value; } : value;
      build(target, negate)[name](...args);
    };
  }
  return out;
}

function unsupported(target) {
  return new Proxy(target, {
    get(obj, key) {
      if (key in obj || typeof key === 'symbol') return obj[key];
      throw new Error(`expect().${String(key)} is not supported by ${'lab-expect.js'}`);
    },
  });
}

export function expect(actual) {
  const positive = build(actual, false);
  positive.not = unsupported(build(actual, true));
  positive.resolves = unsupported(settled(actual, false, false));
  positive.rejects = unsupported(settled(actual, false, true));
  positive.resolves.not = unsupported(settled(actual, true, false));
  positive.rejects.not = unsupported(settled(actual, true, true));
  return unsupported(positive);
}
"""
"""What the converted tests import ``expect`` from (written by the importer beside them)."""

_JEST_GLOBALS = re.compile(
    r"""^\s*import\s*\{[^}]*\}\s*from\s*['"]@jest/globals['"];?[ \t]*\n""", re.M
)
_RELATIVE_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}/[^'"]+?)\2""")
_HEADER = (
    "import { describe, test, it, before as beforeAll, after as afterAll, beforeEach, "
    "afterEach } from 'node:test';\n"
    "import { expect } from 'EXPECT';\n"
    "const xtest = test, xit = it, xdescribe = describe;\n"
)


class JestError(ValueError):
    """The file uses Jest in a way with no mechanical node:test equivalent."""


_COMMONJS = re.compile(r"\bmodule\.exports\b|\bexports\.\w+\s*=|(?<![.\w])require\(\s*['\"]")


def commonjs_use(source: str) -> str | None:
    """The first CommonJS construct (``require('...')``, ``module.exports``) in a file, or None.

    Converted files run as ECMAScript modules (``"type": "module"``), where neither exists:
    such a file cannot run as converted (Jest ran it through Babel)."""
    for line in source.splitlines():
        code = line.split("//", 1)[0]
        found = _COMMONJS.search(code)
        if found:
            return found.group(0).rstrip("('\" ")
    return None


def esm_imports(source: str) -> str:
    """Relative import specifiers given the ``.js`` extension ECMAScript modules need."""

    def add(match: re.Match[str]) -> str:
        path = match.group(3)
        if re.search(r"\.(c|m)?js$|\.json$", path):
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{path}.js{match.group(2)}"

    return _RELATIVE_IMPORT.sub(add, source)


def to_node_test(source: str, expect_path: str) -> str:
    """A Jest test file as a ``node --test`` file importing ``expect`` from ``expect_path``."""
    if re.search(r"\bjest\.\w+", source):
        used = sorted(set(re.findall(r"\bjest\.\w+", source)))
        raise JestError(f"uses {', '.join(used)}, which has no node:test equivalent here")
    if re.search(r"\b(test|it|describe)\.each\b", source):
        raise JestError("uses test.each/describe.each, which node:test lacks")
    construct = commonjs_use(source)
    if construct is not None:
        raise JestError(f"is a CommonJS file (uses {construct}), which cannot run as an ES module")
    body = _JEST_GLOBALS.sub("", source)
    body = re.sub(r"\b(x?test|x?it|x?describe)\.only\(", r"\1(", body)
    header = _HEADER.replace("'EXPECT'", repr(expect_path))
    return header + esm_imports(body)
