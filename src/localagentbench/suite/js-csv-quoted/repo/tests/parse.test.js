'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { parse, CsvError } = require('../src');

test('simple rows', () => {
  assert.deepEqual(parse('name,age\nAda,36\n'), [['name', 'age'], ['Ada', '36']]);
  assert.deepEqual(parse('a,b\r\nc,d'), [['a', 'b'], ['c', 'd']]);
});

test('empty fields', () => {
  assert.deepEqual(parse(',x,\n'), [['', 'x', '']]);
});

test('header rows become objects', () => {
  assert.deepEqual(parse('name,age\nAda,36\nAlan,41\n', { header: true }), [
    { name: 'Ada', age: '36' },
    { name: 'Alan', age: '41' },
  ]);
});

test('custom delimiter', () => {
  assert.deepEqual(parse('a;b\n1;2\n', { delimiter: ';' }), [['a', 'b'], ['1', '2']]);
});

test('quoted field containing the delimiter', () => {
  assert.deepEqual(parse('id,title\n1,"Hello, world"\n'), [['id', 'title'], ['1', 'Hello, world']]);
});

test('escaped quotes inside a quoted field', () => {
  assert.deepEqual(parse('"say ""hi"""\n'), [['say "hi"']]);
});

test('quoted field spanning lines', () => {
  assert.deepEqual(parse('id,note\n1,"first\nsecond"\n2,x\n'), [['id', 'note'], ['1', 'first\nsecond'], ['2', 'x']]);
});

test('wrong number of fields with a header', () => {
  assert.throws(() => parse('a,b\n1,2\n3\n', { header: true }), (err) => err instanceof CsvError && err.line === 3);
});
