'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { slugify, uniqueSlug } = require('../src/slug');

test('basic slug', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
  assert.equal(slugify('release 2024'), 'release-2024');
});

test('punctuation runs collapse into one separator', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
  assert.equal(slugify('rock & roll -- live'), 'rock-roll-live');
});

test('accented letters keep their base letter', () => {
  assert.equal(slugify('Crème brûlée'), 'creme-brulee');
});

test('custom separator', () => {
  assert.equal(slugify('Hello World', { separator: '_' }), 'hello_world');
});

test('lowercase can be turned off', () => {
  assert.equal(slugify('Hello World', { lowercase: false }), 'Hello-World');
});

test('rejects non-strings', () => {
  assert.throws(() => slugify(42), TypeError);
});

test('uniqueSlug appends a counter', () => {
  const taken = new Set(['intro']);
  assert.equal(uniqueSlug('Intro', taken), 'intro-2');
  assert.equal(uniqueSlug('Intro', taken), 'intro-3');
  assert.ok(taken.has('intro-3'));
});
