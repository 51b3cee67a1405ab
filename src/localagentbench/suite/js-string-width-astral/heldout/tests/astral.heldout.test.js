'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const stringWidth = require('..');

test('heldout: several astral characters in a row', () => {
	assert.equal(stringWidth('\u{20000}\u{20001}a'), 5);
	assert.equal(stringWidth('\u{1D400}\u{1D401}'), 2);
});

test('heldout: combining marks still take no column', () => {
	assert.equal(stringWidth('x\u0300y'), 2);
	assert.equal(stringWidth('\u{20000}\u0301'), 2);
});

test('heldout: astral characters mixed with ANSI codes and emoji', () => {
	assert.equal(stringWidth('\u001B[31m\u{20000}\u001B[39m🦄z'), 5);
	assert.equal(stringWidth('\u{1F1FA}\u{1F1F8}\u{2A6D6}'), 4);
});
