'use strict';

const { loadConfig } = require('./config');
const { ConfigError } = require('./errors');

module.exports = { loadConfig, ConfigError };
