'use strict';

// Held-out checks for environment-variable overrides.
const test = require('node:test');
const assert = require('node:assert/strict');
const { loadConfig, ConfigError } = require('../src');

function defaults() {
  return {
    server: { host: '127.0.0.1', port: 8080, tls: { enabled: false, certFile: '' } },
    db: { url: 'postgres://localhost/app', maxConnections: 10, ssl: false, retryDelayMs: 250 },
    features: ['search'],
    logLevel: 'info',
  };
}

function load(env, extra = {}) {
  return loadConfig({ defaults: defaults(), env, ...extra });
}

function rejects(env, name) {
  assert.throws(
    () => load(env),
    (err) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
      assert.ok(err.message.includes(name), `message should name ${name}: ${err.message}`);
      return true;
    },
  );
}

test('camelCase keys map to UPPER_SNAKE_CASE names', () => {
  const config = load({ APP_DB__MAX_CONNECTIONS: '25', APP_DB__RETRY_DELAY_MS: '1000', APP_LOG_LEVEL: 'debug' });
  assert.equal(config.db.maxConnections, 25);
  assert.equal(config.db.retryDelayMs, 1000);
  assert.equal(config.logLevel, 'debug');
});

test('three levels deep', () => {
  const config = load({ APP_SERVER__TLS__ENABLED: 'true', APP_SERVER__TLS__CERT_FILE: '/etc/cert.pem' });
  assert.deepEqual(config.server.tls, { enabled: true, certFile: '/etc/cert.pem' });
  assert.equal(config.server.port, 8080);
});

test('numbers: decimals and negatives accepted, junk rejected', () => {
  assert.equal(load({ APP_DB__RETRY_DELAY_MS: '2.5' }).db.retryDelayMs, 2.5);
  assert.equal(load({ APP_DB__RETRY_DELAY_MS: ' -3 ' }).db.retryDelayMs, -3);
  rejects({ APP_SERVER__PORT: '80abc' }, 'APP_SERVER__PORT');
  rejects({ APP_SERVER__PORT: '' }, 'APP_SERVER__PORT');
  rejects({ APP_SERVER__PORT: 'NaN' }, 'APP_SERVER__PORT');
  rejects({ APP_SERVER__PORT: 'Infinity' }, 'APP_SERVER__PORT');
});

test('booleans', () => {
  for (const [raw, value] of [
    ['true', true], ['TRUE', true], ['1', true], ['yes', true], ['On', true],
    ['false', false], ['0', false], ['no', false], ['off', false], ['False', false],
  ]) {
    assert.equal(load({ APP_DB__SSL: raw }).db.ssl, value, `APP_DB__SSL=${raw}`);
  }
  rejects({ APP_DB__SSL: 'maybe' }, 'APP_DB__SSL');
  rejects({ APP_DB__SSL: '' }, 'APP_DB__SSL');
});

test('arrays are comma-separated lists', () => {
  assert.deepEqual(load({ APP_FEATURES: 'beta, dark-mode ,export' }).features, ['beta', 'dark-mode', 'export']);
  assert.deepEqual(load({ APP_FEATURES: '' }).features, []);
  assert.deepEqual(load({ APP_FEATURES: 'a,,b' }).features, ['a', 'b']);
});

test('strings are taken verbatim', () => {
  assert.equal(load({ APP_DB__URL: 'postgres://u:p@db:5432/x?ssl=true' }).db.url, 'postgres://u:p@db:5432/x?ssl=true');
  assert.equal(load({ APP_LOG_LEVEL: '' }).logLevel, '');
});

test('unknown variables with the prefix are errors', () => {
  rejects({ APP_SERVER__PROT: '1' }, 'APP_SERVER__PROT');
  rejects({ APP_NOPE: 'x' }, 'APP_NOPE');
  rejects({ APP_SERVER__PORT__X: '1' }, 'APP_SERVER__PORT__X');
});

test('a whole section cannot be set from one variable', () => {
  rejects({ APP_SERVER: 'localhost:80' }, 'APP_SERVER');
});

test('variables without the prefix are ignored', () => {
  const config = load({ PATH: '/usr/bin', HOME: '/root', SERVER__PORT: 'oops', app_server__port: '1' });
  assert.deepEqual(config, defaults());
});

test('custom prefix', () => {
  const config = load({ MYSVC_SERVER__PORT: '1234', APP_SERVER__PORT: 'ignored' }, { prefix: 'MYSVC_' });
  assert.equal(config.server.port, 1234);
});

test('defaults object is never modified', () => {
  const base = defaults();
  const config = loadConfig({ defaults: base, env: { APP_SERVER__TLS__ENABLED: 'yes', APP_FEATURES: 'x' } });
  assert.deepEqual(base, defaults());
  assert.equal(config.server.tls.enabled, true);
});

test('process.env is the default source', () => {
  process.env.CONFLOADTEST_LOG_LEVEL = 'warn';
  try {
    const config = loadConfig({ defaults: { logLevel: 'info' }, prefix: 'CONFLOADTEST_' });
    assert.equal(config.logLevel, 'warn');
  } finally {
    delete process.env.CONFLOADTEST_LOG_LEVEL;
  }
});
