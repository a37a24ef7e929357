/** The hold-off of peers that failed the pairing (strangerBackoff.ts), on a clock of the test's own. */
import { strict as assert } from 'node:assert';
import { StrangerBackoff, isLoopbackPeer } from '../../src/protocol/strangerBackoff';

describe('stranger backoff', () => {
  it('holds an address off 1 s, doubling with each failure up to 60 s, and lets it in after', () => {
    let now = 0;
    const backoff = new StrangerBackoff(() => now);
    assert.equal(backoff.heldOffFor('192.168.1.9'), undefined);
    backoff.failed('192.168.1.9');
    assert.equal(backoff.heldOffFor('192.168.1.9'), 1_000);
    assert.equal(backoff.heldOffFor('192.168.1.10'), undefined, 'per address');
    now = 1_000;
    assert.equal(backoff.heldOffFor('192.168.1.9'), undefined);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      backoff.failed('192.168.1.9');
      waits.push(backoff.heldOffFor('192.168.1.9') ?? 0);
    }
    assert.deepEqual(waits, [2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('never holds off this machine', () => {
    const backoff = new StrangerBackoff(() => 0);
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      assert.ok(isLoopbackPeer(host), host);
      backoff.failed(host);
      assert.equal(backoff.heldOffFor(host), undefined, host);
    }
    assert.equal(isLoopbackPeer('10.0.0.1'), false);
    assert.equal(isLoopbackPeer('::ffff:10.0.0.1'), false);
  });

  it('remembers at most 1024 addresses, forgetting the oldest first', () => {
    const backoff = new StrangerBackoff(() => 0);
    for (let i = 0; i < 1_025; i++) backoff.failed(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(backoff.heldOffFor('10.0.0.0'), undefined, 'the first one is forgotten');
    assert.equal(backoff.heldOffFor('10.0.0.1'), 1_000);
    assert.equal(backoff.heldOffFor('10.0.4.0'), 1_000);
  });
});
