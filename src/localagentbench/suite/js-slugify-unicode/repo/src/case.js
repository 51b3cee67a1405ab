'use strict';

/**
 * Split an identifier or phrase into lower-case words:
 * 'parseHTTPResponse' -> ['parse', 'http', 'response'], 'user_id' -> ['user', 'id'].
 */
function words(input) {
  if (typeof input !== 'string') throw new TypeError('expected a string');
  return input
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

function camelCase(input) {
  return words(input)
    .map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1)))
    .join('');
}

function kebabCase(input) {
  return words(input).join('-');
}

const SMALL = new Set(['a', 'an', 'and', 'as', 'at', 'but', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to']);

function titleCase(input) {
  const parts = words(input);
  return parts
    .map((w, i) => {
      if (i > 0 && i < parts.length - 1 && SMALL.has(w)) return w;
      return w[0].toUpperCase() + w.slice(1);
    })
    .join(' ');
}

module.exports = { words, camelCase, kebabCase, titleCase };
