'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const { tempStore } = require('./helpers');

test('set then get', (t, done) => {
  const store = tempStore(t);
  store.set('user:1', { name: 'Ada', tags: ['x'] }, (err) => {
    assert.ifError(err);
    store.get('user:1', (err2, value) => {
      assert.ifError(err2);
      assert.deepEqual(value, { name: 'Ada', tags: ['x'] });
      done();
    });
  });
});

test('missing key gives undefined', (t, done) => {
  tempStore(t).get('nope', (err, value) => {
    assert.ifError(err);
    assert.equal(value, undefined);
    done();
  });
});

test('delete reports whether the key existed', (t, done) => {
  const store = tempStore(t);
  store.set('a', 1, (err) => {
    assert.ifError(err);
    store.delete('a', (err2, existed) => {
      assert.ifError(err2);
      assert.equal(existed, true);
      store.delete('a', (err3, again) => {
        assert.ifError(err3);
        assert.equal(again, false);
        done();
      });
    });
  });
});

test('keys are sorted and decoded; temp files are not keys', (t, done) => {
  const store = tempStore(t);
  store.set('b/ä', 1, () => {
    store.set('a.b', 2, () => {
      fs.writeFileSync(`${store.dir}/.tmp-123-9`, '{}');
      store.keys((err, keys) => {
        assert.ifError(err);
        assert.deepEqual(keys, ['a.b', 'b/ä']);
        done();
      });
    });
  });
});

test('invalid keys', (t, done) => {
  tempStore(t).get('', (err) => {
    assert.equal(err.code, 'EINVALIDKEY');
    done();
  });
});
