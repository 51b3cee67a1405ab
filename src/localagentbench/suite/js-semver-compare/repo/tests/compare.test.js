'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { compare } = require('../src');

test('core versions', () => {
  assert.equal(compare('1.2.3', '1.2.4'), -1);
  assert.equal(compare('2.0.0', '1.9.9'), 1);
  assert.equal(compare('1.2.3', '1.2.3'), 0);
});

test('numeric parts compare as numbers', () => {
  assert.equal(compare('1.10.0', '1.9.0'), 1);
});
