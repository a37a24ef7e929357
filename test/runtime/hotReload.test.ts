/**
 * Hot reload (hotreload.lua) on every interpreter, pure and native: a game loop prints values
 * computed by the module shop.lua; the test writes its new version and reloads it while the
 * program is stopped and while it runs, and checks what the program prints afterwards — new code
 * from the next call on, module state and existing objects kept, methods reached through a
 * metatable replaced, a helper held as an upvalue replaced, a global table filled in place
 * replaced, the function active on the stack finishing in the old version — and that a syntax
 * error or an error raised by the new top level changes nothing and says why.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runtimeVariants } from '../harness/interpreters';
import { spawnLua } from '../harness/luaProcess';
import { HotReloadReply } from '../../src/protocol';
import { scenario } from '../harness/scenario';
import { BUNDLE_DIR, Session, closeAll, finish, line, startSession } from './helpers';

const HOT_RELOAD = scenario('hotReload');
/** The game loop that starts the runtime itself (attach.lua) and its module, v1 and v2. */
const SOURCES = HOT_RELOAD.file('objects');
const V1 = fs.readFileSync(path.join(SOURCES, 'shop.lua'), 'utf8');
const V2 = fs.readFileSync(path.join(SOURCES, 'shop_v2.lua'), 'utf8');
const ACTIVE_LINE = V1.split('\n').findIndex((l) => l.includes('-- @active')) + 1;
/** Every value of a frame line, old and new version (see objects/attach.lua). */
const OLD = { total: 'items=', price: 2, tag: 'v1', hooks: 'h1', report: 'old-a/old-b' };
const NEW = { total: 'ITEMS:', price: 3, tag: 'v2', hooks: 'h2', report: 'new-a/new-b' };
const FRAME =
  /^frame (\d+) (items=|ITEMS:)(\d+) price=(\d+) served=(\d+) tag=(\w+) hooks=(\w+) report=(\S+)$/;

const madeDirs: string[] = [];
after(() => {
  for (const dir of madeDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of the game (the test rewrites shop.lua). */
function gameDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-reload-'));
  madeDirs.push(dir);
  for (const name of ['attach.lua', 'shop.lua']) {
    fs.copyFileSync(path.join(SOURCES, name), path.join(dir, name));
  }
  return dir;
}

function expectedLine(frame: number, v: typeof OLD): string {
  const items = (frame * (frame + 1)) / 2;
  return (
    `frame ${frame} ${v.total}${items} price=${frame * v.price} served=${frame} tag=${v.tag} ` +
    `hooks=${v.hooks} report=${v.report}`
  );
}

function frameLines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith('frame '));
}

const names = (list: { name: string }[]) => list.map((e) => e.name);

async function reload(s: Session, dir: string, source: string): Promise<HotReloadReply> {
  const file = path.join(dir, 'shop.lua');
  fs.writeFileSync(file, source);
  return s.ide.connection.request('hotReload', { path: file, source }, { timeoutMs: 15_000 });
}

/** Stopped inside shop.report on frame 3 (after the frame's other values were computed). */
async function stoppedOnFrame3(
  lua: Parameters<typeof startSession>[0],
  dir: string,
  condition = 'frame == 3',
) {
  const s = await startSession(lua, 'attach.lua', {
    dir,
    args: ['6'],
    breakpoints: { 'shop.lua': [{ ...line(ACTIVE_LINE), condition }] },
  });
  await s.ide.nextStop('stopOnBreakpoint');
  return s;
}

const oldRun = [1, 2, 3, 4, 5, 6].map((f) => expectedLine(f, OLD));

