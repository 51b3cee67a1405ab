'use strict';

// Held-out checks for slugify/uniqueSlug edge cases.
const test = require('node:test');
const assert = require('node:assert/strict');
const { slugify, uniqueSlug } = require('../src/slug');

test('diacritics are removed from many Latin letters', () => {
  assert.equal(slugify('Ångström über Café'), 'angstrom-uber-cafe');
  assert.equal(slugify('naïve façade, señor'), 'naive-facade-senor');
  assert.equal(slugify('Émile Zola', { lowercase: false }), 'Emile-Zola');
});

test('symbols and emoji act as word breaks', () => {
  assert.equal(slugify('I ❤ Unicode'), 'i-unicode');
  assert.equal(slugify('tabs\tand\nnewlines'), 'tabs-and-newlines');
  assert.equal(slugify('50% off — today only!'), '50-off-today-only');
});

test('no separator at either end', () => {
  assert.equal(slugify('  --Hello--  '), 'hello');
  assert.equal(slugify('...what?!'), 'what');
  assert.equal(slugify('!!!'), '');
});

test('maxLength never leaves a trailing separator', () => {
  assert.equal(slugify('hello wonderful world', { maxLength: 6 }), 'hello');
  assert.equal(slugify('hello wonderful world', { maxLength: 10 }), 'hello-wond');
  assert.equal(slugify('hello wonderful world', { maxLength: 15 }), 'hello-wonderful');
  assert.equal(slugify('Crème brûlée', { maxLength: 100 }), 'creme-brulee');
});

test('separators that are special in regular expressions', () => {
  assert.equal(slugify('Hello World', { separator: '.' }), 'hello.world');
  assert.equal(slugify('v1 -- release notes', { separator: '.' }), 'v1.release.notes');
  assert.equal(slugify('a b', { separator: '+' }), 'a+b');
  assert.equal(slugify('(a) [b]', { separator: '*' }), 'a*b');
});

test('multi-character separators', () => {
  assert.equal(slugify('a b  c', { separator: '--' }), 'a--b--c');
  assert.equal(slugify('  !a! ', { separator: '--' }), 'a');
  assert.equal(slugify('ab cd', { separator: '--', maxLength: 3 }), 'ab');
});

test('uniqueSlug works with the fixed slugify', () => {
  const taken = new Set(['cafe']);
  assert.equal(uniqueSlug('Café', taken), 'cafe-2');
  assert.equal(uniqueSlug('!!!', taken), 'untitled');
  assert.equal(uniqueSlug('Hello World', new Set(['hello.world']), { separator: '.' }), 'hello.world.2');
});
