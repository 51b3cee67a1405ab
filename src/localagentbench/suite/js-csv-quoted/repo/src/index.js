'use strict';

const { parse, CsvError } = require('./parse');
const { stringify } = require('./stringify');

module.exports = { parse, stringify, CsvError };
