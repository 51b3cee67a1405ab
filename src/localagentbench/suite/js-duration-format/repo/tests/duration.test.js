'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { parseDuration, formatDuration } = require('../src/duration');

test('parse combined units', () => {
  assert.equal(parseDuration('1h30m'), 5400000);
  assert.equal(parseDuration('2d'), 172800000);
  assert.equal(parseDuration('1.5h'), 5400000);
  assert.equal(parseDuration(' 45s '), 45000);
});

test('parse milliseconds', () => {
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('1s500ms'), 1500);
  assert.equal(parseDuration('2m30s250ms'), 150250);
});

test('parse negative durations', () => {
  assert.equal(parseDuration('-1h'), -3600000);
  assert.equal(parseDuration('-1m30s'), -90000);
});

test('parse rejects garbage', () => {
  for (const bad of ['', '-', '10', 'h', '1x', '1h 30m', '1h-30m', '--1h', '1.h']) {
    assert.throws(() => parseDuration(bad), SyntaxError, bad);
  }
});

test('format with the two largest units', () => {
  assert.equal(formatDuration(5400000), '1h 30m');
  assert.equal(formatDuration(93784000), '1d 2h');
  assert.equal(formatDuration(93784000, { largest: 4 }), '1d 2h 3m 4s');
  assert.equal(formatDuration(250), '250ms');
  assert.equal(formatDuration(3600000), '1h');
});

test('format skips zero units between non-zero ones', () => {
  assert.equal(formatDuration(3605000, { largest: 3 }), '1h 5s');
});

test('format rounds into the next unit', () => {
  assert.equal(formatDuration(59999), '1m');
  assert.equal(formatDuration(59500, { largest: 1 }), '1m');
  assert.equal(formatDuration(3599999, { largest: 2 }), '1h');
  assert.equal(formatDuration(89999, { largest: 1 }), '1m');
  assert.equal(formatDuration(90000, { largest: 1 }), '2m');
});

test('format zero', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(0.4), '0s');
  assert.equal(formatDuration(-0.4), '0s');
  assert.equal(formatDuration(999.6), '1s');
});

test('format negative durations', () => {
  assert.equal(formatDuration(-90000), '-1m 30s');
  assert.equal(formatDuration(-59999), '-1m');
  assert.equal(formatDuration(-250), '-250ms');
});

test('format and parse round-trip', () => {
  for (const text of ['1d 2h', '3m 4s', '-5h 6m', '7ms']) {
    assert.equal(formatDuration(parseDuration(text.replace(' ', ''))), text);
  }
});

test('format argument checks', () => {
  assert.throws(() => formatDuration(NaN), TypeError);
  assert.throws(() => formatDuration(1000, { largest: 0 }), RangeError);
});
