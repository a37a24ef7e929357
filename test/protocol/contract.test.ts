/**
 * The wire contract is written once (src/protocol/contract.ts) and every copy agrees with it:
 * lua/luapanda/contract.lua is what the generator makes of it today and loads to the same values
 * under every interpreter, native/luapanda_contract.h likewise gives the native accelerator the
 * contract's interface version, hook modes and mode depth (written nowhere else),
 * and (test/runtime/core.test.ts) the runtime's handshake reply announces the contract's versions
 * and features.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  FEATURES,
  HOOK_MODES,
  NATIVE,
  PROTOCOL_VERSION,
  RUNTIME_FEATURES,
  RUNTIME_NAME,
  RUNTIME_VERSION,
  STOP_COMMANDS,
  STOPS,
  featureSet,
} from '../../src/protocol';
import packageJson from '../../package.json';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const DUMP = path.join(REPO_ROOT, 'test', 'fixtures', 'contract', 'dump_contract.lua');

describe('protocol/contract', () => {
  it('lua/luapanda/contract.lua is generated from the current contract', () => {
    const check = spawnSync(process.execPath, ['scripts/contract-lua.mjs', '--check'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(check.status, 0, check.stderr);
  });

  it("stamps the package's version as the runtime's", () => {
    assert.equal(RUNTIME_VERSION, packageJson.version);
  });

  it("the native accelerator's interface version, hook modes and mode depth are the contract's", () => {
    const native = (file: string) => fs.readFileSync(path.join(REPO_ROOT, 'native', file), 'utf8');
    const header = native('luapanda_contract.h');
    const modes: Record<string, number> = {};
    for (const m of header.matchAll(/^#define LPN_MODE_([A-Z]+)\s+\(?(-?\d+)\)?/gm)) {
      modes[m[1].toLowerCase()] = Number(m[2]);
    }
    assert.deepEqual(modes, HOOK_MODES);
    assert.match(header, new RegExp(`^#define LPN_API_VERSION ${NATIVE.apiVersion}$`, 'm'));
    assert.match(header, new RegExp(`^#define LPN_FILTER_DEPTH ${NATIVE.modeDepth}$`, 'm'));
    // Written nowhere else: every other C file and the Lua side take them from the contract.
    for (const file of fs.readdirSync(path.join(REPO_ROOT, 'native'))) {
      if (file === 'luapanda_contract.h') continue;
      assert.doesNotMatch(native(file), /#define LPN_(API_VERSION|MODE_|FILTER_DEPTH)/, file);
    }
    const lua = (file: string) =>
      fs.readFileSync(path.join(REPO_ROOT, 'lua', 'luapanda', file), 'utf8');
    assert.match(lua('native.lua'), /API_VERSION = contract\.NATIVE\.apiVersion/);
    assert.match(lua('hookfilter.lua'), /MODE_DEPTH = contract\.NATIVE\.modeDepth/);
  });

  it('lists every stop command once and knows only its own feature names', () => {
    assert.deepEqual(STOP_COMMANDS, Object.values(STOPS));
    assert.equal(new Set(STOP_COMMANDS).size, STOP_COMMANDS.length);
    assert.deepEqual(
      [...featureSet(['pause', 'somethingNew', 'jitCompiles'])],
      [FEATURES.pause, FEATURES.jitCompiles],
    );
  });

  for (const lua of luaInterpreters()) {
    it(`lua/luapanda/contract.lua loads to the same values (${lua.command})`, async () => {
      const proc = spawnLua({ ...lua, native: false }, DUMP, {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      const dumped = JSON.parse(proc.stdout) as Record<string, unknown>;
      assert.deepEqual(dumped, {
        PROTOCOL_VERSION,
        RUNTIME_NAME,
        RUNTIME_VERSION,
        FEATURES,
        RUNTIME_FEATURES,
        STOPS,
        STOP_COMMANDS,
        HOOK_MODES,
        NATIVE,
      });
    });
  }
});
