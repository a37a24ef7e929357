/**
 * The `listCoroutines` command's schemas (feature `listCoroutines`) and a caught error's
 * `caughtAt` in a stop notification: read in the runtime's JSON dialect (numbers as strings, an
 * empty list as `{}`); an entry without its id or with an unknown status is refused, and an
 * upstream stop (no `caughtAt`) reads as before.
 */
import * as assert from 'node:assert/strict';
import { ideToLuaSchemas, replySchemas, stopInfoSchema } from '../../src/protocol';

describe('protocol/listCoroutines', () => {
  it('a request carries its cap as a string', () => {
    assert.ok(ideToLuaSchemas.listCoroutines.safeParse({ max: '20' }).success);
    assert.equal(ideToLuaSchemas.listCoroutines.safeParse({}).success, false);
  });

  it('reads the list as the runtime sends it', () => {
    const reply = replySchemas.listCoroutines.parse({
      coroutines: [
        {
          id: 'thread: 0x1',
          status: 'suspended',
          wrap: true,
          file: 'a.lua',
          oPath: '@a.lua',
          line: '5',
          name: 'producer',
        },
        { id: 'thread: 0x2', status: 'dead' },
      ],
      total: '7',
    });
    assert.equal(reply.total, 7);
    assert.equal(reply.coroutines[0]?.line, 5);
    assert.equal(reply.coroutines[0]?.wrap, true);
    assert.deepEqual(
      replySchemas.listCoroutines.parse({ coroutines: {}, total: 0 }).coroutines,
      [],
    );
  });

  it('refuses an entry without an id, or with a status Lua does not have', () => {
    const bad = [
      { coroutines: [{ status: 'suspended' }], total: 1 },
      { coroutines: [{ id: 'thread: 0x1', status: 'sleeping' }], total: 1 },
      { coroutines: [] },
    ];
    for (const reply of bad) {
      assert.equal(
        replySchemas.listCoroutines.safeParse(reply).success,
        false,
        JSON.stringify(reply),
      );
    }
  });

  it('a stop notification reads caughtAt, and stays as it was without it', () => {
    const info = stopInfoSchema.parse({
      exceptionText: 'boom',
      uncaught: false,
      caughtAt: { file: 'main.lua', oPath: '@main.lua', line: '12' },
    });
    assert.deepEqual('caughtAt' in info ? info.caughtAt : undefined, {
      file: 'main.lua',
      oPath: '@main.lua',
      line: 12,
    });
    const upstream = stopInfoSchema.parse({ exceptionText: 'boom' });
    assert.equal('caughtAt' in upstream ? upstream.caughtAt : undefined, undefined);
    assert.equal(stopInfoSchema.safeParse({ caughtAt: { line: 3 } }).success, false);
  });
});
