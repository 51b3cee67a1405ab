'use strict';

class CsvError extends Error {
  constructor(message, line) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvError';
    this.line = line;
  }
}

function splitLine(line, delimiter) {
  const fields = line.split(delimiter);
  return fields.map((field) => {
    if (field.length >= 2 && field.startsWith('"') && field.endsWith('"')) {
      return field.slice(1, -1);
    }
    return field;
  });
}

function toObjects(rows) {
  if (rows.length === 0) return [];
  const [names, ...data] = rows;
  const seen = new Set();
  for (const name of names) {
    if (seen.has(name)) throw new CsvError(`duplicate column name "${name}"`, 1);
    seen.add(name);
  }
  return data.map((row, i) => {
    if (row.length !== names.length) {
      throw new CsvError(`expected ${names.length} fields, got ${row.length}`, i + 2);
    }
    return Object.fromEntries(names.map((name, j) => [name, row[j]]));
  });
}

/**
 * Parse CSV text into rows of strings, or objects keyed by the first row
 * when `header` is true.
 */
function parse(text, { delimiter = ',', header = false } = {}) {
  if (typeof text !== 'string') throw new TypeError('parse expects a string');
  if (typeof delimiter !== 'string' || delimiter.length !== 1 || /["\r\n]/.test(delimiter)) {
    throw new TypeError('delimiter must be a single character other than a quote or line break');
  }
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const rows = lines.map((line) => splitLine(line, delimiter));
  return header ? toObjects(rows) : rows;
}

module.exports = { parse, CsvError };
