'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { FileStore } = require('../src');

/** A FileStore in a fresh temporary directory, removed after the test. */
function tempStore(t) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dirkv-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return new FileStore(path.join(root, 'state'));
}

module.exports = { tempStore };
