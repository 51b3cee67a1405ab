'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const stringWidth = require('..');

test('ASCII and full-width characters', () => {
	assert.equal(stringWidth('abcde'), 5);
	assert.equal(stringWidth('古池や'), 6);
	assert.equal(stringWidth('あいうabc'), 9);
});

test('ANSI escape codes take no columns', () => {
	assert.equal(stringWidth('\u001B[1m古\u001B[22m'), 2);
	assert.equal(stringWidth('\u001B]8;;https://x\u0007link\u001B]8;;\u0007'), 4);
});

test('emoji are two columns', () => {
	assert.equal(stringWidth('🦄'), 2);
	assert.equal(stringWidth('👨‍👩‍👧'), 2);
});

test('empty and non-string input', () => {
	assert.equal(stringWidth(''), 0);
	assert.equal(stringWidth(42), 0);
});

test('a full-width character outside the BMP is two columns', () => {
	assert.equal(stringWidth('\u{20000}'), 2);
});
