'use strict';

const UNITS = [
  ['d', 86400000],
  ['h', 3600000],
  ['m', 60000],
  ['s', 1000],
  ['ms', 1],
];
const FACTOR = Object.fromEntries(UNITS);

const TOKEN = /(\d+(?:\.\d+)?)(d|h|m|s|ms)/g;

/** Parse '1h30m', '250ms', '1.5h', '-2d' into milliseconds. */
function parseDuration(text) {
  if (typeof text !== 'string') throw new TypeError('parseDuration expects a string');
  let body = text.trim();
  let sign = 1;
  if (body.startsWith('-')) {
    sign = -1;
    body = body.slice(1);
  }
  if (body === '') throw new SyntaxError(`invalid duration: ${JSON.stringify(text)}`);
  let total = 0;
  let consumed = 0;
  for (const match of body.matchAll(TOKEN)) {
    if (match.index !== consumed) break;
    total += Number(match[1]) * FACTOR[match[2]];
    consumed += match[0].length;
  }
  if (consumed !== body.length) throw new SyntaxError(`invalid duration: ${JSON.stringify(text)}`);
  return sign * Math.round(total);
}

/**
 * Format milliseconds with the `largest` biggest non-zero units, rounding
 * (half away from zero) to the smallest unit shown.
 */
function formatDuration(ms, { largest = 2 } = {}) {
  if (!Number.isFinite(ms)) throw new TypeError('formatDuration expects a finite number');
  if (!Number.isInteger(largest) || largest < 1) throw new RangeError('largest must be a positive integer');
  let rest = ms;
  const parts = [];
  for (const [unit, size] of UNITS) {
    if (parts.length === largest) break;
    const isLast = parts.length === largest - 1 || unit === 'ms';
    const count = isLast ? Math.round(rest / size) : Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count}${unit}`);
      rest -= count * size;
    }
  }
  return parts.join(' ');
}

module.exports = { parseDuration, formatDuration, UNITS };
