/** The callbackId registry: id rules, matching, timeouts, disposal — by example and by property. */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import * as sinon from 'sinon';
import {
  CallbackRegistry,
  ConnectionClosedError,
  MAX_CALLBACK_ID,
  MIN_CALLBACK_ID,
  ProtocolError,
  RequestTimeoutError,
} from '../../src/protocol';

describe('CallbackRegistry', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => {
    clock = sinon.useFakeTimers();
  });
  afterEach(() => clock.restore());

  function makeRegistry(random?: () => number) {
    const dropped: ProtocolError[] = [];
    const registry = new CallbackRegistry({
      defaultTimeoutMs: 1000,
      random,
      onDropped: (e) => dropped.push(e),
    });
    return { registry, dropped };
  }

  it('issues decimal ids in 10..999999999', () => {
    const { registry } = makeRegistry();
    for (const r of [0, 0.5, 0.999999999999]) {
      const fixed = makeRegistry(() => r).registry;
      const { id, reply } = fixed.register('continue');
      reply.catch(() => undefined);
      const n = Number(id);
      assert.ok(Number.isInteger(n) && n >= MIN_CALLBACK_ID && n <= MAX_CALLBACK_ID, id);
      assert.equal(String(n), id);
      fixed.dispose();
    }
    registry.dispose();
  });

  it('never reuses a pending id, even when the random source repeats itself', () => {
    const { registry } = makeRegistry(() => 0.25);
    const ids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const { id, reply } = registry.register('getVariable');
      reply.catch(() => undefined);
      assert.ok(!ids.has(id), `duplicate id ${id}`);
      ids.add(id);
    }
    registry.dispose();
  });

  it('delivers a reply to its request and forgets the entry', async () => {
    const { registry } = makeRegistry();
    const { id, reply } = registry.register('getVariable');
    assert.equal(registry.settle(id, 'getVariable', ['info']), 'delivered');
    assert.deepEqual(await reply, ['info']);
    assert.equal(registry.size, 0);
  });

  it('rejects with a typed timeout, frees the entry and reports the late reply', async () => {
    const { registry, dropped } = makeRegistry();
    const { id, reply } = registry.register('getVariable', 500);
    clock.tick(499);
    assert.equal(registry.size, 1);
    clock.tick(1);
    await assert.rejects(
      reply,
      (e: unknown) => e instanceof RequestTimeoutError && e.cmd === 'getVariable',
    );
    assert.equal(registry.size, 0);
    assert.equal(registry.settle(id, 'getVariable', []), 'late');
    assert.deepEqual(
      dropped.map((e) => e.code),
      ['late-reply'],
    );
  });

  it('reports and drops replies with unknown ids', () => {
    const { registry, dropped } = makeRegistry();
    assert.equal(registry.settle('12345', 'continue', []), 'unknown');
    assert.deepEqual(
      dropped.map((e) => e.code),
      ['unknown-reply'],
    );
  });

  it("drops a frame whose command is not the pending request's (upstream's stale id slot)", async () => {
    const { registry, dropped } = makeRegistry();
    const { id, reply } = registry.register('getVariable');
    assert.equal(registry.settle(id, 'setBreakPoint', []), 'mismatched');
    assert.equal(registry.size, 1);
    assert.equal(registry.settle(id, 'getVariable', ['right']), 'delivered');
    assert.deepEqual(await reply, ['right']);
    assert.deepEqual(
      dropped.map((e) => e.code),
      ['mismatched-reply'],
    );
  });

  it('rejects everything pending on dispose, and later registrations at once', async () => {
    const { registry } = makeRegistry();
    const a = registry.register('continue');
    const b = registry.register('stopOnStep');
    registry.dispose();
    await assert.rejects(a.reply, ConnectionClosedError);
    await assert.rejects(b.reply, ConnectionClosedError);
    await assert.rejects(registry.register('continue').reply, ConnectionClosedError);
    assert.equal(clock.countTimers(), 0);
  });

  it('property: ids are unique among pending requests and each request settles exactly once', async () => {
    type Op =
      | { op: 'register'; timeout: number }
      | { op: 'reply'; pick: number; wrongCmd: boolean }
      | { op: 'tick'; ms: number }
      | { op: 'dispose' };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({
        op: fc.constant('register' as const),
        timeout: fc.integer({ min: 0, max: 300 }),
      }),
      fc.record({ op: fc.constant('reply' as const), pick: fc.nat(), wrongCmd: fc.boolean() }),
      fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 200 }) }),
      fc.record({ op: fc.constant('dispose' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 60 }),
        fc.integer({ min: 0, max: 5 }),
        async (ops, seed) => {
          // A deliberately poor random source, to force collisions.
          let state = seed;
          const random = () => (state = (state * 7 + 3) % 11) / 11;
          const { registry } = makeRegistry(random);
          const settleCounts = new Map<string, number>();
          const issued: string[] = [];
          const all: Promise<void>[] = [];
          for (const op of ops) {
            if (op.op === 'register') {
              const { id, reply } = registry.register('getVariable', op.timeout);
              if (id === '') {
                all.push(
                  reply.then(
                    () => assert.fail('registered after dispose'),
                    () => undefined,
                  ),
                );
                continue;
              }
              assert.equal(
                settleCounts.has(id) && settleCounts.get(id) === 0,
                false,
                `id ${id} reused while pending`,
              );
              settleCounts.set(id, 0);
              issued.push(id);
              const count = () => {
                settleCounts.set(id, (settleCounts.get(id) ?? 0) + 1);
              };
              all.push(reply.then(count, count));
            } else if (op.op === 'reply' && issued.length > 0) {
              const id = issued[op.pick % issued.length];
              registry.settle(id, op.wrongCmd ? 'continue' : 'getVariable', []);
            } else if (op.op === 'tick') {
              clock.tick(op.ms);
            } else if (op.op === 'dispose') {
              registry.dispose();
            }
            await Promise.resolve();
          }
          registry.dispose();
          await Promise.all(all);
          for (const [id, count] of settleCounts)
            assert.equal(count, 1, `request ${id} settled ${count} times`);
          assert.equal(registry.size, 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});
