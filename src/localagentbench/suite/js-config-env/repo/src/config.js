'use strict';

const fs = require('node:fs');
const { ConfigError } = require('./errors');
const { isPlainObject, clone, mergeChecked } = require('./merge');

function readJsonFile(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new ConfigError(`${file}: ${err.message}`, { source: file });
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file}: invalid JSON (${err.message})`, { source: file });
  }
  if (!isPlainObject(data)) {
    throw new ConfigError(`${file}: the top level must be an object`, { source: file });
  }
  return data;
}

/**
 * Build the configuration: defaults, then the JSON file (if any), then
 * environment variables.
 *
 * @param {object} options
 * @param {object} options.defaults  every configurable key with its default value
 * @param {string} [options.file]    JSON file to merge over the defaults
 * @param {object} [options.env]     environment variables (default: process.env)
 * @param {string} [options.prefix]  prefix of the variables that configure the app (default 'APP_')
 */
function loadConfig({ defaults, file, env = process.env, prefix = 'APP_' } = {}) {
  if (!isPlainObject(defaults)) throw new TypeError('loadConfig needs a defaults object');
  let config = clone(defaults);
  if (file) {
    const data = readJsonFile(file);
    if (data) config = mergeChecked(config, data, file);
  }
  // TODO: environment overrides
  return config;
}

module.exports = { loadConfig };
