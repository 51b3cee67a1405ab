'use strict';

const { FileStore } = require('./store');

module.exports = { FileStore };
