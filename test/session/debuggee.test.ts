// The launch command line: Lua string literals for any path (checked by a real interpreter) and
// the preload code that runs the program under the runtime.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { luaString, preloadCode } from '../../src/session/link/debuggee';
import { luaInterpreters } from '../harness/interpreters';

const TRICKY = [
  'C:\\Users\\José\\My Game\\main.lua',
  '/home/me/"quoted"/it\'s.lua',
  'line\nbreak\ttab\r\u0001\u007f',
  '玩家/角色.lua',
  '',
];

describe('session/debuggee', () => {
  for (const lua of luaInterpreters()) {
    it(`luaString literals read back exactly under ${lua.command}`, () => {
      for (const text of TRICKY) {
        const run = spawnSync(lua.command, ['-e', `io.write(${luaString(text)})`], {
          encoding: 'utf8',
        });
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stdout, text);
      }
    });
  }

  it('preloads the runtime, checks the syntax, connects, and runs the program via runFile', () => {
    const code = preloadCode({
      program: 'C:\\game\\main.lua',
      args: ['--level', '3'],
      cwd: 'C:\\game',
      env: {},
      interpreters: ['lua5.4'],
      runtimeDir: '/opt/luapanda',
      port: 40123,
    });
    assert.match(code, /package\.path = "\/opt\/luapanda\/\?\.lua;"/);
    assert.match(code, /io\.stdout:setvbuf\("line"\)/);
    assert.match(code, /loadfile\("C:\\\\game\\\\main\.lua"\)/);
    assert.match(code, /LuaPanda\.start\("127\.0\.0\.1", 40123\)/);
    // Logpoint lines through stdout, in order with the program's output (before it runs).
    assert.match(code, /LuaPanda\.consoleThroughStdout\("\\000LuaPanda console:"\)/);
    assert.ok(code.indexOf('consoleThroughStdout') < code.indexOf('runFile'));
    assert.match(code, /return LuaPanda\.runFile\("C:\\\\game\\\\main\.lua", "--level", "3"\)/);
    assert.match(code, /arg = \{ \[0\] = "C:\\\\game\\\\main\.lua", "--level", "3" \}/);
  });

  it('puts the native accelerator build of the interpreter’s ABI first on package.cpath', () => {
    const spec = {
      program: '/g/main.lua',
      args: [],
      cwd: '/g',
      env: {},
      interpreters: ['lua5.4'],
      runtimeDir: '/opt/luapanda/lua',
      nativeDir: '/opt/luapanda/native/linux-x64',
      port: 1,
    };
    for (const lua of luaInterpreters()) {
      // The first line of the preload sets the paths; run it alone and print the result.
      const setup = preloadCode(spec)
        .split('\n')
        .filter((l) => l.startsWith('package.'))
        .join('\n');
      const run = spawnSync(lua.command, ['-e', `${setup}\nio.write(package.cpath)`], {
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      const abi = lua.isLuaJIT ? '5.1' : /Lua (5\.\d)/.exec(lua.version)?.[1];
      assert.ok(
        run.stdout.startsWith(`/opt/luapanda/native/linux-x64/${abi}/?.so;`),
        `${lua.command}: ${run.stdout}`,
      );
    }
    assert.doesNotMatch(preloadCode({ ...spec, noDebug: true }), /cpath/);
    assert.doesNotMatch(preloadCode({ ...spec, nativeDir: undefined }), /cpath/);
  });

  it('without debugging, only runs the program', () => {
    const code = preloadCode({
      program: '/g/main.lua',
      args: [],
      cwd: '/g',
      env: {},
      interpreters: ['lua5.4'],
      runtimeDir: '/opt/luapanda',
      port: 1,
      noDebug: true,
    });
    assert.doesNotMatch(code, /LuaPanda/);
    assert.match(code, /return chunk\(\)/);
  });
});
