'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { FileStore } = require('../src');

// one scratch folder per test file, removed even if a test crashes the process
const SCRATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'dirkv-'));
process.on('exit', () => fs.rmSync(SCRATCH, { recursive: true, force: true }));

/** A FileStore in a fresh temporary directory, removed after the test. */
function tempStore(t) {
  const root = fs.mkdtempSync(path.join(SCRATCH, 'store-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return new FileStore(path.join(root, 'state'));
}

module.exports = { tempStore };
