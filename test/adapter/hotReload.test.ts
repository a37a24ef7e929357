/**
 * Hot reload through DAP (`luapanda/hotReload`) with the DAP test client against the adapter out
 * of process, on real Lua: a game loop (test/scenarios/hotReload, copied to a temp folder, which the
 * test changes) prints values computed by a module's functions; the module is reloaded while the
 * game is stopped at a breakpoint and while it runs, and its output changes from the next call
 * on while the module's state goes on. A file that does not compile changes nothing.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HotReloadReport } from '../../src/session/hotReload';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { markerLine, rawRequest } from './dapHarness';
import { useDapTest } from './useDapTest';

const FIXTURE = scenario('hotReload').dir;
const REQUEST = 'luapanda/hotReload';

/** A copy of the reload game in a temp folder: the test rewrites its scoring.lua. */
async function gameCopy(): Promise<{ folder: string; game: string; scoring: string }> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-reload-'));
  for (const file of ['game.lua', 'scoring.lua']) {
    await fs.copyFile(path.join(FIXTURE, file), path.join(folder, file));
  }
  return { folder, game: path.join(folder, 'game.lua'), scoring: path.join(folder, 'scoring.lua') };
}

/** scoring.lua with points ten times the frame: the change every test looks for. */
async function tenfold(scoring: string): Promise<string> {
  const text = (await fs.readFile(scoring, 'utf8')).replace(
    'return frame * FACTOR',
    'return frame * 10',
  );
  assert.match(text, /frame \* 10/);
  return text;
}

interface Line {
  frame: number;
  points: number;
  total: number;
}

function frameLines(output: string): Line[] {
  return [...output.matchAll(/^frame (\d+) points (\d+) total (\d+)$/gm)].map((m) => ({
    frame: Number(m[1]),
    points: Number(m[2]),
    total: Number(m[3]),
  }));
}

describe('adapter: luapanda/hotReload arguments', function () {
  this.timeout(30_000);
  const t = useDapTest();

  it('refuses arguments without a path, saying what is expected', async () => {
    for (const args of [{}, { path: 5 }, { path: 'a.lua', source: 7 }]) {
      const response = await rawRequest(t.dc, REQUEST, args);
      assert.equal(response.success, false, JSON.stringify(args));
      assert.match(
        String(response.message),
        /^Invalid luapanda\/hotReload arguments \(".*":.*\); expected \{"path"/,
      );
    }
  });

  it('says there is no session before launch or attach', async () => {
    const response = await rawRequest(t.dc, REQUEST, { path: 'a.lua' });
    assert.equal(response.success, false);
    assert.match(String(response.message), /No Lua session: launch or attach first/);
  });
});

for (const lua of luaInterpreters()) {
  describe(`adapter hot reload on ${lua.command}`, function () {
    this.timeout(60_000);
    const t = useDapTest();
    let copy: Awaited<ReturnType<typeof gameCopy>>;

    beforeEach(async () => {
      copy = await gameCopy();
    });
    afterEach(async () => {
      await fs.rm(copy.folder, { recursive: true, force: true });
    });

    async function reload(args: { path: string; source?: string }): Promise<HotReloadReport> {
      const response = (await t.dc.customRequest(REQUEST, args)) as DebugProtocol.Response;
      return response.body as HotReloadReport;
    }

    it('reloads a module while stopped at a breakpoint: the next call runs the new code, state goes on', async () => {
      const line = markerLine(copy.game, 'call');
      await t.launch(
        lua.command,
        copy.game,
        { args: ['6'] },
        { breakpoints: { [copy.game]: [{ line, condition: 'frame == 3' }] } },
      );
      await t.stoppedAt('breakpoint', copy.game, line);
      await fs.writeFile(copy.scoring, await tenfold(copy.scoring));
      // No text: the adapter reads the file from disk.
      const report = await reload({ path: copy.scoring });
      assert.equal(report.status, 'success', JSON.stringify(report));
      assert.ok(
        report.replaced.some((e) => /points$/.test(e.name)),
        `points is replaced: ${JSON.stringify(report)}`,
      );
      assert.deepEqual(report.notFound, [], 'every function of the file is found');
      assert.match(t.output, /Hot reload scoring\.lua: replaced [^\n]*points/);
      await t.dc.setBreakpointsRequest({ source: { path: copy.game }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.deepEqual(frameLines(t.output), [
        { frame: 1, points: 1, total: 1 },
        { frame: 2, points: 2, total: 3 },
        { frame: 3, points: 30, total: 33 },
        { frame: 4, points: 40, total: 73 },
        { frame: 5, points: 50, total: 123 },
        { frame: 6, points: 60, total: 183 },
      ]);
    });

    it('reloads the text it is given while the game runs: new points from one frame on, the total goes on', async () => {
      await t.launch(lua.command, copy.game, { args: ['3000'] });
      // Past LuaJIT's hot-loop threshold: the loop runs compiled by now (reached through tick()).
      await t.waitForOutput(/^frame 80 points 80 total 3240$/m);
      const source = await tenfold(copy.scoring);
      await fs.writeFile(copy.scoring, source);
      const seenBefore = frameLines(t.output).length;
      const report = await reload({ path: copy.scoring, source });
      assert.equal(report.status, 'success', JSON.stringify(report));
      assert.ok(
        report.replaced.some((e) => /points$/.test(e.name)),
        JSON.stringify(report),
      );
      // A frame with the new points, then two more (stdout may lag behind the DAP response).
      await t.waitForOutput(/^frame (\d+) points (?:\1)0 total/m);
      const switched = frameLines(t.output).find((l) => l.points === l.frame * 10)?.frame ?? 0;
      await t.waitForOutput(new RegExp(`^frame ${switched + 2} `, 'm'));
      const lines = frameLines(t.output);
      const first = lines.findIndex((l) => l.points === l.frame * 10);
      assert.ok(first >= seenBefore, 'every frame printed before the reload ran the old code');
      lines.forEach((l, i) => {
        // Old code up to one frame, new code from the next on: the switch happens once.
        assert.equal(l.points, i < first ? l.frame : l.frame * 10, `frame ${l.frame}`);
        assert.equal(l.total, (i > 0 ? lines[i - 1].total : 0) + l.points, `total at ${l.frame}`);
      });
    });

    it('changes nothing when the new text does not compile, and says why', async () => {
      const line = markerLine(copy.game, 'call');
      await t.launch(
        lua.command,
        copy.game,
        { args: ['4'] },
        { breakpoints: { [copy.game]: [{ line, condition: 'frame == 2' }] } },
      );
      await t.stoppedAt('breakpoint', copy.game, line);
      const broken = (await tenfold(copy.scoring)).replace('return frame * 10', 'return frame *');
      const report = await reload({ path: copy.scoring, source: broken });
      assert.deepEqual([report.status, report.phase], ['error', 'compile'], JSON.stringify(report));
      assert.match(String(report.error), /scoring\.lua:\d+:/);
      assert.deepEqual(report.replaced, []);
      assert.match(t.output, /Hot reload scoring\.lua failed \(compile\): .* — nothing changed/);
      await t.dc.setBreakpointsRequest({ source: { path: copy.game }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.deepEqual(
        frameLines(t.output).map((l) => l.points),
        [1, 2, 3, 4],
      );
    });
  });
}
