// Launch set-up problems through the out-of-process adapter (DebugClient): an interpreter without
// luasocket, one that is not Lua, one that does not exist — each refused before the program
// runs, with the interpreter, the cause and the fix — and a program killed by a signal, reported
// by the signal's name.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { fixture } from './dapHarness';
import { useDapTest } from './useDapTest';

/** Environment that hides luasocket from every Lua version: its C search paths hold nothing. */
function withoutLuasocket(emptyDir: string): Record<string, string> {
  const cpath = `${path.join(emptyDir, '?.so')}`;
  return {
    LUA_CPATH: cpath,
    LUA_CPATH_5_2: cpath,
    LUA_CPATH_5_3: cpath,
    LUA_CPATH_5_4: cpath,
  };
}

describe('adapter launch checks', function () {
  this.timeout(30_000);
  const t = useDapTest();
  let scratch: string;
  beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-launch-check-'));
  });
  afterEach(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  for (const lua of luaInterpreters()) {
    it(`refuses ${lua.command} without luasocket before the program runs, naming it and the fix`, async () => {
      const marker = path.join(scratch, 'ran.txt');
      const empty = fs.mkdtempSync(path.join(scratch, 'cpath-'));
      const failure = await t
        .launch(lua.command, fixture('marksRun.lua'), {
          args: [marker],
          env: withoutLuasocket(empty),
        })
        .then(
          () => assert.fail('the launch should have failed'),
          (error: Error) => error.message,
        );
      assert.match(failure, /cannot load luasocket/);
      // The command, where it lives, and which Lua it is.
      assert.match(
        failure,
        new RegExp(`interpreter ${lua.command} \\(/\\S*${lua.command}, Lua 5\\.\\d`),
      );
      assert.match(failure, /require\("socket\.core"\) failed: module 'socket\.core' not found/);
      assert.match(failure, /sudo apt-get install lua-socket/);
      assert.match(failure, /set "luaPath" to an interpreter that has luasocket/);
      assert.match(failure, /LUA_CPATH/);
      await t.ended();
      assert.equal(fs.existsSync(marker), false, 'the program never ran');
      assert.doesNotMatch(t.output, /PROGRAM RAN/);
      // Shown once: by the failed launch response, not again as an important notification.
      assert.equal(t.outputs.filter((o) => o.category === 'important').length, 0);
    });
  }

  it('names an interpreter that is not Lua, with what it said', async function () {
    if (process.platform === 'win32') this.skip();
    const fake = path.join(scratch, 'not-lua');
    fs.writeFileSync(fake, '#!/bin/sh\necho "this is not lua" >&2\nexit 7\n', { mode: 0o755 });
    const marker = path.join(scratch, 'ran.txt');
    await assert.rejects(
      t.launch(fake, fixture('marksRun.lua'), { args: [marker] }),
      (error: Error) => {
        assert.match(error.message, /could not run the debugger's start-up check/);
        assert.match(error.message, /exited with code 7/);
        assert.match(error.message, /this is not lua/);
        assert.ok(error.message.includes(fake), error.message);
        return true;
      },
    );
    assert.equal(fs.existsSync(marker), false, 'the program never ran');
  });

  it('names a missing interpreter set in luaPath', async () => {
    await assert.rejects(
      t.launch('no-such-lua-5.9', fixture('output.lua')),
      /"no-such-lua-5\.9" set in "luaPath" was not found/,
    );
  });

  for (const signal of ['KILL', 'SEGV']) {
    it(`reports a program killed by SIG${signal} by the signal's name`, async function () {
      if (process.platform !== 'linux') this.skip();
      const lua = luaInterpreters()[0];
      await t.launch(lua.command, fixture('killsItself.lua'), { args: [signal] });
      await t.ended();
      assert.match(t.output, new RegExp(`about to die by SIG${signal}`));
      assert.match(t.output, new RegExp(`The program was killed by signal SIG${signal}\\.`));
      assert.doesNotMatch(t.output, /still alive|exit code|exited with/);
      const [exited] = await t.eventsNamed('exited');
      const number = os.constants.signals[`SIG${signal}` as NodeJS.Signals];
      assert.equal((exited as { body: { exitCode: number } }).body.exitCode, 128 + number);
    });
  }
});
