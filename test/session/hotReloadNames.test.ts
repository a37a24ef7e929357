/**
 * A hot reload's report in the call stack's names: the runtime's `entity:update` (the module key)
 * becomes `Entity:update` (the local class the source defines), and the report says which
 * functions the reload changed and which it only re-bound — against the text the session saw the
 * program run (read for breakpoints or frame names, or loaded by an earlier reload).
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { normalizeReport, reportHeadline } from '../../src/session/hotReload';
import { nameReport } from '../../src/session/hotReloadNames';
import { LuaSession } from '../../src/session/luaSession';
import { DEFAULT_SETTINGS } from '../../src/session/types';
import { FakeConnection, fakeConnector, ourRuntime } from './fakes';
import { reloadReply } from './reloadReply';

const BEFORE = [
  'local Entity = {}', // 1
  'Entity.__index = Entity', // 2
  'function Entity.new(name)', // 3
  '  return setmetatable({ name = name, history = {} }, Entity)', // 4
  'end', // 5
  'function Entity:update(dt)', // 6
  '  self.history[#self.history + 1] = dt', // 7
  'end', // 8
  'function Entity:describe()', // 9
  '  return self.name', // 10
  'end', // 11
  'local function count(t) return #t end', // 12
  'function Entity:history()', // 13
  '  return count(self.history)', // 14
  'end', // 15
  'return Entity', // 16
].join('\n');

/** Only `describe` changed, and grew a line: the functions below it moved, unchanged. */
const AFTER = BEFORE.replace(
  '  return self.name',
  '  local n = #self.history\n  return self.name .. " (" .. n .. ")"',
);

/** What the runtime answers for AFTER: names by the module key `entity`, new definition lines. */
const REPLY = reloadReply({
  chunk: '@entity.lua',
  module: 'entity',
  replaced: [
    { name: 'entity.new', line: 3 },
    { name: 'entity:update', line: 6 },
    { name: 'entity:describe', line: 9 },
    { name: 'local count', line: 13 },
    { name: 'entity:history', line: 14 },
  ],
  timeMs: 1,
});

describe('session/hotReloadNames: the report in the call stack names', () => {
  it('names each function as its definition does, and tells changed from re-bound', () => {
    const report = nameReport(normalizeReport('/g/entity.lua', REPLY), AFTER, BEFORE);
    assert.deepEqual(
      report.replaced.map((e) => [e.name, e.changed]),
      [
        ['Entity.new', false],
        ['Entity:update', false],
        ['Entity:describe', true],
        ['count', false],
        ['Entity:history', false],
      ],
    );
    assert.equal(
      reportHeadline(report),
      'Hot reload entity.lua: changed Entity:describe; ' +
        're-bound unchanged Entity.new, Entity:update, count, Entity:history; 1 ms',
    );
  });

  it('without the earlier text, renames but does not guess what changed', () => {
    const report = nameReport(normalizeReport('/g/entity.lua', REPLY), AFTER, undefined);
    assert.ok(report.replaced.every((e) => e.changed === undefined));
    assert.equal(
      reportHeadline(report),
      'Hot reload entity.lua: replaced Entity.new, Entity:update, Entity:describe, count, ' +
        'Entity:history; 1 ms',
    );
  });

  it('a function the earlier text did not define is changed; a line no definition starts keeps its name', () => {
    const reply = reloadReply({
      replaced: [
        { name: 'entity:describe', line: 9 },
        { name: 'entity.weird', line: 2 },
      ],
      added: [{ name: 'entity:jump', line: 3 }],
    });
    const before = BEFORE.replace('function Entity:describe()', 'function Entity:explain()');
    const report = nameReport(normalizeReport('/g/entity.lua', reply), AFTER, before);
    assert.deepEqual(
      report.replaced.map((e) => [e.name, e.changed]),
      [
        ['Entity:describe', true],
        ['entity.weird', undefined],
      ],
    );
    assert.deepEqual(
      report.added.map((e) => e.name),
      ['Entity.new'],
    );
  });

  it('leaves a failed reload and a text luaparse cannot read as the runtime said', () => {
    const failed = normalizeReport(
      '/g/entity.lua',
      reloadReply({ status: 'error', error: 'boom', phase: 'compile' }),
    );
    assert.equal(nameReport(failed, AFTER, BEFORE), failed);
    const report = nameReport(normalizeReport('/g/entity.lua', REPLY), 'local = = =', BEFORE);
    assert.deepEqual(
      report.replaced.map((e) => e.name),
      REPLY.replaced.map((e) => e.name),
    );
  });
});

describe('session/hotReloadNames: the session compares with the text the program runs', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-reload-names-'));
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  it('the text read for breakpoints, then the text each reload loaded', async () => {
    const file = path.join(folder, 'entity.lua');
    await fs.writeFile(file, BEFORE);
    const session = new LuaSession({ ...DEFAULT_SETTINGS, cwd: folder });
    // Set before the program runs, as F5 does: the session reads the file the program loads.
    await session.setBreakpoints(file, [{ line: 7 }]);
    const conn = new FakeConnection({ ...ourRuntime(['hotReload']), hotReload: () => REPLY });
    await session.start(fakeConnector([conn]));
    // Saved on disk, then reloaded (reload on save): the disk no longer holds what ran.
    await fs.writeFile(file, AFTER);
    const first = await session.hotReload(file);
    assert.deepEqual(
      first.replaced.filter((e) => e.changed).map((e) => e.name),
      ['Entity:describe'],
    );
    // The same text again: nothing changed, every function re-bound.
    const again = await session.hotReload(file, AFTER);
    assert.match(reportHeadline(again), /: no function changed; re-bound unchanged Entity\.new, /);
    await session.stopSession();
  });
});
