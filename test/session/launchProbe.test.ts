// The launch's start-up check against real interpreters: it passes where luasocket and the runtime
// load, names a runtime that does not load, stops an interpreter that hangs and says so; and the
// small pieces it is made of (PATH lookup, exit descriptions, the cpath variable per version).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionError } from '../../src/session/errors';
import { describeExit, exitNumber } from '../../src/session/link/exitStatus';
import { locateCommand } from '../../src/session/link/interpreter';
import { checkInterpreter } from '../../src/session/link/launchProbe';
import { cpathVariable, describeInterpreter } from '../../src/session/link/setupErrors';
import { NATIVE_DIR, luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');

describe('session/launchProbe', () => {
  let scratch: string;
  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-probe-'));
  });
  afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

  const spec = (interpreters: string[], extra: object = {}) => ({
    interpreters,
    cwd: scratch,
    env: {},
    runtimeDir: RUNTIME_DIR,
    nativeDir: fs.existsSync(NATIVE_DIR) ? NATIVE_DIR : undefined,
    ...extra,
  });

  for (const lua of luaInterpreters()) {
    it(`passes ${lua.command}, which loads luasocket and the runtime, and reads its version`, async () => {
      const checked = await checkInterpreter(spec([lua.command]));
      assert.equal(checked.interpreter, lua.command);
      assert.equal(checked.luaVersion, lua.version);
    });
  }

  it('skips interpreters that do not exist and uses the first that does', async () => {
    const lua = luaInterpreters()[0];
    const checked = await checkInterpreter(spec(['no-such-lua-5.9', lua.command]));
    assert.equal(checked.interpreter, lua.command);
  });

  it('names a runtime that does not load, with its error', async () => {
    fs.writeFileSync(path.join(scratch, 'LuaPanda.lua'), 'error("this runtime is broken")\n');
    const lua = luaInterpreters()[0];
    await assert.rejects(
      checkInterpreter(spec([lua.command], { runtimeDir: scratch })),
      (error: SessionError) => {
        assert.equal(error.code, 'runtime-load-failed');
        assert.match(error.message, /cannot load the debugger runtime LuaPanda\.lua/);
        assert.match(error.message, /this runtime is broken/);
        assert.ok(error.message.includes(scratch), error.message);
        return true;
      },
    );
  });

  it('stops an interpreter that does not finish the check, and says so', async function () {
    if (process.platform === 'win32') this.skip();
    const hangs = path.join(scratch, 'hangs');
    fs.writeFileSync(hangs, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    await assert.rejects(checkInterpreter(spec([hangs]), 200), (error: SessionError) => {
      assert.equal(error.code, 'interpreter-check-failed');
      assert.match(error.message, /did not finish its luasocket check within 0\.2 s/);
      assert.match(error.message, /stopped/);
      return true;
    });
  });

  it('finds a command on PATH or by its path, and nothing else', () => {
    const bin = path.join(scratch, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'mylua'), '', { mode: 0o755 });
    const env = { PATH: `${path.join(scratch, 'empty')}${path.delimiter}${bin}` };
    assert.equal(locateCommand('mylua', env, '/'), path.join(bin, 'mylua'));
    assert.equal(locateCommand('./bin/mylua', {}, scratch), path.join(bin, 'mylua'));
    assert.equal(locateCommand('nolua', env, '/'), undefined);
  });

  it('describes an interpreter, an exit and the cpath variable of each version', () => {
    assert.equal(
      describeInterpreter('lua5.4', '/usr/bin/lua5.4', 'Lua 5.4'),
      'lua5.4 (/usr/bin/lua5.4, Lua 5.4)',
    );
    assert.equal(describeInterpreter('/opt/lua', '/opt/lua', ''), '/opt/lua');
    assert.equal(describeExit({ code: 3, signal: null }), 'exited with code 3');
    assert.equal(describeExit({ code: null, signal: 'SIGSEGV' }), 'was killed by signal SIGSEGV');
    assert.equal(exitNumber({ code: null, signal: 'SIGKILL' }), 137);
    assert.equal(exitNumber({ code: 0, signal: null }), 0);
    assert.equal(cpathVariable('Lua 5.1 LuaJIT 2.1.0-beta3'), 'LUA_CPATH');
    assert.equal(cpathVariable('Lua 5.3'), 'LUA_CPATH_5_3');
    assert.equal(cpathVariable(''), 'LUA_CPATH');
  });
});
