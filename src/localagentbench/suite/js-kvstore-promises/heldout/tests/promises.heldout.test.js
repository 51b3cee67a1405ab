'use strict';

// Held-out checks for the promise API and update().
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { FileStore } = require('../src');

const SCRATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'dirkv-heldout-'));
process.on('exit', () => fs.rmSync(SCRATCH, { recursive: true, force: true }));

function tempStore(t) {
  const root = fs.mkdtempSync(path.join(SCRATCH, 'store-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  return new FileStore(path.join(root, 'state'));
}

test('every method returns a promise without a callback', async (t) => {
  const store = tempStore(t);
  const pending = [store.keys(), store.get('x'), store.set('x', 1), store.delete('nope')];
  for (const p of pending) assert.ok(p instanceof Promise, 'expected a Promise');
  assert.deepEqual(await Promise.all(pending.slice(2)), [undefined, false]);
  assert.deepEqual(await store.keys(), ['x']);
});

test('keys of a store that was never written is empty', async (t) => {
  assert.deepEqual(await tempStore(t).keys(), []);
});

test('invalid keys reject instead of throwing', async (t) => {
  const store = tempStore(t);
  for (const key of ['', 'k'.repeat(201), 42, null]) {
    let promise;
    assert.doesNotThrow(() => {
      promise = store.get(key);
    });
    await assert.rejects(promise, (err) => err.code === 'EINVALIDKEY');
    await assert.rejects(store.set(key, 1), (err) => err.code === 'EINVALIDKEY');
    await assert.rejects(store.delete(key), (err) => err.code === 'EINVALIDKEY');
  }
  await assert.rejects(store.update('', (v) => v), (err) => err.code === 'EINVALIDKEY');
});

test('unserialisable values reject with TypeError', async (t) => {
  const store = tempStore(t);
  await assert.rejects(store.set('f', () => 1), TypeError);
  await assert.rejects(store.set('b', 10n), TypeError);
  assert.deepEqual(await store.keys(), []);
});

test('callbacks still work and the method then returns undefined', async (t) => {
  const store = tempStore(t);
  const calls = [];
  await new Promise((resolve) => {
    const ret = store.set('a', [1, 2], (err, ...rest) => {
      calls.push(['set', err, rest.length ? rest[0] : undefined]);
      resolve();
    });
    assert.equal(ret, undefined);
  });
  await new Promise((resolve) => {
    const ret = store.get('a', (err, value) => {
      calls.push(['get', err, value]);
      resolve();
    });
    assert.equal(ret, undefined);
  });
  await new Promise((resolve) => {
    store.get('', (err) => {
      calls.push(['bad', err.code]);
      resolve();
    });
  });
  await new Promise((resolve) => {
    store.update('a', (v) => [...v, 3], (err, value) => {
      calls.push(['update', err, value]);
      resolve();
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(calls, [
    ['set', null, undefined],
    ['get', null, [1, 2]],
    ['bad', 'EINVALIDKEY'],
    ['update', null, [1, 2, 3]],
  ]);
});

test('update sees undefined for a missing key and stores the result', async (t) => {
  const store = tempStore(t);
  let seen = 'not called';
  assert.deepEqual(
    await store.update('cfg', (old) => {
      seen = old;
      return { v: 1 };
    }),
    { v: 1 },
  );
  assert.equal(seen, undefined);
  assert.deepEqual(await store.get('cfg'), { v: 1 });
});

test('update accepts an async function', async (t) => {
  const store = tempStore(t);
  await store.set('n', 10);
  const result = await store.update('n', async (n) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return n * 2;
  });
  assert.equal(result, 20);
  assert.equal(await store.get('n'), 20);
});

test('concurrent updates of one key are not lost', async (t) => {
  const store = tempStore(t);
  const results = await Promise.all(
    Array.from({ length: 40 }, () => store.update('counter', async (n = 0) => {
      await new Promise((resolve) => setImmediate(resolve));
      return n + 1;
    })),
  );
  assert.equal(await store.get('counter'), 40);
  assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
});

test('a failing update rejects, keeps the old value and does not block later updates', async (t) => {
  const store = tempStore(t);
  await store.set('k', 1);
  const boom = new Error('boom');
  const first = store.update('k', () => {
    throw boom;
  });
  const second = store.update('k', (v) => v + 1);
  await assert.rejects(first, (err) => err === boom);
  assert.equal(await second, 2);
  await assert.rejects(store.update('k', async () => Promise.reject(boom)), (err) => err === boom);
  assert.equal(await store.get('k'), 2);
});

test('updates of different keys are independent', async (t) => {
  const store = tempStore(t);
  await Promise.all([
    ...Array.from({ length: 10 }, () => store.update('a', (n = 0) => n + 1)),
    ...Array.from({ length: 10 }, () => store.update('b', (n = 0) => n + 2)),
  ]);
  assert.deepEqual([await store.get('a'), await store.get('b')], [10, 20]);
});
