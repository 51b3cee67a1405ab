'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { loadConfig, ConfigError } = require('../src');

const DEFAULTS = Object.freeze({
  server: { host: '127.0.0.1', port: 8080 },
  db: { url: 'postgres://localhost/app', maxConnections: 10, ssl: false },
  features: [],
});

function withFile(content, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'confload-'));
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, content);
  try {
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('defaults only', () => {
  const config = loadConfig({ defaults: DEFAULTS, env: {} });
  assert.deepEqual(config, DEFAULTS);
  assert.notEqual(config.server, DEFAULTS.server);
});

test('file is deep-merged over the defaults', () => {
  const json = JSON.stringify({ server: { port: 9000 }, features: ['beta'] });
  const config = withFile(json, (file) => loadConfig({ defaults: DEFAULTS, file, env: {} }));
  assert.deepEqual(config.server, { host: '127.0.0.1', port: 9000 });
  assert.deepEqual(config.features, ['beta']);
});

test('missing file is fine', () => {
  const config = loadConfig({ defaults: DEFAULTS, file: '/nonexistent/confload.json', env: {} });
  assert.deepEqual(config, DEFAULTS);
});

test('unknown key in the file', () => {
  const json = JSON.stringify({ server: { prot: 1 } });
  assert.throws(
    () => withFile(json, (file) => loadConfig({ defaults: DEFAULTS, file, env: {} })),
    (err) => err instanceof ConfigError && err.key === 'server.prot',
  );
});

test('wrong type in the file', () => {
  const json = JSON.stringify({ db: { ssl: 'yes' } });
  assert.throws(() => withFile(json, (file) => loadConfig({ defaults: DEFAULTS, file, env: {} })), ConfigError);
});

test('invalid JSON', () => {
  assert.throws(() => withFile('{', (file) => loadConfig({ defaults: DEFAULTS, file, env: {} })), /invalid JSON/);
});

test('environment variable overrides a nested setting', () => {
  const config = loadConfig({ defaults: DEFAULTS, env: { APP_SERVER__PORT: '9001', APP_SERVER__HOST: '0.0.0.0' } });
  assert.equal(config.server.port, 9001);
  assert.equal(config.server.host, '0.0.0.0');
});

test('environment wins over the file', () => {
  const json = JSON.stringify({ server: { port: 9000 } });
  const config = withFile(json, (file) =>
    loadConfig({ defaults: DEFAULTS, file, env: { APP_SERVER__PORT: '7000' } }),
  );
  assert.equal(config.server.port, 7000);
});
