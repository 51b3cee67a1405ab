'use strict';

// Held-out checks for quoted-field parsing.
const test = require('node:test');
const assert = require('node:assert/strict');
const { parse, stringify, CsvError } = require('../src');

function csvError(line) {
  return (err) => {
    assert.ok(err instanceof CsvError, `expected CsvError, got ${err}`);
    assert.equal(err.line, line);
    return true;
  };
}

test('line breaks inside quotes are kept verbatim', () => {
  assert.deepEqual(parse('"a\r\nb",c\r\nd,e\r\n'), [['a\r\nb', 'c'], ['d', 'e']]);
  assert.deepEqual(parse('"x\n\ny"\n'), [['x\n\ny']]);
});

test('quoted empty fields', () => {
  assert.deepEqual(parse('"",""\n'), [['', '']]);
  assert.deepEqual(parse('a,""\n""\n'), [['a', ''], ['']]);
});

test('quoted fields with the delimiter, quotes and custom delimiters', () => {
  assert.deepEqual(parse('"a,b","""",",,"\n'), [['a,b', '"', ',,']]);
  assert.deepEqual(parse('"x;y";z\n', { delimiter: ';' }), [['x;y', 'z']]);
  assert.deepEqual(parse('"tab\there"\tok\n', { delimiter: '\t' }), [['tab\there', 'ok']]);
});

test('a quote that does not start a field is literal', () => {
  assert.deepEqual(parse('ab"c,d\n'), [['ab"c', 'd']]);
  assert.deepEqual(parse(' "a",b\n'), [[' "a"', 'b']]);
  assert.deepEqual(parse('5" floppy,x\n'), [['5" floppy', 'x']]);
});

test('text after a closing quote is an error', () => {
  assert.throws(() => parse('ok\n"abc"x,1\n'), csvError(2));
  assert.throws(() => parse('"abc" ,1\n'), csvError(1));
});

test('an unterminated quote is an error at the line where the field starts', () => {
  assert.throws(() => parse('a\nb,"open\nmore\n'), csvError(2));
  assert.throws(() => parse('"'), csvError(1));
});

test('error lines count the lines of multi-line fields', () => {
  assert.throws(() => parse('a,b\n1,"x\ny"\n3\n', { header: true }), csvError(4));
  assert.throws(() => parse('a\n"p\nq\nr"\n"s"t\n'), csvError(5));
});

test('headers may be quoted', () => {
  assert.deepEqual(parse('"last, first",age\n"Lovelace, Ada",36\n', { header: true }), [
    { 'last, first': 'Lovelace, Ada', age: '36' },
  ]);
});

test('no trailing empty row, with or without a final line break', () => {
  assert.deepEqual(parse('a,"b\nc"'), [['a', 'b\nc']]);
  assert.deepEqual(parse('a,"b\nc"\r\n'), [['a', 'b\nc']]);
  assert.deepEqual(parse(''), []);
});

test('stringify output parses back to the same rows', () => {
  const rows = [
    ['plain', 'with, comma', 'with "quotes"', ''],
    ['line\nbreak', 'crlf\r\nbreak', ' leading space', 'trailing space '],
    ['"', '""', ',', '\r'],
  ];
  assert.deepEqual(parse(stringify(rows)), rows);
  assert.deepEqual(parse(stringify(rows, { delimiter: ';' }), { delimiter: ';' }), rows);
});
