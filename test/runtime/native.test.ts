/**
 * The native accelerator (native/*.c) against the pure-Lua hook, under every interpreter: the
 * same scenarios must behave the same either way, and with the accelerator an idle program must
 * run with no debug hook at all while pause still stops a loop without calls or allocation.
 * Also: coroutines started before the runtime attached, closures of other files created and
 * collected between breakpoint hits (a verdict must never outlive its function), a reconnect,
 * bursts of commands while coroutines run (signals under load), and a program that never gets a
 * hook back after LuaPanda.stopAttach().
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { runtimeVariants } from '../harness/interpreters';
import { TestIde } from '../harness/testIde';
import { Session, closeAll, finish, line, runtimeScenario, topOf } from './helpers';

// The programs: test/scenarios/hookPath.
const { dir: FIXTURES, lineOf, startSession } = runtimeScenario('hookPath');

const FILE = 'native.lua';

for (const lua of runtimeVariants()) {
  describe(`runtime native accelerator (${lua.label})`, function () {
    this.timeout(30_000);
    const extraIdes: TestIde[] = [];
    afterEach(async () => {
      await closeAll();
      for (const ide of extraIdes.splice(0)) await ide.close();
    });

    /** Waits until the program reported whether the accelerator is in use and its idle hook. */
    async function connected(s: Session, idle = true): Promise<void> {
      const m = await s.lua.waitForOutput(
        /NATIVE (\w+)\nHOOK ([^\n]+)\nINFO ([^\n]*)\nFIRSTUSE ([^\n]*)/,
      );
      // Attaching compiles only what a stop needs (a stop may come where compiling cannot).
      assert.equal(m[4], 'classnames, preview, variables (of 7)', 'modules compiled on first use');
      assert.equal(m[1], String(lua.native), `accelerator in use: ${m[1]}`);
      // getInfo() says why not: here, because the build is not on package.cpath.
      if (!lua.native) assert.match(m[3], /not in use: luapanda_native\d\d not found/);
      if (!idle) return;
      if (lua.native) assert.equal(m[2], 'none', 'an idle program runs with no hook at all');
      else assert.equal(m[2], 'runtime', 'the pure-Lua runtime polls with a count hook');
    }

    /** Pauses a running tight loop, ends it through the REPL and lets the program finish. */
    async function pauseTightLoop(ide: TestIde): Promise<void> {
      await ide.connection.request('pause', {});
      const stop = await ide.nextStop('stopOnPause', 5_000);
      const top = topOf(stop.stack);
      assert.ok(
        [lineOf(FILE, 'tight'), lineOf(FILE, 'tightBody'), lineOf(FILE, 'tightBody') + 1].includes(
          top.line,
        ),
        `paused at line ${top.line}`,
      );
      const set = await ide.connection.request('runREPLExpression', {
        Expression: 'running = false',
        stackId: String(top.index),
      });
      assert.equal(set[0].isSuccess, true);
      await ide.connection.request('continue', {});
    }

    it('pauses a loop without calls or allocation (no hook while idle with the accelerator)', async () => {
      const s = await startSession(lua, FILE, { args: ['tight'] });
      await connected(s);
      await s.lua.waitForOutput(/TIGHT/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await pauseTightLoop(s.ide);
      assert.match(await finish(s), /tight done\ttrue/);
    });

    if (lua.native && process.platform === 'linux') {
      it('watches the socket with no thread of its own: the kernel signals the Lua thread', async () => {
        const s = await startSession(lua, FILE, { args: ['tight'] });
        await connected(s);
        const info = await s.lua.waitForOutput(/INFO ([^\n]*)/);
        assert.match(info[1], /watcher on \(socket signals; no hook while idle\)/);
        // A second thread would send glibc's malloc down its locked path for the whole run.
        const tasks = fs.readdirSync(`/proc/${s.lua.pid}/task`);
        assert.deepEqual(tasks, [String(s.lua.pid)], 'the program runs one thread');
        await s.lua.waitForOutput(/TIGHT/);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await pauseTightLoop(s.ide);
        assert.match(await finish(s), /tight done\ttrue/);
      });
    }

    it('LuaPanda.settings.useNative = false keeps the pure-Lua hook, and getInfo() says so', async () => {
      const s = await startSession(lua, FILE, { args: ['tight', 'off'] });
      const m = await s.lua.waitForOutput(/NATIVE (\w+)\nHOOK ([^\n]+)\nINFO ([^\n]*)/);
      assert.equal(m[1], 'false');
      assert.equal(m[2], 'runtime', 'the pure-Lua runtime polls with a count hook');
      assert.match(m[3], /not in use: off \(LuaPanda\.settings\.useNative = false\)/);
      await s.lua.waitForOutput(/TIGHT/);
      await pauseTightLoop(s.ide);
      assert.match(await finish(s), /tight done\ttrue/);
    });

    it('stops in a coroutine created and started before the runtime attached', async () => {
      const s = await startSession(lua, FILE, {
        args: ['coroutine'],
        breakpoints: { [FILE]: [line(lineOf(FILE, 'earlyBody'))] },
      });
      const values: string[] = [];
      for (let i = 0; i < 3; i++) {
        const stop = await s.ide.nextStop('stopOnBreakpoint');
        const top = topOf(stop.stack);
        assert.equal(top.line, lineOf(FILE, 'earlyBody'));
        const locals = await s.ide.connection.request('getVariable', {
          varRef: '10000',
          stackId: String(top.index),
        });
        values.push(locals.find((v) => v.name === 'i')?.value ?? '?');
        await s.ide.connection.request('continue', {});
      }
      assert.deepEqual(values, ['1', '2', '3']);
      assert.match(await finish(s), /coroutine done\t2,3,6/);
    });

    it('never lends a collected closure’s verdict to a new one (logpoint counts, then a stop)', async () => {
      const s = await startSession(lua, FILE, {
        args: ['closures'],
        breakpoints: {
          [FILE]: [
            { type: 1, line: lineOf(FILE, 'target'), logMessage: 'hit {round}' },
            line(lineOf(FILE, 'closuresDone')),
          ],
        },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint', 20_000);
      assert.equal(topOf(stop.stack).line, lineOf(FILE, 'closuresDone'));
      const logs = () =>
        s.ide.notifications
          .filter((n) => n.kind === 'log' && n.cmd === 'debug_console')
          .map((n) => (n.kind === 'log' ? n.text.replace(/^.*hit /, '') : ''));
      const rounds = Array.from({ length: 60 }, (_, i) => String(i + 1));
      assert.deepEqual(logs(), rounds);
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /closures done\t\d+/);
      assert.deepEqual(logs(), [...rounds, '0']);
    });

    it('re-attaches after a disconnect and pauses a tight loop through the new connection', async () => {
      const s = await startSession(lua, FILE, { args: ['reconnect'] });
      await connected(s);
      const port = s.ide.port;
      await s.ide.close();
      const ide2 = await TestIde.start({ port });
      extraIdes.push(ide2);
      await ide2.accept(8_000);
      await ide2.handshake({ cwd: FIXTURES, waitConfigurationDone: true });
      await ide2.connection.request('configurationDone', {});
      await ide2.connection.request('runREPLExpression', {
        Expression: 'phase2 = true',
        stackId: '2',
      });
      await s.lua.waitForOutput(/TIGHT/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await pauseTightLoop(ide2);
      const exit = await s.lua.waitForExit(10_000);
      assert.equal(exit.code, 0, s.lua.stderr);
      assert.match(s.lua.stdout, /tight done\ttrue/);
    });

    it('answers bursts of commands and pauses while coroutines run, with a breakpoint elsewhere', async () => {
      const s = await startSession(lua, FILE, {
        args: ['busy'],
        breakpoints: { [FILE]: [line(lineOf(FILE, 'earlyBody'))] },
      });
      await connected(s, false);
      for (let round = 0; round < 15; round++) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            s.ide.connection.request('runREPLExpression', {
              Expression: `${round} * 100 + ${i}`,
              stackId: '2',
            }),
          ),
        );
        assert.deepEqual(
          answers.map((a) => a[0].value),
          Array.from({ length: 10 }, (_, i) => String(round * 100 + i)),
        );
        await s.ide.connection.request('pause', {});
        await s.ide.nextStop('stopOnPause', 5_000);
        await s.ide.connection.request('continue', {});
      }
      await s.ide.connection.request('runREPLExpression', {
        Expression: 'finished = true',
        stackId: '2',
      });
      assert.match(await finish(s), /busy done\ttrue\ttrue/);
    });

    it('reads called functions without lua_getinfo once the layout agreed (PUC Lua, LuaJIT GC64)', async () => {
      const s = await startSession(lua, FILE, {
        args: ['calls'],
        breakpoints: { [FILE]: [line(lineOf(FILE, 'never'))] },
      });
      await connected(s, false);
      const out = await finish(s);
      assert.match(out, /calls done\t2001000\ttrue/);
      const reads = /CALLS (\w+)/.exec(out)?.[1];
      if (!lua.native) assert.equal(reads, 'nil');
      else assert.equal(reads, 'direct');
    });

    it('resumes coroutines in C while idle (not on Lua 5.2), with the same results', async () => {
      const s = await startSession(lua, FILE, { args: ['resumes'] });
      await connected(s);
      const out = await finish(s);
      // Each round: 2i + (i + 1) + (i - 1).
      assert.match(out, new RegExp(`resumes done\t${(4 * 200 * 201) / 2}\tfalse\tdies`));
      const m = /RESUMES (?:resumes in C (\d+), in Lua (\d+)|nil)/.exec(out);
      assert.ok(m, out);
      if (!lua.native) return assert.equal(m[1], undefined);
      const inC = Number(m[1]);
      if (lua.command === 'lua5.2') {
        // 5.2's hooks hold threads: every resume takes the Lua path there (not counted in C).
        assert.equal(inC, 0);
      } else {
        assert.ok(inC >= 400, `in C: ${inC}`);
        const inLua = Number(m[2]);
        // Only the coroutine's death goes to Lua (and whatever resumes ran before the attach).
        assert.ok(inLua <= 2, `in Lua: ${inLua}`);
      }
    });

    it('never sets a hook again after LuaPanda.stopAttach()', async () => {
      const s = await startSession(lua, FILE, {
        args: ['stopattach'],
        // A breakpoint elsewhere: hooks are set until the program detaches.
        breakpoints: { [FILE]: [line(lineOf(FILE, 'earlyBody'))] },
      });
      await connected(s, false);
      await s.ide.connection.request('runREPLExpression', {
        Expression: 'detach = true',
        stackId: '2',
      });
      await s.lua.waitForOutput(/DETACHED/);
      await s.ide.waitForClose();
      assert.match(await finish(s), /stopattach done\tfalse\tfalse/);
    });
  });
}
