'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { words, camelCase, kebabCase, titleCase } = require('../src/case');

test('words splits identifiers and phrases', () => {
  assert.deepEqual(words('parseHTTPResponse'), ['parse', 'http', 'response']);
  assert.deepEqual(words('user_id'), ['user', 'id']);
  assert.deepEqual(words('  Hello,   world  '), ['hello', 'world']);
});

test('camelCase and kebabCase', () => {
  assert.equal(camelCase('user id'), 'userId');
  assert.equal(camelCase('XMLHttpRequest'), 'xmlHttpRequest');
  assert.equal(kebabCase('backgroundColor'), 'background-color');
});

test('titleCase keeps small words lower-case inside the title', () => {
  assert.equal(titleCase('the lord of the rings'), 'The Lord of the Rings');
  assert.equal(titleCase('what it is for'), 'What It Is For');
});
