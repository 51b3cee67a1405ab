'use strict';

const { ConfigError } = require('./errors');

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeOf(value) {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

/** Deep copy of JSON-like data. */
function clone(value) {
  if (Array.isArray(value)) return value.map(clone);
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)]));
  }
  return value;
}

/**
 * Return a copy of `base` with `override` merged in. Every key of `override`
 * must exist in `base` with the same type; objects merge recursively, anything
 * else is replaced.
 */
function mergeChecked(base, override, source, path = []) {
  const out = clone(base);
  for (const [key, value] of Object.entries(override)) {
    const keyPath = [...path, key].join('.');
    if (!Object.prototype.hasOwnProperty.call(base, key)) {
      throw new ConfigError(`${source}: unknown setting "${keyPath}"`, { source, key: keyPath });
    }
    const expected = typeOf(base[key]);
    if (typeOf(value) !== expected) {
      throw new ConfigError(
        `${source}: "${keyPath}" must be ${expected}, got ${typeOf(value)}`,
        { source, key: keyPath },
      );
    }
    out[key] = isPlainObject(value) ? mergeChecked(base[key], value, source, [...path, key]) : clone(value);
  }
  return out;
}

module.exports = { isPlainObject, typeOf, clone, mergeChecked };
