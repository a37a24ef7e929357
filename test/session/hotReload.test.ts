/**
 * Hot reload in the session model, with a fake Lua link: the report normalised (lists always
 * arrays), the lines that summarise it, and the request — the wire path breakpoints use, the
 * file read from disk when no text is given, a runtime without the feature, a program that does
 * not reach a safe point in time.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RequestTimeoutError } from '../../src/protocol';
import {
  HotReloadReport,
  normalizeReport,
  reportHeadline,
  reportSummary,
} from '../../src/session/hotReload';
import { SessionError } from '../../src/session/errors';
import { LuaSession } from '../../src/session/luaSession';
import { DEFAULT_SETTINGS, SessionSettings } from '../../src/session/types';
import { FakeConnection, fakeConnector, frame, ourRuntime } from './fakes';
import { reloadReply } from './reloadReply';

const SUCCESS = reloadReply({
  chunk: '@game/player.lua',
  replaced: [
    { name: 'Player:update', line: 12 },
    { name: 'Player:draw', line: 20 },
  ],
  added: [{ name: 'Player:jump', line: 30 }],
  references: 2,
  searched: 500,
  timeMs: 2.1,
});

async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof SessionError, `expected a SessionError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (message) assert.match(e.message, message);
    return true;
  });
}

describe('session/hotReload: the report', () => {
  it('carries the file asked for, and the lists and counts of the reply', () => {
    const report = normalizeReport('/game/player.lua', reloadReply({ status: 'success' }));
    assert.deepEqual(report, {
      status: 'success',
      path: '/game/player.lua',
      replaced: [],
      added: [],
      notFound: [],
      notReplaced: [],
      active: [],
      references: 0,
      searched: 0,
      timeMs: 0,
    });
  });

  it('drops line 0 (no line) and empty reasons; keeps the error and phase of a failure', () => {
    const ok = normalizeReport(
      '/g/a.lua',
      reloadReply({
        status: 'success',
        notFound: [
          { name: 'local helper', line: 5, reason: 'a local no old function holds' },
          { name: '… and 3 more', line: 0, reason: '' },
        ],
      }),
    );
    assert.deepEqual(ok.notFound, [
      { name: 'local helper', line: 5, reason: 'a local no old function holds' },
      { name: '… and 3 more' },
    ]);
    const failed = normalizeReport(
      '/g/a.lua',
      reloadReply({
        status: 'error',
        error: "a.lua:3: '=' expected near 'x'",
        phase: 'compile',
      }),
    );
    assert.deepEqual(
      [failed.error, failed.phase, failed.replaced],
      ["a.lua:3: '=' expected near 'x'", 'compile', []],
    );
    assert.equal(
      normalizeReport('/g/a.lua', reloadReply({ status: 'error' })).error,
      'the runtime gave no reason',
    );
  });

  it('says what happened in one line', () => {
    const report = normalizeReport('/game/player.lua', SUCCESS);
    assert.equal(
      reportHeadline(report),
      'Hot reload player.lua: replaced Player:update, Player:draw; added Player:jump; 2.1 ms',
    );
    const failed = normalizeReport(
      'C:\\game\\player.lua',
      reloadReply({
        status: 'error',
        error: "player.lua:3: '=' expected near 'x'",
        phase: 'compile',
      }),
    );
    assert.equal(
      reportHeadline(failed),
      "Hot reload player.lua failed (compile): player.lua:3: '=' expected near 'x' — nothing changed",
    );
    const nothing = normalizeReport(
      '/game/player.lua',
      reloadReply({ status: 'success', timeMs: 14.6 }),
    );
    assert.equal(reportHeadline(nothing), 'Hot reload player.lua: no function changed; 15 ms');
  });

  it('lists what was not replaced, not found and still running, with reasons, on lines of their own', () => {
    const report: HotReloadReport = normalizeReport(
      '/game/m.lua',
      reloadReply({
        ...SUCCESS,
        notFound: [{ name: 'local helper', line: 5, reason: 'no old function holds it' }],
        notReplaced: [{ name: 'M.make', line: 40, reason: 'its upvalues changed, e.g. a, b' }],
        active: [{ name: 'M.loop', line: 50 }],
        incomplete: 'the search stopped after 3000000 objects',
      }),
    );
    assert.deepEqual(reportSummary(report).slice(1), [
      '  not replaced: M.make (line 40): its upvalues changed, e.g. a, b',
      '  not found in the program: local helper (line 5): no old function holds it',
      '  running now, finishing in the old code: M.loop (the next call runs the new code)',
      '  search incomplete: the search stopped after 3000000 objects',
    ]);
    assert.deepEqual(reportSummary(normalizeReport('/game/m.lua', SUCCESS)).length, 1);
  });

  it('names eight functions and counts the rest', () => {
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `f${i + 1}`, line: i + 1 }));
    const line = reportHeadline(
      normalizeReport('/g/a.lua', reloadReply({ status: 'success', replaced: many })),
    );
    assert.match(line, /replaced f1, f2, f3, f4, f5, f6, f7, f8 and 3 more; 0 ms$/);
  });
});

describe('session/hotReload: the request', () => {
  let folder: string;
  const settings = (extra: Partial<SessionSettings> = {}): SessionSettings => ({
    ...DEFAULT_SETTINGS,
    cwd: folder,
    ...extra,
  });

  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-reload-'));
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  async function connected(
    features: string[],
    reply: (info: unknown) => unknown = () => SUCCESS,
    extra: Partial<SessionSettings> = {},
  ): Promise<{ session: LuaSession; conn: FakeConnection }> {
    const session = new LuaSession(settings(extra));
    const conn = new FakeConnection({ ...ourRuntime(features), hotReload: reply });
    await session.start(fakeConnector([conn]));
    return { session, conn };
  }

  it('sends the file as breakpoints name it, with the text given, and returns the report', async () => {
    const file = path.join(folder, 'game', 'player.lua');
    const { session, conn } = await connected(['hotReload'], () => SUCCESS, {
      docPathReplace: ['/remote/root', folder],
    });
    const report = await session.hotReload(file, 'return {}');
    assert.deepEqual(conn.infoOf('hotReload'), {
      path: '/remote/root/game/player.lua',
      source: 'return {}',
    });
    assert.equal(report.path, file);
    assert.deepEqual(
      report.replaced.map((e) => e.name),
      ['Player:update', 'Player:draw'],
    );
    const call = conn.request.getCalls().find((c) => c.args[0] === 'hotReload');
    assert.deepEqual(call?.args[2], { timeoutMs: DEFAULT_SETTINGS.requestTimeoutMs });
  });

  it('reads the file from disk when no text is given (relative to cwd), without a BOM', async () => {
    await fs.writeFile(path.join(folder, 'util.lua'), '\ufefflocal M = {}\r\nreturn M\r\n');
    const { session, conn } = await connected(['hotReload']);
    await session.hotReload('util.lua');
    assert.deepEqual(conn.infoOf('hotReload'), {
      path: path.join(folder, 'util.lua'),
      source: 'local M = {}\r\nreturn M\r\n',
    });
    await rejectsWith(session.hotReload('missing.lua'), 'source-unreadable', /no such file/);
  });

  it('works stopped as well as running, and a refusal of the runtime is a report', async () => {
    const { session, conn } = await connected(['hotReload'], () =>
      reloadReply({
        status: 'error',
        error: 'no function of a loaded chunk comes from x.lua',
        phase: 'find',
      }),
    );
    const stopped = new Promise((resolve) => session.once('stopped', resolve));
    conn.stop('stopOnBreakpoint', [frame(3)]);
    await stopped;
    assert.equal(session.state, 'Stopped');
    const report = await session.hotReload(path.join(folder, 'x.lua'), 'return 1');
    assert.deepEqual([report.status, report.phase], ['error', 'find']);
    assert.equal(session.state, 'Stopped', 'the program stays where it was');
  });

  it('tells the user to copy the current LuaPanda.lua when the runtime lacks the feature', async () => {
    const { session, conn } = await connected(['pause', 'exceptions']);
    await rejectsWith(
      session.hotReload(path.join(folder, 'a.lua'), 'return 1'),
      'not-supported',
      /copy the current LuaPanda\.lua into the game/,
    );
    assert.ok(!conn.sent.includes('hotReload'), 'nothing is sent to a runtime that cannot do it');
  });

  it('says the program did not reach a safe point in N s when the reply does not come', async () => {
    const { session } = await connected(
      ['hotReload'],
      () => {
        throw new RequestTimeoutError('hotReload', 2500);
      },
      { requestTimeoutMs: 2500 },
    );
    await rejectsWith(
      session.hotReload(path.join(folder, 'a.lua'), 'return 1'),
      'request-timeout',
      /the program did not reach a safe point in 2\.5 s \(it may be blocked[^)]*\)\. .*The reload/,
    );
  });

  it('the timeout says how a running game is reached (the accelerator, tick()), under LuaJIT too', async () => {
    const { session } = await connected(['hotReload', 'jitCompiles'], () => {
      throw new RequestTimeoutError('hotReload', 10_000);
    });
    await rejectsWith(
      session.hotReload(path.join(folder, 'a.lua'), 'return 1'),
      'request-timeout',
      /safe point in 10 s .*native accelerator.*loop running compiled.*require\("LuaPanda"\)\.tick\(\) once per frame/,
    );
  });

  it('refuses before the program is connected', async () => {
    const session = new LuaSession(settings());
    await rejectsWith(
      session.hotReload(path.join(folder, 'a.lua'), 'x'),
      'invalid-state',
      /the program is idle/,
    );
  });
});
