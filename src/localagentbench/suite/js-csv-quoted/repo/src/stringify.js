'use strict';

/** Quote a field when it contains the delimiter, a quote, CR or LF, or surrounding spaces. */
function formatField(value, delimiter) {
  const text = value === null || value === undefined ? '' : String(value);
  const needsQuotes =
    text.includes(delimiter) || /["\r\n]/.test(text) || text !== text.trim();
  return needsQuotes ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Write rows (arrays of values) as CSV, RFC 4180 style: CRLF line ends,
 * fields quoted only when needed.
 */
function stringify(rows, { delimiter = ',' } = {}) {
  if (!Array.isArray(rows)) throw new TypeError('stringify expects an array of rows');
  return rows
    .map((row) => row.map((value) => formatField(value, delimiter)).join(delimiter) + '\r\n')
    .join('');
}

module.exports = { stringify, formatField };