for (const lua of runtimeVariants()) {
  describe(`hot reload (${lua.label})`, function () {
    this.timeout(30_000);
    afterEach(closeAll);

    it('while stopped: new code from the next call, state and objects kept, the active call ends in the old code', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const report = await reload(s, dir, V2);
      assert.equal(report.status, 'success', JSON.stringify(report));
      assert.equal(report.module, 'shop');
      assert.match(report.chunk ?? '', /shop\.lua$/);
      const replaced = names(report.replaced);
      for (const name of ['shop.price', 'local rate', 'shop.count', 'Hooks.describe']) {
        assert.ok(replaced.includes(name), `${name} replaced: ${replaced.join(', ')}`);
      }
      assert.ok(
        replaced.some((n) => /^shop\.Cart[.:]total$/.test(n)),
        `Cart:total replaced: ${replaced.join(', ')}`,
      );
      assert.deepEqual(names(report.added), ['shop.bonus']);
      assert.ok(names(report.active).includes('shop.report'), JSON.stringify(report.active));
      assert.deepEqual(report.notFound, []);
      assert.ok(report.references > 0 && report.timeMs >= 0);
      await s.ide.connection.request('continue', {});
      const stdout = await finish(s);
      assert.deepEqual(frameLines(stdout), [
        ...[1, 2, 3].map((f) => expectedLine(f, OLD)),
        ...[4, 5, 6].map((f) => expectedLine(f, NEW)),
      ]);
    });

    it('a breakpoint in the reloaded file stops in the new code', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir, 'frame == 3 or frame == 5');
      assert.equal((await reload(s, dir, V2)).status, 'success');
      await s.ide.connection.request('continue', {});
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(stop.stack[0]?.line, ACTIVE_LINE);
      const [a] = await s.ide.connection.request('runREPLExpression', {
        Expression: 'a .. "@" .. frame',
        stackId: String(stop.stack[0]?.index ?? 2),
      });
      assert.equal(a?.value, '"new-a@5"');
      await s.ide.connection.request('continue', {});
      assert.equal(frameLines(await finish(s)).length, 6);
    });

    it('while running: the program switches to the new code at a safe point, state kept', async () => {
      const dir = gameDir();
      const s = await startSession(lua, 'attach.lua', { dir, args: ['4000', 'untilNew'] });
      await s.lua.waitForOutput(/^frame 5 /m, 15_000);
      const report = await reload(s, dir, V2);
      assert.equal(report.status, 'success', JSON.stringify(report));
      const stdout = await finish(s);
      const lines = frameLines(stdout);
      const switchAt = lines.findIndex((l) => l.includes('tag=v2'));
      assert.ok(switchAt >= 5, `the switch came after frame 5: ${lines.slice(0, 8).join('\n')}`);
      // The reload lands between two instructions: the frame it lands in may mix both versions.
      lines.forEach((text, i) => {
        const frame = i + 1;
        const m = FRAME.exec(text);
        assert.ok(m, `frame line: ${text}`);
        assert.equal(Number(m[1]), frame);
        assert.equal(Number(m[3]), (frame * (frame + 1)) / 2, 'the object kept its state');
        assert.equal(Number(m[5]), frame, 'the module counter kept its state');
        if (i < switchAt - 1) assert.equal(text, expectedLine(frame, OLD));
        if (i > switchAt) assert.equal(text, expectedLine(frame, NEW));
      });
      assert.equal(lines.length, switchAt + 5, 'five frames ran the new code');
    });

    it('a function breakpoint on a reloaded function stops in its new version', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const [bound] = await s.ide.connection
        .request('setFunctionBreakPoint', {
          names: [{ name: 'shop.report', condition: 'frame == 5' }],
        })
        .then((r) => r.results ?? []);
      assert.equal(bound?.verified, true, JSON.stringify(bound));
      assert.equal((await reload(s, dir, V2)).status, 'success');
      await s.ide.connection.request('continue', {});
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const [a] = await s.ide.connection.request('runREPLExpression', {
        Expression: 'frame',
        stackId: String(stop.stack[0]?.index ?? 2),
      });
      // Only the new shop.report runs after the reload: the breakpoint followed it.
      assert.equal(a?.value, '5');
      await s.ide.connection.request('continue', {});
      assert.equal(frameLines(await finish(s)).length, 6);
    });

    it('a syntax error changes nothing and gives the compiler message', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const broken = V2.replace('return "v2"', 'return = "v2"');
      const report = await reload(s, dir, broken);
      assert.equal(report.status, 'error');
      assert.equal(report.phase, 'compile');
      assert.match(report.error ?? '', /shop\.lua:7:/);
      assert.deepEqual(report.replaced, []);
      await s.ide.connection.request('continue', {});
      assert.deepEqual(frameLines(await finish(s)), oldRun);
    });

    it('an error raised by the new top level changes nothing, not even a table it filled in place', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const failing = V2.replace(/return M\s*$/, 'error("config missing")\nreturn M\n');
      assert.notEqual(failing, V2);
      const report = await reload(s, dir, failing);
      assert.equal(report.status, 'error');
      assert.equal(report.phase, 'run');
      assert.match(report.error ?? '', /config missing/);
      await s.ide.connection.request('continue', {});
      // hooks=h1 throughout: the new top level had already put its Hooks.describe in place.
      assert.deepEqual(frameLines(await finish(s)), oldRun);
    });

    it('the file whose top level is running is refused: it would run again', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const game = path.join(dir, 'attach.lua');
      const source = fs.readFileSync(game, 'utf8');
      const report = await s.ide.connection.request('hotReload', { path: game, source });
      assert.equal(report.status, 'error');
      assert.equal(report.phase, 'run');
      assert.match(report.error ?? '', /top level of .*attach\.lua is running/);
      await s.ide.connection.request('continue', {});
      assert.deepEqual(frameLines(await finish(s)), oldRun);
    });

    it('a file the program has not loaded is refused and says so', async () => {
      const dir = gameDir();
      const s = await stoppedOnFrame3(lua, dir);
      const other = path.join(dir, 'inventory.lua');
      const report = await s.ide.connection.request('hotReload', {
        path: other,
        source: 'return {}',
      });
      assert.equal(report.status, 'error');
      assert.equal(report.phase, 'find');
      assert.match(report.error ?? '', /inventory\.lua/);
      await s.ide.connection.request('continue', {});
      assert.deepEqual(frameLines(await finish(s)), oldRun);
    });
  });
}

/** What styles.lua prints: each reload's report, then what the program computes after it. */
const STYLES_OUTPUT = [
  'counter\told1',
  'counter.lua\tsuccess\t\treplaced=counter.new\tadded=\tnotReplaced=early.inc',
  'counter\told2\tnew1',
  'globals.lua\tsuccess\t\treplaced=greet\tadded=farewell\tnotReplaced=',
  'globals\thi ann\thi bob\t7\tbye cy',
  'coroutine\ttrue\tw1',
  'worker.lua\tsuccess\t\treplaced=worker.work\tadded=\tnotReplaced=',
  'coroutine\ttrue\tw2',
  'util.lua\tsuccess\t\treplaced=util.twice\tadded=\tnotReplaced=',
  'dofile\t15',
  '',
].join('\n');

for (const lua of runtimeVariants().filter((v) => !v.native)) {
  describe(`hot reload from the program, code styles (${lua.command})`, function () {
    this.timeout(15_000);

    it('closure objects keep old methods, globals and dofile modules are replaced, data and coroutine locals follow', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-reload-styles-'));
      madeDirs.push(dir);
      const proc = spawnLua(lua, HOT_RELOAD.file('styles.lua'), {
        args: [dir],
        luaPath: [BUNDLE_DIR],
        cwd: dir,
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.describe());
      assert.equal(proc.stdout, STYLES_OUTPUT);
    });
  });
}
