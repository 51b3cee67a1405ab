'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { sumTimesheet } = require('../bin/timesum');

test('sums a timesheet', () => {
  const text = '# week 12\nreview: 1h30m\nmeeting: 45m\n\nfix: 2h15m  # late\n';
  assert.equal(sumTimesheet(text), 16200000);
});

test('a description may contain colons', () => {
  assert.equal(sumTimesheet('ticket: ABC-1: 30m\n'), 1800000);
});

test('reports the bad line', () => {
  assert.throws(() => sumTimesheet('a: 1h\nb: soon\n'), /line 2/);
});

test('short entries in milliseconds', () => {
  assert.equal(sumTimesheet('ping: 250ms\npong: 750ms\n'), 1000);
});
