/**
 * Errors only the engine catches: the engine game's Update raises an error at its fourth frame,
 * which no Lua code handles — the host's lua_pcall does, with its C message handler, a Lua one
 * (as Cocos2d-x) or none, and logs it. At its second frame Lua code catches errors itself (pcall,
 * xpcall): those never stop under the "uncaught" filter.
 * With the "uncaught" filter on, an attached game stops at the line that raised it, with its
 * message and locals, before the engine's handler runs; once continued, the engine logs exactly
 * what it logs without the debugger and the frames go on. That takes the native accelerator on
 * Lua 5.1-5.4 (native/errfunc.c reads which function is the running call's message handler), and
 * a handler: with none, nothing of Lua runs between the error and the engine (a known limit).
 * Elsewhere the error is logged as without the debugger, and the runtime says why it did not stop.
 */
import { strict as assert } from 'node:assert';
import {
  engineHostVariants,
  startEngine,
  useEngines,
  type EngineHost,
} from '../harness/engineHost';
import { scenario } from '../harness/scenario';
import { TestIde } from '../harness/testIde';
import { topOf } from '../runtime/helpers';

const game = scenario('engine');
const PLAYER = 'game/player.lua';
const HIT = game.line(PLAYER, 'hit');
const PLANTED = game.line('boot.lua', 'planted');

/** The engine's log of the planted error: its line and the traceback under it. */
function errorBlock(stderr: string): string {
  const lines = stderr.split('\n');
  const first = lines.findIndex((l) => l.startsWith('[engine] error in Update'));
  assert.ok(first >= 0, stderr);
  const block = [lines[first]];
  for (const l of lines.slice(first + 1)) {
    if (!/^(stack traceback:|\t)/.test(l)) break;
    block.push(l);
  }
  return block.join('\n');
}

type Handler = 'c' | 'lua' | 'none';
const HANDLERS: { kind: Handler; label: string }[] = [
  { kind: 'c', label: "the engine's C message handler" },
  { kind: 'lua', label: 'a Lua message handler (__G__TRACKBACK__, as Cocos2d-x)' },
  { kind: 'none', label: 'no message handler' },
];

/** Whether the error stops, and whether the runtime says at attach why such errors do not. */
function expectationOf(host: EngineHost, handler: Handler): { stops: boolean; says: boolean } {
  const readable = host.native === true && !host.isLuaJIT;
  return { stops: readable && handler !== 'none', says: !readable };
}

describe('engine hosts: errors only the engine catches', function () {
  this.timeout(30_000);
  let ide: TestIde | undefined;
  const engines = useEngines();
  const plainLogs = new Map<string, string>();

  afterEach(async () => {
    await ide?.close();
    ide = undefined;
  });

  for (const host of engineHostVariants().hosts) {
    for (const { kind: handler, label } of HANDLERS) {
      const { stops, says } = expectationOf(host, handler);
      const what = stops
        ? 'stop at the line that raised them, then the engine logs what it logs plain'
        : 'are logged as plain and do not stop';
      it(`${host.label}, ${label}: ${what}${says ? ', and the runtime says why' : ''}`, async () => {
        const key = `${host.host} ${handler}`;
        let plain = plainLogs.get(key);
        if (plain === undefined) {
          const run = startEngine(host, { root: game.dir, frames: 6, handler });
          await run.exited;
          plain = errorBlock(run.stderr);
          plainLogs.set(key, plain);
        }

        ide = await TestIde.start();
        const engine = engines.start(host, {
          root: game.dir,
          bootArgs: [String(ide.port)],
          handler,
        });
        await ide.accept();
        await ide.handshake({ cwd: game.dir, waitConfigurationDone: true });
        const c = ide.connection;
        await c.request('setExceptionBreakpoints', { filters: ['uncaught'] });
        await c.request('configurationDone', {});

        if (stops) {
          const stop = await ide.nextStop('stopOnException');
          const top = topOf(stop.stack);
          assert.equal(top.oPath, PLAYER, JSON.stringify(stop.stack));
          assert.equal(top.line, HIT);
          const caller = stop.stack[1];
          assert.equal(caller?.oPath, 'boot.lua', JSON.stringify(stop.stack));
          assert.equal(caller?.line, PLANTED);
          const info = stop.info as { exceptionText?: string; uncaught?: boolean };
          assert.match(info.exceptionText ?? '', /attempt to perform arithmetic/);
          assert.equal(info.uncaught, true);
          const locals = await c.request('getVariable', {
            varRef: '10000',
            stackId: String(top.index),
          });
          assert.equal(
            locals.find((v) => v.name === 'damage')?.value,
            'nil',
            JSON.stringify(locals),
          );
          const [doctor] = await c.request('runREPLExpression', {
            Expression: 'require("LuaPanda").doctor()',
            stackId: String(top.index),
          });
          assert.match(
            doctor.value,
            /errors only the engine catches: stop \(the native accelerator/,
          );
          assert.equal(
            engine.stderr.includes('[engine] error'),
            false,
            'stopped before the engine handler ran',
          );
          await c.request('continue', {});
        }
        await engine.waitForOutput(/^\[lua\] frame 6: /m);
        assert.equal(errorBlock(engine.stderr), plain);
        if (says) {
          await ide.next(
            (n) =>
              n.cmd === 'output' &&
              /errors that only the engine catches do not stop/.test(JSON.stringify(n)),
          );
        }
        assert.equal(engine.hasExited, false, 'the game runs until it is closed');
      });
    }
  }
});
