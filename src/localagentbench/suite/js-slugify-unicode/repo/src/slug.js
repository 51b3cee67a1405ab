'use strict';

const DEFAULTS = Object.freeze({ separator: '-', lowercase: true, maxLength: 0 });

/**
 * Turn arbitrary text into a URL slug.
 *
 * Options:
 *   separator  string placed between words (default '-')
 *   lowercase  lower-case the result (default true)
 *   maxLength  cut the slug to at most this many characters (0 = no limit)
 */
function slugify(input, options = {}) {
  if (typeof input !== 'string') {
    throw new TypeError(`slugify expects a string, got ${typeof input}`);
  }
  const opts = { ...DEFAULTS, ...options };
  if (typeof opts.separator !== 'string' || opts.separator.length === 0) {
    throw new TypeError('separator must be a non-empty string');
  }

  let text = input.trim();
  if (opts.lowercase) text = text.toLowerCase();

  // anything that is not a letter or a digit becomes a separator
  text = text.replace(/[^a-z0-9]/gi, opts.separator);

  // no separator at either end
  const edges = new RegExp('^' + opts.separator + '|' + opts.separator + '$', 'g');
  text = text.replace(edges, '');

  if (opts.maxLength > 0 && text.length > opts.maxLength) {
    text = text.slice(0, opts.maxLength);
  }
  return text;
}

/**
 * slugify(input), made unique against `taken` (a Set of slugs already in use)
 * by appending -2, -3, ... The new slug is added to `taken`.
 */
function uniqueSlug(input, taken, options = {}) {
  const base = slugify(input, options) || 'untitled';
  const sep = options.separator || DEFAULTS.separator;
  let slug = base;
  for (let n = 2; taken.has(slug); n += 1) {
    slug = `${base}${sep}${n}`;
  }
  taken.add(slug);
  return slug;
}

module.exports = { slugify, uniqueSlug };
