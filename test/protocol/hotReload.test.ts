/**
 * The `hotReload` command's schemas (feature `hotReload`): the request is checked before it is
 * sent, and the report reads in the runtime's JSON dialect — empty lists as `[]` or `{}`,
 * numbers as strings; a report without its lists and counts is refused (a clear protocol error).
 */
import * as assert from 'node:assert/strict';
import { ideToLuaSchemas, replySchemas } from '../../src/protocol';
import { reloadReply } from '../session/reloadReply';

describe('protocol/hotReload', () => {
  it('a request needs the wire path and the source text', () => {
    const request = ideToLuaSchemas.hotReload;
    assert.ok(request.safeParse({ path: 'game/player.lua', source: 'return 1' }).success);
    assert.ok(request.safeParse({ path: 'game/player.lua', source: '' }).success, 'an empty file');
    assert.equal(request.safeParse({ path: '', source: 'x' }).success, false, 'no path');
    assert.equal(request.safeParse({ path: 'a.lua' }).success, false, 'no source');
  });

  it('reads a success report with every list and numbers as the runtime sends them', () => {
    const report = replySchemas.hotReload.parse({
      status: 'success',
      chunk: '@game/player.lua',
      module: 'game.player',
      replaced: [
        { name: 'Player:update', line: 12 },
        { name: 'Player:draw', line: '20' },
      ],
      added: [{ name: 'Player:jump', line: 30 }],
      notFound: [],
      notReplaced: {},
      active: [{ name: 'M.loop', line: 50 }],
      references: '3',
      searched: 1200,
      timeMs: 2.125,
    });
    assert.equal(report.status, 'success');
    assert.deepEqual(report.replaced, [
      { name: 'Player:update', line: 12 },
      { name: 'Player:draw', line: 20 },
    ]);
    assert.deepEqual([report.notFound, report.notReplaced], [[], []]);
    assert.deepEqual([report.references, report.searched, report.timeMs], [3, 1200, 2.125]);
  });

  it('reads an error report: the error and the phase, every list empty', () => {
    const report = replySchemas.hotReload.parse({
      status: 'error',
      error: "player.lua:3: '=' expected near 'x'",
      phase: 'compile',
      replaced: [],
      added: [],
      notFound: [],
      notReplaced: [],
      active: [],
      references: 0,
      searched: 12,
      timeMs: 0.4,
    });
    assert.deepEqual(
      [report.status, report.error, report.phase, report.replaced, report.chunk],
      ['error', "player.lua:3: '=' expected near 'x'", 'compile', [], undefined],
    );
  });

  it('refuses a report without a status or its lists, or with entries that have no name', () => {
    const full = reloadReply();
    assert.ok(replySchemas.hotReload.safeParse(full).success);
    assert.equal(replySchemas.hotReload.safeParse({ ...full, status: undefined }).success, false);
    assert.equal(replySchemas.hotReload.safeParse({ ...full, notFound: undefined }).success, false);
    assert.equal(replySchemas.hotReload.safeParse([]).success, false, 'an empty table');
    assert.equal(
      replySchemas.hotReload.safeParse({ ...full, replaced: [{ line: 3 }] }).success,
      false,
    );
  });
});
