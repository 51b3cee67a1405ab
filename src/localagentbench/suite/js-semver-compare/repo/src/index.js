'use strict';

const { parse, VersionError } = require('./parse');
const { compare, sort } = require('./compare');

module.exports = { parse, compare, sort, VersionError };
