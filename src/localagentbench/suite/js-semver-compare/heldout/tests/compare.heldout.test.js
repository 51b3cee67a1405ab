'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { compare, sort } = require('../src');

const ORDERED = [
  '1.0.0-alpha',
  '1.0.0-alpha.1',
  '1.0.0-alpha.beta',
  '1.0.0-beta',
  '1.0.0-beta.2',
  '1.0.0-beta.11',
  '1.0.0-rc.1',
  '1.0.0',
  '1.0.1',
  '1.2.0',
  '1.10.0',
  '2.0.0-0',
  '2.0.0',
  '10.0.0',
];

test('the SemVer spec precedence example, pairwise', () => {
  for (let i = 0; i < ORDERED.length; i++) {
    for (let j = 0; j < ORDERED.length; j++) {
      const want = i < j ? -1 : i > j ? 1 : 0;
      assert.equal(compare(ORDERED[i], ORDERED[j]), want, `${ORDERED[i]} vs ${ORDERED[j]}`);
    }
  }
});

test('build metadata is ignored', () => {
  assert.equal(compare('1.0.0+build.1', '1.0.0+build.2'), 0);
  assert.equal(compare('1.0.0-rc.1+x', '1.0.0'), -1);
});

test('identifiers compare in ASCII order, numbers below words', () => {
  assert.equal(compare('1.0.0-Beta', '1.0.0-alpha'), -1);
  assert.equal(compare('1.0.0-1', '1.0.0-a'), -1);
  assert.equal(compare('1.0.0-a-b', '1.0.0-a'), 1);
  assert.equal(compare('1.0.0-9', '1.0.0-10'), -1);
});

test('sort returns a new sorted array and is stable', () => {
  const input = ['1.0.0', '1.0.0-rc.1', '1.0.0+b', '0.9.0', '1.0.0+a'];
  const copy = [...input];
  assert.deepEqual(sort(input), ['0.9.0', '1.0.0-rc.1', '1.0.0', '1.0.0+b', '1.0.0+a']);
  assert.deepEqual(input, copy);
  const shuffled = [...ORDERED].reverse();
  assert.deepEqual(sort(shuffled), ORDERED);
});

test('invalid versions throw', () => {
  assert.throws(() => compare('1.0', '1.0.0'), { name: 'VersionError' });
});
