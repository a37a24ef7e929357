// The shared promise helpers (src/common/async.ts): bounded waits that leave no timer behind.
import * as assert from 'node:assert/strict';
import { deferred, delay, settleWithin, withTimeout } from '../../src/common/async';

const never = () => new Promise<never>(() => undefined);

describe('common/async', () => {
  it('delay resolves after its time, or at once when its signal aborts', async () => {
    await delay(1);
    const aborter = new AbortController();
    const waiting = delay(60_000, { signal: aborter.signal });
    aborter.abort();
    await waiting;
    await delay(60_000, { signal: aborter.signal }); // already aborted: resolves at once
  });

  it('withTimeout gives the value, undefined when the time passes first, or the rejection', async () => {
    assert.equal(await withTimeout(Promise.resolve(7), 60_000), 7);
    assert.equal(await withTimeout(never(), 1), undefined);
    await assert.rejects(withTimeout(Promise.reject(new Error('no')), 60_000), /no/);
  });

  it('settleWithin ignores the outcome and is bounded', async () => {
    await settleWithin(Promise.reject(new Error('ignored')), 60_000);
    await settleWithin(never(), 1);
    await settleWithin(undefined, 60_000);
  });

  it('deferred is settled from outside', async () => {
    const done = deferred<string>();
    done.resolve('yes');
    assert.equal(await done.promise, 'yes');
    const failed = deferred();
    failed.reject(new Error('no'));
    await assert.rejects(failed.promise, /no/);
  });
});
