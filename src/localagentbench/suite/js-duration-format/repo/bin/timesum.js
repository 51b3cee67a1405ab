#!/usr/bin/env node
'use strict';

const fs = require('node:fs');
const { parseDuration, formatDuration } = require('../src/duration');

/** Sum the durations of `description: duration` lines; blank lines and # comments are skipped. */
function sumTimesheet(text) {
  let total = 0;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) return;
    const colon = line.lastIndexOf(':');
    if (colon === -1) throw new SyntaxError(`line ${i + 1}: expected "description: duration"`);
    try {
      total += parseDuration(line.slice(colon + 1));
    } catch (err) {
      throw new SyntaxError(`line ${i + 1}: ${err.message}`);
    }
  });
  return total;
}

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write('usage: timesum FILE\n');
    return 2;
  }
  let text;
  try {
    text = fs.readFileSync(argv[0], 'utf8');
  } catch (err) {
    process.stderr.write(`timesum: ${err.message}\n`);
    return 1;
  }
  try {
    process.stdout.write(`${formatDuration(sumTimesheet(text), { largest: 3 })}\n`);
  } catch (err) {
    process.stderr.write(`timesum: ${err.message}\n`);
    return 1;
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { sumTimesheet, main };
