'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { checkKey, fileName, keyOf } = require('./keys');

let tmpCounter = 0;

class FileStore {
  /** @param {string} dir directory holding the entries (created on first write) */
  constructor(dir) {
    if (typeof dir !== 'string' || dir === '') throw new TypeError('FileStore needs a directory');
    this.dir = dir;
  }

  _path(key) {
    return path.join(this.dir, fileName(key));
  }

  get(key, callback) {
    const bad = checkKey(key);
    if (bad) return process.nextTick(callback, bad);
    fs.readFile(this._path(key), 'utf8', (err, text) => {
      if (err) {
        if (err.code === 'ENOENT') return callback(null, undefined);
        return callback(err);
      }
      let value;
      try {
        value = JSON.parse(text);
      } catch (parseErr) {
        return callback(parseErr);
      }
      return callback(null, value);
    });
  }

  set(key, value, callback) {
    const bad = checkKey(key);
    if (bad) return process.nextTick(callback, bad);
    let text;
    try {
      text = JSON.stringify(value);
      if (text === undefined) throw new TypeError('value is not JSON-serialisable');
    } catch (err) {
      return process.nextTick(callback, err);
    }
    fs.mkdir(this.dir, { recursive: true }, (mkdirErr) => {
      if (mkdirErr) return callback(mkdirErr);
      tmpCounter += 1;
      const tmp = path.join(this.dir, `.tmp-${process.pid}-${tmpCounter}`);
      fs.writeFile(tmp, text, 'utf8', (writeErr) => {
        if (writeErr) return callback(writeErr);
        fs.rename(tmp, this._path(key), (renameErr) => {
          if (renameErr) return fs.unlink(tmp, () => callback(renameErr));
          return callback(null);
        });
      });
    });
  }

  delete(key, callback) {
    const bad = checkKey(key);
    if (bad) return process.nextTick(callback, bad);
    fs.unlink(this._path(key), (err) => {
      if (err) {
        if (err.code === 'ENOENT') return callback(null, false);
        return callback(err);
      }
      return callback(null, true);
    });
  }

  keys(callback) {
    fs.readdir(this.dir, (err, names) => {
      if (err) {
        if (err.code === 'ENOENT') return callback(null, []);
        return callback(err);
      }
      const keys = names.map(keyOf).filter((key) => key !== null);
      return callback(null, keys.sort());
    });
  }
}

module.exports = { FileStore };
