'use strict';

class ConfigError extends Error {
  /**
   * @param {string} message
   * @param {{ source?: string, key?: string }} [where] where the bad value came from
   */
  constructor(message, where = {}) {
    super(message);
    this.name = 'ConfigError';
    this.source = where.source;
    this.key = where.key;
  }
}

module.exports = { ConfigError };
