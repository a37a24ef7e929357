/**
 * Breakpoint rules in the bundled runtime: conditions, hit conditions, logpoints with {expr}
 * interpolation, rules that do not compile (reported when set), and LuaJIT hot loops; and
 * conditions (lua/luapanda/conditions.lua) evaluated directly on every interpreter. The rules'
 * programs are the scenario test/scenarios/breakpointRules.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { luaInterpreters, runtimeVariants } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';
import { closeAll, finish, fixture, line, lineOf, startSession, topOf } from './helpers';

const RULES = scenario('breakpointRules');

for (const lua of runtimeVariants()) {
  describe(`runtime breakpoints (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('stops only where the condition holds', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: {
          'basic.lua': [{ type: 0, line: lineOf('basic.lua', 'add'), condition: 'b == 3' }],
        },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: String(topOf(stop.stack).index),
      });
      assert.equal(locals.find((v) => v.name === 'b')?.value, '3');
      await s.ide.connection.request('continue', {});
      await finish(s);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
    });

    it('evaluates conditions against locals (innermost of a shadowed name), upvalues, globals and varargs, at any depth; a failing one is false and said once', async () => {
      const at = (marker: string) => RULES.line('conditions.lua', marker);
      // (Lua 5.1 has no way to read a frame's varargs: there `...` is empty.)
      const varargs = !lua.isLuaJIT && /5\.1/.test(lua.version) ? 0 : 1;
      const bks = [
        // x is 41 at i = 4: the second local x, not the first (40)
        {
          type: 0,
          line: at('check'),
          condition: `x == 41 and scale == 10 and i > limit and select("#", ...) == ${varargs}`,
        },
        { type: 0, line: at('fail'), condition: 'nosuch.field > 1' },
        // the same condition at every depth of a 300-deep recursion: true only near the bottom
        { type: 0, line: at('deep'), condition: 'n == 1' },
      ];
      // An endless condition is stopped by the instruction budget (PUC Lua; LuaJIT cannot bound it).
      if (!lua.isLuaJIT) bks.push({ type: 0, line: at('loop'), condition: 'spin()' });
      const s = await startSession(lua, 'conditions.lua', {
        dir: RULES.dir,
        breakpoints: { 'conditions.lua': bks },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(stop.stack).line, at('check'));
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: String(topOf(stop.stack).index),
      });
      assert.equal(locals.find((v) => v.name === 'i')?.value, '4');
      await s.ide.connection.request('continue', {});
      const bottom = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(bottom.stack).line, at('deep'));
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /total\t\d+\tdeep\t300\tfunction/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 2);
      const said = s.ide.notifications.flatMap((n) =>
        n.kind === 'log' && /condition of the breakpoint at line/.test(n.text) ? [n.text] : [],
      );
      assert.equal(said.filter((t) => t.includes('nosuch.field')).length, 1, said.join('\n'));
      if (!lua.isLuaJIT) {
        assert.equal(said.filter((t) => t.includes('endless loop')).length, 1, said.join('\n'));
      }
    });

    it('stops once at a line whose call stops in the callee first (LuaJIT fires the line again on return)', async () => {
      const outer = lineOf('nested_bp.lua', 'outer');
      const inner = lineOf('nested_bp.lua', 'inner');
      const s = await startSession(lua, 'nested_bp.lua', {
        breakpoints: { 'nested_bp.lua': [line(outer), line(inner)] },
      });
      const lines: number[] = [];
      for (let i = 0; i < 4; i++) {
        const stop = await s.ide.nextStop('stopOnBreakpoint');
        lines.push(topOf(stop.stack).line);
        await s.ide.connection.request('continue', {});
      }
      assert.match(await finish(s), /nested done\t8/);
      assert.deepEqual(lines, [outer, inner, outer, inner]);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 4);
    });

    for (const [hit, expected] of [
      ['>= 4', ['4', '5']],
      ['== 2', ['2']],
      ['% 2', ['2', '4']],
      ['< 2', ['1']],
      ['3', ['3', '4', '5']],
    ] as const) {
      it(`counts hits: hitCondition "${hit}"`, async () => {
        const s = await startSession(lua, 'basic.lua', {
          breakpoints: {
            'basic.lua': [{ type: 2, line: lineOf('basic.lua', 'add'), hitCondition: hit }],
          },
        });
        const seen: string[] = [];
        for (let i = 0; i < expected.length; i++) {
          const stop = await s.ide.nextStop('stopOnBreakpoint');
          const locals = await s.ide.connection.request('getVariable', {
            varRef: '10000',
            stackId: String(topOf(stop.stack).index),
          });
          seen.push(locals.find((v) => v.name === 'b')?.value ?? '?');
          await s.ide.connection.request('continue', {});
        }
        await finish(s);
        assert.deepEqual(seen, expected);
        assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, expected.length);
      });
    }

    it('stops once per execution of a line that makes a call (LuaJIT fires such lines twice)', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [{ type: 2, line: lineOf('basic.lua', 'accCall') }] },
      });
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        const stop = await s.ide.nextStop('stopOnBreakpoint');
        const locals = await s.ide.connection.request('getVariable', {
          varRef: '10000',
          stackId: String(topOf(stop.stack).index),
        });
        seen.push(locals.find((v) => v.name === 'i')?.value ?? '?');
        await s.ide.connection.request('continue', {});
      }
      await finish(s);
      assert.deepEqual(seen, ['1', '2', '3', '4', '5']);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 5);
    });

    it('prints logpoints with {expr} interpolation and never stops there', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: {
          'basic.lua': [
            {
              type: 1,
              line: lineOf('basic.lua', 'add'),
              logMessage: 'a={a} b={b} sum={a + b} {{literal}}',
            },
          ],
        },
      });
      await finish(s);
      const logs = s.ide.notifications
        .filter((n) => n.kind === 'log' && n.cmd === 'debug_console')
        .map((n) => (n.kind === 'log' ? n.text : ''));
      assert.equal(logs.length, 5);
      assert.match(logs[2], /a=3 b=3 sum=6 \{literal\}$/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 0);
    });

    it('reports conditions, hit conditions and log templates that do not parse when they are set', async () => {
      const s = await startSession(lua, 'basic.lua', { settings: { stopOnEntry: true } });
      await s.ide.nextStop('stopOnEntry');
      const reply = await s.ide.connection.request('setBreakPoint', {
        path: fixture('basic.lua'),
        bks: [
          { type: 0, line: lineOf('basic.lua', 'add'), condition: 'b ==' },
          { type: 2, line: lineOf('basic.lua', 'accNext'), hitCondition: 'sometimes' },
          { type: 1, line: lineOf('basic.lua', 'accReturn'), logMessage: 'x={x' },
          { type: 2, line: lineOf('basic.lua', 'print') },
        ],
      });
      const results = reply.results ?? [];
      assert.equal(results.length, 4);
      assert.deepEqual(
        results.map((r) => r.verified),
        [false, false, false, true],
      );
      assert.match(results[0].message ?? '', /condition/);
      assert.match(results[1].message ?? '', /hit condition/);
      assert.match(results[2].message ?? '', /unclosed/);
      await s.ide.connection.request('continue', {});
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(
        topOf(stop.stack).line,
        lineOf('basic.lua', 'print'),
        'only the valid breakpoint fires',
      );
      await s.ide.connection.request('continue', {});
      await finish(s);
    });

    it('hits a breakpoint in a loop that was hot (JIT-compiled under LuaJIT) before it was set', async () => {
      const s = await startSession(lua, 'hotloop.lua');
      await s.ide.nextStop('stopOnCodeBreakpoint');
      await s.ide.connection.request('setBreakPoint', {
        path: fixture('hotloop.lua'),
        bks: [{ type: 2, line: lineOf('hotloop.lua', 'step') }],
      });
      await s.ide.connection.request('continue', {});
      const stop = await s.ide.nextStop('stopOnBreakpoint', 8_000);
      assert.equal(topOf(stop.stack).line, lineOf('hotloop.lua', 'step'));
      assert.equal(stop.stack[1].line, lineOf('hotloop.lua', 'hot'));
      await s.ide.connection.request('setBreakPoint', { path: fixture('hotloop.lua'), bks: [] });
      await s.ide.connection.request('continue', {});
      const out = await finish(s);
      assert.match(out, /hot done\t1000000/);
    });

    it('keeps LuaJIT compiling with a breakpoint elsewhere, and still stops in a loop compiled before its breakpoint came', async () => {
      const at = (marker: string) => lineOf('jitkeep.lua', marker);
      const s = await startSession(lua, 'jitkeep.lua', {
        breakpoints: { 'jitkeep.lua': [{ type: 2, line: at('never') }] },
      });
      // Long enough for LuaJIT to compile the loop, and the branch of its late iteration.
      await new Promise((r) => setTimeout(r, 400));
      await s.ide.connection.request('setBreakPoint', {
        path: fixture('jitkeep.lua'),
        bks: [
          { type: 2, line: at('never') },
          { type: 2, line: at('late') },
        ],
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint', 8_000);
      assert.equal(topOf(stop.stack).line, at('late'));
      // Steps reach every line (the compiler is off while one runs).
      await s.ide.connection.request('stopOnStep', {});
      const stepped = await s.ide.nextStop('stopOnStep', 8_000);
      assert.ok(
        [at('late') + 1, at('late') - 3].includes(topOf(stepped.stack).line),
        `stepped to line ${topOf(stepped.stack).line}`,
      );
      await s.ide.connection.request('setBreakPoint', { path: fixture('jitkeep.lua'), bks: [] });
      await s.ide.connection.request('runREPLExpression', {
        Expression: 'finished = true',
        stackId: String(topOf(stepped.stack).index),
      });
      await s.ide.connection.request('continue', {});
      const out = await finish(s);
      assert.match(out, /compiler off with a breakpoint elsewhere:\tfalse/);
      assert.match(out, /compiler off after the last breakpoint:\tfalse/);
      assert.match(out, /jitkeep done\ttrue\ttrue/);
    });

    it('light idle mode: no hook while idle, yet a breakpoint sent while running arrives at a GC cycle', async () => {
      // Under LuaJIT the compiler stays on and the loop is compiled: the breakpoint arrives in a GC
      // finalizer, where LuaJIT refuses jit.off/flush; the runtime retries from a one-instruction
      // count hook right after the finalizer, which flushes the loop's trace.
      const s = await startSession(lua, 'gcpoll.lua');
      await new Promise((r) => setTimeout(r, 100));
      await s.ide.connection.request('setBreakPoint', {
        path: fixture('gcpoll.lua'),
        bks: [{ type: 2, line: lineOf('gcpoll.lua', 'tick') }],
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint', 5_000);
      assert.equal(topOf(stop.stack).line, lineOf('gcpoll.lua', 'tick'));
      await s.ide.connection.request('setBreakPoint', { path: fixture('gcpoll.lua'), bks: [] });
      await s.ide.connection.request('runREPLExpression', {
        Expression: 'finished = true',
        stackId: String(topOf(stop.stack).index),
      });
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /gcpoll done\ttrue\ttrue/);
    });

    it('receives a breakpoint while a loop without calls runs, and stops in it', async () => {
      const s = await startSession(lua, 'loop.lua', {});
      await new Promise((r) => setTimeout(r, 150));
      await s.ide.connection.request('setBreakPoint', {
        path: fixture('loop.lua'),
        bks: [{ type: 2, line: lineOf('loop.lua', 'body') }],
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint', 5_000);
      assert.equal(topOf(stop.stack).line, lineOf('loop.lua', 'body'));
      await s.ide.connection.request('setBreakPoint', { path: fixture('loop.lua'), bks: [] });
      await s.ide.connection.request('setVariable', {
        varRef: '10000',
        stackId: String(topOf(stop.stack).index),
        varName: 'running',
        newValue: 'false',
      });
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /stopped after\ttrue/);
    });
  });
}

// Conditions evaluated directly: an expression compiled to read only the locals it names still
// sees the innermost of a shadowed name, a field where a local has the field's name, upvalues,
// globals and varargs, and the scope of the line it is evaluated at (conditions_direct.lua).
const SCRIPT = RULES.file('conditions_direct.lua');

const EXPECTED = [
  'local\t42',
  'field not local\tfield x',
  'field named like a local\tfield b',
  'global\tglobal x',
  'upvalue\tupvalue',
  'concat\t2142',
  'concat spaced\t21-42',
  'method\tobj',
  'number exponent\ttrue',
  'varargs\t2:va1', // PUC Lua 5.1 cannot read varargs: 0:nil
  'string with a name\tb42',
  'index by local\tfield x0',
  'shadowed\tinner b',
  'after the block\t42',
  'loop 1\t101',
  'loop 2\t202',
  'same line, other scope\t42',
  'calls the program\tupvalue',
  'other function\tother b',
];

for (const lua of luaInterpreters()) {
  describe(`runtime breakpoint conditions, evaluated directly (${lua.command})`, () => {
    it('read the locals they name, in the scope of their line, and nothing else of the frame', async () => {
      const proc = spawnLua({ ...lua, native: false }, SCRIPT, {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      const lines = proc.stdout.trimEnd().split('\n');
      const invalid = lines.find((l) => l.startsWith('not valid\t'));
      assert.match(invalid ?? '', /^not valid\terror: .*unexpected symbol/);
      const puc51 = lua.version === 'Lua 5.1' && !lua.isLuaJIT;
      const expected = EXPECTED.map((l) =>
        puc51 && l.startsWith('varargs\t') ? 'varargs\t0:nil' : l,
      );
      assert.deepEqual(
        lines.filter((l) => !l.startsWith('not valid\t')),
        expected,
      );
    });
  });
}
