'use strict';

const SUFFIX = '.json';
const MAX_KEY_LENGTH = 200;

function invalidKey(key) {
  const err = new Error(`invalid key: ${JSON.stringify(key)}`);
  err.code = 'EINVALIDKEY';
  return err;
}

/** Return an Error for an invalid key, or null when the key is fine. */
function checkKey(key) {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    return invalidKey(key);
  }
  return null;
}

/** File name for a key: safe on every platform, reversible. */
function fileName(key) {
  return encodeURIComponent(key).replace(/\./g, '%2E').replace(/\*/g, '%2A') + SUFFIX;
}

/** The key stored in `name`, or null for files that are not entries (temp files, strays). */
function keyOf(name) {
  if (!name.endsWith(SUFFIX) || name.startsWith('.')) return null;
  try {
    return decodeURIComponent(name.slice(0, -SUFFIX.length));
  } catch {
    return null;
  }
}

module.exports = { checkKey, fileName, keyOf, MAX_KEY_LENGTH };
