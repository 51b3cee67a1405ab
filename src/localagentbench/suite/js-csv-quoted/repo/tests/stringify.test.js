'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { stringify } = require('../src');

test('plain fields are not quoted', () => {
  assert.equal(stringify([['a', 'b'], ['1', '2']]), 'a,b\r\n1,2\r\n');
});

test('fields that need it are quoted', () => {
  assert.equal(stringify([['hello, world', 'say "hi"', 'two\nlines', ' pad']]),
    '"hello, world","say ""hi""","two\nlines"," pad"\r\n');
});

test('custom delimiter and empty values', () => {
  assert.equal(stringify([['a;b', null, 3]], { delimiter: ';' }), '"a;b";;3\r\n');
});
