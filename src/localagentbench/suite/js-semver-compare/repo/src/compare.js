'use strict';

const { parse } = require('./parse');

/** Compare two versions by SemVer precedence: -1, 0 or 1. */
function compare(a, b) {
  const x = parse(a);
  const y = parse(b);
  const left = [x.major, x.minor, x.patch, ...x.prerelease].join('.');
  const right = [y.major, y.minor, y.patch, ...y.prerelease].join('.');
  if (left < right) return -1;
  if (left > right) return 1;
  return 0;
}

/** A new array of the versions sorted by precedence. */
function sort(versions) {
  return [...versions].sort(compare);
}

module.exports = { compare, sort };
