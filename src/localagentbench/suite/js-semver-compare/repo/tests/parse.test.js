'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { parse, VersionError } = require('../src');

test('parses all parts', () => {
  assert.deepEqual(parse('1.2.3-beta.1+build.5'), {
    major: 1, minor: 2, patch: 3, prerelease: ['beta', 1], build: ['build', '5'],
  });
});

test('rejects invalid versions', () => {
  for (const bad of ['1.2', 'v1.2.3', '01.2.3', '1.2.3-', '1.2.3-beta..1', '1.2.3-01', '1.2.3+', 'a.b.c']) {
    assert.throws(() => parse(bad), VersionError, bad);
  }
});
