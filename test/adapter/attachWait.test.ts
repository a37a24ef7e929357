// The attach wait through the out-of-process adapter (DebugClient): for a client that reports
// progress the session exists at once and a cancellable progress says where the game is awaited;
// cancelling it or Stop ends the wait; a wait that runs out names connectionTimeout and the likely
// causes, shown once. A client without progress gets the attach response when the wait is over.
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';
import { TIMEOUT_MS, fixture, freePort } from './dapHarness';
import { useDapTest } from './useDapTest';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const PROGRESS = { client: { supportsProgressReporting: true } };
/** Longer than any test: only the test's own action can end such a wait. */
const FOREVER_S = 3600;

function progressBody(event: DebugProtocol.Event): DebugProtocol.ProgressStartEvent['body'] {
  return (event as DebugProtocol.ProgressStartEvent).body;
}

describe('adapter attach wait', function () {
  this.timeout(30_000);
  const t = useDapTest();

  it('answers at once and shows a cancellable progress; cancel ends the wait', async () => {
    const port = await freePort();
    // Resolves although no game ever comes: the session exists while it waits.
    await t.start('attach', { connectionPort: port, connectionTimeout: FOREVER_S }, PROGRESS);
    const [start] = await t.eventsNamed('progressStart');
    const body = progressBody(start);
    assert.equal(body.title, `Waiting for the game on 127.0.0.1:${port}`);
    assert.equal(body.cancellable, true);
    assert.match(body.message ?? '', /127\.0\.0\.1 only \(this machine\)/);
    assert.match(
      body.message ?? '',
      /phone or another machine needs "connectionHost": "0\.0\.0\.0"/,
    );
    assert.match(body.message ?? '', new RegExp(`start\\(host, ${port}\\)`));
    assert.match(body.message ?? '', /3600 s \(connectionTimeout\)/);
    await t.dc.customRequest('cancel', { progressId: body.progressId });
    await t.ended();
    const [end] = await t.eventsNamed('progressEnd');
    assert.equal((end as DebugProtocol.ProgressEndEvent).body.progressId, body.progressId);
    assert.match(t.output, /Stopped waiting for the Lua program/);
    assert.equal(t.outputs.filter((o) => o.category === 'important').length, 0);
  });

  it('after a moment without a game, says what a running game may miss and the fix', async () => {
    const port = await freePort();
    await t.start('attach', { connectionPort: port, connectionTimeout: FOREVER_S }, PROGRESS);
    const [start] = await t.eventsNamed('progressStart');
    const [update] = await t.eventsNamed('progressUpdate');
    const body = (update as DebugProtocol.ProgressUpdateEvent).body;
    assert.equal(body.progressId, progressBody(start).progressId);
    const hint = body.message ?? '';
    assert.match(hint, /No game yet after 2 s/);
    assert.match(hint, new RegExp(`start\\(host, ${port}\\)`));
    assert.match(hint, /native accelerator/);
    assert.match(hint, /LuaPanda"\)\.tick\(\) once per frame/);
    // The Debug Console says it too (a client without progress notifications sees it there).
    assert.ok(t.output.includes(hint), t.output);
    await t.dc.customRequest('cancel', { progressId: body.progressId });
    await t.ended();
  });

  it('Stop (disconnect) ends the wait at once', async () => {
    const port = await freePort();
    await t.start('attach', { connectionPort: port, connectionTimeout: FOREVER_S }, PROGRESS);
    await t.eventsNamed('progressStart');
    await t.dc.disconnectRequest({});
    await t.ended();
    await t.eventsNamed('progressEnd');
    // The port is free again: the wait released it.
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });

  it('names connectionTimeout and the likely causes when no game came, once', async () => {
    const port = await freePort();
    await t.start('attach', { connectionPort: port, connectionTimeout: 0.3 }, PROGRESS);
    await t.ended();
    const important = t.outputs.filter((o) => o.category === 'important');
    assert.equal(important.length, 1, JSON.stringify(t.outputs));
    const message = important[0].text;
    assert.match(message, /No game connected within 0\.3 s \(connectionTimeout\)/);
    assert.match(message, new RegExp(`port ${port} on 127\\.0\\.0\\.1 only \\(this machine\\)`));
    assert.match(message, new RegExp(`require\\("LuaPanda"\\)\\.start\\(host, ${port}\\)`));
    assert.match(message, /no luasocket/);
    assert.match(message, /Set "connectionHost": "0\.0\.0\.0" \(every interface\)/);
    assert.match(message, /firewall/);
    assert.match(message, /gives the runtime no chance to try/);
    assert.match(message, /tick\(\) once per frame/);
    const [ended] = await t.eventsNamed('luapandaEnded');
    assert.deepEqual((ended.body as { error: unknown }).error, { code: 'no-connection', id: 3025 });
    await t.eventsNamed('progressEnd');
  });

  it('without progress support, the attach fails with that message (and it is shown once)', async () => {
    const port = await freePort();
    await assert.rejects(
      t.start('attach', { connectionPort: port, connectionTimeout: 0.3 }),
      /No game connected within 0\.3 s \(connectionTimeout\)/,
    );
    await t.ended();
    assert.equal(t.outputs.filter((o) => o.category === 'important').length, 0);
    assert.equal(t.events.filter((e) => e.event === 'progressStart').length, 0);
  });

  it('debugs a game that connects while the progress shows', async () => {
    const lua = luaInterpreters()[0];
    const file = fixture('attach.lua');
    const game = await t.attachGame(lua, file, {
      ...PROGRESS,
      breakpoints: { [file]: [{ line: 7 }] },
      luaPath: [RUNTIME_DIR],
    });
    await t.stoppedAt('breakpoint', file, 7);
    const [end] = await t.eventsNamed('progressEnd');
    assert.equal((end as DebugProtocol.ProgressEndEvent).body.message, 'The game connected.');
    await t.dc.disconnectRequest({});
    assert.equal((await game.waitForExit(TIMEOUT_MS)).code, 0, game.stderr);
  });
});
