/**
 * The engine game (test/scenarios/engine) run plain by each engine host: boot.lua through the
 * host's lua_pcall, game/player.lua through its searcher under a root-relative chunk name, Update
 * from C every frame, the job coroutine resumed from C, and the planted error that only the host's
 * lua_pcall catches, logged with the host's traceback while the frames go on. What the other
 * engine-hosted suites (the differential one, attach and error tests) build on.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scenario } from '../harness/scenario';
import { BUNDLE_DIR } from '../runtime/helpers';
import {
  EngineHost,
  HOST_NAMES,
  engineHostVariants,
  hostMissing,
  runEngine,
} from '../harness/engineHost';

const game = scenario('engine');
const FRAMES = 8;
const ERROR_FRAME = 4;
const HIT = game.line('game/player.lua', 'hit');
const PLANTED = game.line('boot.lua', 'planted');

/** What the host writes to stdout for the game, line by line (numbers matched loosely). */
function expectedStdout(host: EngineHost): RegExp[] {
  const lines: RegExp[] = [
    host.isLuaJIT ? /^\[engine\] LuaJIT 2\.1/ : new RegExp(`^\\[engine\\] ${host.version}\\.\\d+$`),
    /^\[lua\] boot done: player hero from @game\/player\.lua$/,
  ];
  for (let f = 1; f <= FRAMES; f++) {
    lines.push(
      new RegExp(`^\\[lua\\] frame ${f}: player at \\d+\\.\\d\\d \\(was \\d+\\.\\d\\d\\) f${f}$`),
    );
    lines.push(new RegExp(`^\\[lua\\] job tick ${f} \\(\\d+\\.\\d\\d s\\)$`));
  }
  lines.push(new RegExp(`^\\[engine\\] ran ${FRAMES} frames$`));
  return lines;
}

function checkRun(host: EngineHost, stdout: string, stderr: string): void {
  const got = stdout.split('\n');
  assert.equal(got.pop(), '', 'stdout ends with a newline');
  const want = expectedStdout(host);
  assert.equal(got.length, want.length, `stdout:\n${stdout}`);
  want.forEach((pattern, i) => assert.match(got[i], pattern, `stdout line ${i + 1}`));
  // The player moved 2 units a second for FRAMES frames of 10 ms.
  assert.match(stdout, new RegExp(`frame ${FRAMES}: player at 0\\.16 `));

  // One error, the planted one, logged by the host's message handler with its traceback.
  const errors = stderr.split('\n').filter((l) => l.startsWith('[engine] error'));
  assert.equal(errors.length, 1, `stderr:\n${stderr}`);
  assert.match(
    errors[0],
    new RegExp(
      `^\\[engine\\] error in Update: game/player\\.lua:${HIT}: attempt to perform arithmetic on .*'damage'`,
    ),
  );
  const trace = stderr.slice(stderr.indexOf('stack traceback:'));
  assert.match(trace, new RegExp(`^\\s+game/player\\.lua:${HIT}: in `, 'm'));
  assert.match(trace, new RegExp(`^\\s+boot\\.lua:${PLANTED}: in `, 'm'));
  // The frame that failed printed before the error; the next frames ran after it.
  assert.ok(stdout.indexOf(`frame ${ERROR_FRAME}:`) < stdout.indexOf(`frame ${ERROR_FRAME + 1}:`));
}

describe('engine hosts: the engine game run plain', function () {
  this.timeout(60_000);
  const { hosts } = engineHostVariants();
  for (const name of HOST_NAMES) {
    const host = hosts.find((h) => h.host === name && !h.native);
    if (!host) {
      it.skip(`engine-${name}: ${hostMissing(name) ?? 'not built'}`);
      continue;
    }
    describe(`engine-${name}`, () => {
      it('boots, runs every frame and job tick, and logs the planted error with its traceback', async () => {
        const run = await runEngine(host, { root: game.dir, frames: FRAMES, runtime: false });
        assert.deepEqual(run.exit, { code: 0, signal: null }, run.stderr);
        checkRun(host, run.stdout, run.stderr);
      });

      it('prints the same with a game-sized heap (48 MB of Lua tables at boot)', async () => {
        const small = await runEngine(host, { root: game.dir, frames: FRAMES, runtime: false });
        const large = await runEngine(host, {
          root: game.dir,
          frames: FRAMES,
          ballastMb: 48,
          runtime: false,
        });
        assert.deepEqual(large.exit, { code: 0, signal: null }, large.stderr);
        assert.equal(large.stdout, small.stdout);
        assert.equal(large.stderr, small.stderr);
      });

      it('grows the heap by the ballast, logs a failed job, stops on Quit, exits 1 when boot.lua fails', async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-engine-'));
        try {
          const boot = path.join(dir, 'boot.lua');
          fs.writeFileSync(
            boot,
            'print("heap MB", math.floor(collectgarbage("count") / 1024))\n' +
              'local n = 0\nfunction Update() n = n + 1 Quit = n == 3 end\n' +
              'Jobs = { coroutine.create(function() coroutine.yield() error("job failed") end) }\n',
          );
          const quits = await runEngine(host, { root: dir, ballastMb: 24, runtime: false });
          assert.deepEqual(quits.exit, { code: 0, signal: null }, quits.stderr);
          assert.match(quits.stdout, /^\[engine\] ran 3 frames$/m);
          // A failed job is logged with its own traceback, dropped, and the frames go on.
          assert.match(
            quits.stderr,
            /^\[engine\] error in job: boot\.lua:4: job failed\nstack traceback:\n(\t.*\n)*\tboot\.lua:4: in /m,
          );
          const heapMb = Number(/^\[lua\] heap MB\t(\d+)$/m.exec(quits.stdout)?.[1]);
          assert.ok(heapMb >= 24, `the ballast left a heap of ${heapMb} MB`);
          fs.writeFileSync(boot, 'error("broken boot")\n');
          const broken = await runEngine(host, { root: dir, frames: 1, runtime: false });
          assert.equal(broken.exit.code, 1);
          assert.match(broken.stderr, /^\[engine\] error in boot\.lua: boot\.lua:1: broken boot\n/);
          assert.doesNotMatch(broken.stdout, /ran \d+ frames/);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });
    });
  }
});

describe('engine hosts: the runtime inside a host', function () {
  this.timeout(60_000);
  for (const host of engineHostVariants().hosts) {
    it(`${host.label}: loads LuaPanda.lua from the script root and ${host.native ? 'the accelerator from LUA_CPATH' : 'no accelerator'}`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-engine-'));
      try {
        fs.copyFileSync(path.join(BUNDLE_DIR, 'LuaPanda.lua'), path.join(dir, 'LuaPanda.lua'));
        // Port 1: nobody listens there; start() goes on without an IDE.
        fs.writeFileSync(
          path.join(dir, 'boot.lua'),
          'local lp = require("LuaPanda")\nlp.start("127.0.0.1", 1)\n' +
            'print(debug.getinfo(lp.start, "S").source)\nprint(lp.doctor())\n',
        );
        const run = await runEngine(host, { root: dir, frames: 1, runtime: false });
        assert.deepEqual(run.exit, { code: 0, signal: null }, run.stderr);
        assert.match(run.stdout, /^\[lua\] @LuaPanda\.lua$/m);
        if (host.native) assert.match(run.stdout, /luapanda_native5\d in use/);
        else assert.doesNotMatch(run.stdout, /luapanda_native5\d in use/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
