/**
 * The bundled runtime against an IDE that behaves like upstream LuaPanda's (random callbackIds,
 * "0", numbers as numbers, all-string initSuccess values, the id-less breakpoint replay), against
 * malformed input (the program must keep running and finish correctly), and across reconnects.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { runtimeVariants } from '../harness/interpreters';
import { LuaProcess, spawnLua } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';
import { LuaListener, initSuccessInfo } from '../../src/protocol';
import { BUNDLE_DIR, FIXTURES, fixture, lineOf, sleep } from './helpers';
import { RawIde, upstreamInit } from './rawIde';

const reconnect = scenario('reconnect');

const live: { ide?: RawIde; lua?: LuaProcess; listeners: LuaListener[] } = { listeners: [] };

async function cleanup(): Promise<void> {
  live.lua?.kill();
  await live.ide?.close();
  for (const l of live.listeners) await l.close();
  live.ide = undefined;
  live.lua = undefined;
  live.listeners = [];
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

for (const lua of runtimeVariants()) {
  describe(`runtime protocol compatibility (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(cleanup);

    /** Starts `name` of the folder `dir` (its working folder) and accepts its connection. */
    async function launch(name: string, args: string[] = [], dir = FIXTURES) {
      const ide = await RawIde.start();
      live.ide = ide;
      const proc = spawnLua(lua, path.join(dir, name), {
        args: [String(ide.port), ...args],
        luaPath: [BUNDLE_DIR],
        cwd: dir,
      });
      live.lua = proc;
      await ide.accept();
      return { ide, proc };
    }

    it('answers an upstream-style IDE the way upstream does', async () => {
      const { ide, proc } = await launch('basic.lua');
      ide.send({ callbackId: '350802645', cmd: 'initSuccess', info: upstreamInit(FIXTURES) });
      const init = await ide.cmd('initSuccess');
      assert.equal(init.json.callbackId, '350802645');
      const info = init.json.info as Record<string, unknown>;
      assert.equal(info.debuggerVer, '3.3.1');
      assert.equal(info.UseLoadstring, '1');
      assert.equal(info.isNeedB64EncodeStr, 'true');
      // The replay: no callbackId at all, numbers as numbers.
      ide.send({
        cmd: 'setBreakPoint',
        info: {
          path: fixture('basic.lua'),
          bks: [{ verified: true, type: 2, line: lineOf('basic.lua', 'accNext') }],
        },
      });
      const replay = await ide.cmd('setBreakPoint');
      assert.equal(replay.json.callbackId, '0');
      const stop = await ide.cmd('stopOnBreakpoint');
      assert.equal(stop.json.callbackId, 0);
      const stack = stop.json.stack as Record<string, unknown>[];
      assert.equal(stack[0].index, '2');
      assert.equal(stack[0].line, String(lineOf('basic.lua', 'accNext')));
      assert.equal(stack[0].file, 'basic.lua');
      await ide.cmd('refreshLuaMemory');
      // A numeric callbackId is echoed as a string; base64 covers string values with their quotes.
      ide.send({ callbackId: 777, cmd: 'getVariable', info: { varRef: '10000', stackId: '3' } });
      const locals = await ide.cmd('getVariable');
      assert.equal(locals.json.callbackId, '777');
      const vars = locals.json.info as Record<string, unknown>[];
      const config = vars.find((v) => v.name === 'config');
      assert.equal(typeof config?.variablesReference, 'number');
      assert.equal(vars.find((v) => v.name === 'port')?.variablesReference, '0');
      ide.send({
        callbackId: '86069264',
        cmd: 'getVariable',
        info: { varRef: String(config?.variablesReference), stackId: 'NaN' },
      });
      const kids = await ide.cmd('getVariable');
      assert.equal(kids.json.callbackId, '86069264');
      // Keys are named as Lua writes them (`name`; upstream sent `"name"`); setVariable takes both.
      const name = (kids.json.info as Record<string, unknown>[]).find((v) => v.name === 'name');
      assert.equal(name?.value, b64('"demo"'));
      await ide.cmd('refreshLuaMemory');
      // callbackId "0": the reply carries "0".
      ide.send({
        callbackId: '0',
        cmd: 'getWatchedVariable',
        info: { varName: 'n', stackId: '2' },
      });
      const watch = await ide.cmd('getWatchedVariable');
      assert.equal(watch.json.callbackId, '0');
      assert.equal((watch.json.info as Record<string, unknown>[])[0].isSuccess, 'true');
      ide.send({
        callbackId: '631220694',
        cmd: 'runREPLExpression',
        info: { Expression: 'nosuch.field', stackId: '2' },
      });
      const repl = await ide.cmd('runREPLExpression');
      assert.equal((repl.json.info as Record<string, unknown>[])[0].isSuccess, false);
      ide.send({
        callbackId: '122592822',
        cmd: 'setBreakPoint',
        info: { path: fixture('basic.lua'), bks: [] },
      });
      assert.equal((await ide.cmd('setBreakPoint')).json.callbackId, '122592822');
      ide.send({ callbackId: '686517396', cmd: 'continue', info: {} });
      const cont = await ide.cmd('continue');
      assert.equal(cont.json.callbackId, '686517396');
      assert.deepEqual(cont.json.info, []);
      await proc.waitForExit(10_000);
      assert.match(proc.stdout, /result\t15\t5\t3\t7/);
      // Every frame ended with |*|\n and held no raw '|'.
      for (const f of ide.frames) assert.ok(!f.text.includes('|'), f.text);
      assert.ok(ide.raw.endsWith('|*|\n'));
    });

    it('keeps the program running through malformed input and finishes it correctly', async () => {
      const { ide, proc } = await launch('basic.lua');
      ide.send({
        callbackId: '11',
        cmd: 'initSuccess',
        info: upstreamInit(FIXTURES, { stopOnEntry: 'true', isNeedB64EncodeStr: 'false' }),
      });
      await ide.cmd('initSuccess');
      await ide.cmd('stopOnEntry');
      ide.write('{"cmd": |*|\n');
      ide.write('this is not json |*|\n');
      ide.write('[1,2,3] |*|\n');
      ide.write('{"cmd":"noSuchCommand","info":{},"callbackId":"12"} |*|\n');
      ide.write('{"cmd":"getVariable","info":"wrong","callbackId":"13"} |*|\n');
      ide.write(
        '{"cmd":"getVariable","info":{"varRef":{"x":1},"stackId":[]},"callbackId":"14"} |*|\n',
      );
      ide.write('{"cmd":"setBreakPoint","info":{"path":42,"bks":"oops"},"callbackId":"15"} |*|\n');
      ide.write(
        '{"cmd":"setBreakPoint","info":{"path":"x.lua","bks":[null,{"line":"abc"},{"type":"0","line":"7","condition":{"a":1}}]},"callbackId":"16"} |*|\n',
      );
      ide.write('{"cmd":"setVariable","callbackId":"17"} |*|\n');
      ide.write(
        '{"cmd":"runREPLExpression","info":{"Expression":12,"stackId":null},"callbackId":"18"} |*|\n',
      );
      // An endless watch is cut off by an instruction budget (not possible under LuaJIT, see docs).
      if (!lua.isLuaJIT) {
        ide.write(
          '{"cmd":"getWatchedVariable","info":{"varName":"(function() while true do end end)()","stackId":"2"},"callbackId":"19"} |*|\n',
        );
      }
      ide.write('\n\n   \n');
      ide.write('{"cmd":"getVariable","info":{"varRef":"10000","stackId":"2"},"callbackId":"20"}');
      await sleep(50);
      ide.write(' |*|\n');
      const late = await ide.next((f) => f.json.callbackId === '20');
      assert.ok(Array.isArray(late.json.info));
      for (const id of ['13', '14', '15', '16', '17', '18', ...(lua.isLuaJIT ? [] : ['19'])]) {
        assert.ok(
          ide.frames.some((f) => f.json.callbackId === id),
          `a reply to ${id}`,
        );
      }
      assert.ok(
        ide.frames.some(
          (f) =>
            f.json.cmd === 'output' &&
            /malformed/.test(String((f.json.info as Record<string, unknown>).logInfo)),
        ),
      );
      ide.send({ callbackId: '21', cmd: 'continue', info: {} });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      assert.match(proc.stdout, /result\t15\t5\t3\t7/);
    });

    it('keeps running when the IDE vanishes mid-frame while stopped', async () => {
      const { ide, proc } = await launch('basic.lua');
      ide.send({
        callbackId: '11',
        cmd: 'initSuccess',
        info: upstreamInit(FIXTURES, { stopOnEntry: 'true' }),
      });
      await ide.cmd('stopOnEntry');
      ide.write('{"cmd":"getVariable","info":{"varRef":"100');
      await sleep(30);
      ide.destroy();
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      assert.match(proc.stdout, /result\t15\t5\t3\t7/);
    });

    it('re-attaches to a new IDE after the first went away; breakpoints come only from the new one', async () => {
      const { ide, proc } = await launch('newIde.lua', [], reconnect.dir);
      const port = ide.port;
      ide.send({
        callbackId: '11',
        cmd: 'initSuccess',
        info: upstreamInit(reconnect.dir, { isNeedB64EncodeStr: 'false' }),
      });
      await ide.cmd('initSuccess');
      ide.send({
        callbackId: '12',
        cmd: 'setBreakPoint',
        info: {
          path: reconnect.file('newIde.lua'),
          bks: [{ type: 2, line: reconnect.line('newIde.lua', 'tick') }],
        },
      });
      await ide.cmd('stopOnBreakpoint');
      await ide.close();
      live.ide = undefined;
      // The program runs on undebugged; a new IDE on the same port is found within a few seconds.
      const listener = await LuaListener.listen({ port, host: '127.0.0.1' });
      live.listeners.push(listener);
      const connection = await listener.waitForConnection({ timeoutMs: 8_000 });
      const stops: string[] = [];
      connection.on('notification', (n) => {
        if (n.kind === 'stop') stops.push(n.cmd);
      });
      await connection.request(
        'initSuccess',
        initSuccessInfo({
          cwd: reconnect.dir,
          isNeedB64EncodeStr: false,
          waitConfigurationDone: true,
        }),
      );
      await connection.request('configurationDone', {});
      await sleep(300);
      assert.deepEqual(stops, [], 'the old breakpoint was forgotten');
      await connection.request('runREPLExpression', {
        Expression: 'finished = true',
        stackId: '2',
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      assert.match(proc.stdout, /reconnect done\ttrue/);
    });
  });
}
