/**
 * The public Lua API of the bundled runtime: the only new global is LuaPanda, printToVSCode,
 * startServer (the IDE connects), stopRun (the program goes on undebugged) and LuaGarbageCollect.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runtimeVariants } from '../harness/interpreters';
import { quietPort } from '../harness/ports';
import { spawnLua } from '../harness/luaProcess';
import { connectToLua, initSuccessInfo } from '../../src/protocol';
import { BUNDLE_DIR, closeAll, finish, line, runtimeScenario } from './helpers';

// The programs: test/scenarios/runtimeApi.
const { dir: FIXTURES, fixture, lineOf, startSession } = runtimeScenario('runtimeApi');

for (const lua of runtimeVariants()) {
  describe(`runtime API (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('adds no global but LuaPanda, sends printToVSCode text, collects garbage, and stopRun detaches', async () => {
      const s = await startSession(lua, 'api.lua', {
        breakpoints: { 'api.lua': [line(lineOf('api.lua', 'stop'))] },
      });
      const log = await s.ide.next((n) => n.kind === 'log' && n.cmd === 'debug_console');
      assert.equal(log.kind === 'log' && log.text, 'hello from lua');
      await s.ide.nextStop('stopOnBreakpoint');
      await s.ide.connection.notify('LuaGarbageCollect', {});
      await s.ide.next((n) => n.kind === 'memory');
      await s.ide.connection.request('stopRun', {});
      const out = await finish(s);
      assert.match(out, /connected\tfalse\tleaked\tLuaPanda\ttrue\ttrue/);
    });

    it('uses customGetSocketInstance; disconnect() and stopAttach() leave the program unhooked', async () => {
      const s = await startSession(lua, 'custom_socket.lua');
      await s.ide.waitForClose();
      const out = await finish(s);
      assert.match(out, /custom\ttrue\ttrue\tfalse\ttrue/);
    });

    it('start() without a socket library says so in one line and changes nothing', async () => {
      const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-nosocket-'));
      try {
        // Only this folder (and no default) on package.cpath: luasocket's core cannot be found.
        const cpath = `${path.join(emptyDir, '?.so')}`;
        const proc = spawnLua({ ...lua, native: false }, fixture('nosocket.lua'), {
          args: ['9'],
          luaPath: [BUNDLE_DIR],
          cwd: FIXTURES,
          env: {
            LUA_CPATH: cpath,
            LUA_CPATH_5_2: cpath,
            LUA_CPATH_5_3: cpath,
            LUA_CPATH_5_4: cpath,
          },
        });
        const exit = await proc.waitForExit(10_000);
        assert.equal(exit.code, 0, proc.stderr);
        assert.match(proc.stdout, /start\tfalse\thook\tnil\tloaded same\ttrue/);
        const lines = proc.stderr.trim().split('\n');
        assert.equal(lines.length, 1, proc.stderr);
        assert.match(lines[0], /LuaPanda: the debugger is off: cannot load a socket library/);
        assert.match(lines[0], /module 'socket\.core' not found on package\.path\/package\.cpath/);
        assert.match(lines[0], /apt-get install lua-socket/);
      } finally {
        fs.rmSync(emptyDir, { recursive: true, force: true });
      }
    });

    it('startServer: the IDE connects to the program', async () => {
      const port = await quietPort();
      const proc = spawnLua(lua, fixture('api.lua'), {
        args: [String(port), 'server'],
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      const connection = await connectToLua({
        host: '127.0.0.1',
        port,
        timeoutMs: 8_000,
        retryIntervalMs: 100,
      });
      try {
        const reply = await connection.request(
          'initSuccess',
          initSuccessInfo({
            cwd: FIXTURES,
            isNeedB64EncodeStr: false,
            waitConfigurationDone: true,
          }),
        );
        assert.equal(reply.runtime, 'luapanda-mcp');
        await connection.request('setBreakPoint', {
          path: fixture('api.lua'),
          bks: [line(lineOf('api.lua', 'stop'))],
        });
        const stopped = new Promise<string>((resolve) =>
          connection.on('notification', (n) => n.kind === 'stop' && resolve(n.cmd)),
        );
        await connection.request('configurationDone', {});
        assert.equal(await stopped, 'stopOnBreakpoint');
        await connection.request('continue', {});
        const exit = await proc.waitForExit(10_000);
        assert.equal(exit.code, 0, proc.stderr);
        assert.match(proc.stdout, /connected\ttrue\tleaked\tLuaPanda/);
      } finally {
        connection.destroy();
        proc.kill();
      }
    });
  });
}
