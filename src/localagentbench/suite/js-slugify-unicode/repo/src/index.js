'use strict';

const { slugify, uniqueSlug } = require('./slug');
const { camelCase, kebabCase, titleCase, words } = require('./case');

module.exports = { slugify, uniqueSlug, camelCase, kebabCase, titleCase, words };
