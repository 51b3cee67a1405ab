'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { tempStore } = require('./helpers');

test('promise API: set, get, delete, keys', async (t) => {
  const store = tempStore(t);
  await store.set('a', { n: 1 });
  assert.deepEqual(await store.get('a'), { n: 1 });
  assert.deepEqual(await store.keys(), ['a']);
  assert.equal(await store.delete('a'), true);
  assert.equal(await store.get('a'), undefined);
});

test('update applies a function to the stored value', async (t) => {
  const store = tempStore(t);
  assert.equal(await store.update('counter', (n = 0) => n + 1), 1);
  assert.equal(await store.update('counter', (n = 0) => n + 1), 2);
  assert.equal(await store.get('counter'), 2);
});
