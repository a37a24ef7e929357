/**
 * The wire contract is written once (src/protocol/contract.ts) and every copy agrees with it:
 * lua/luapanda/contract.lua is what the generator makes of it today and loads to the same values
 * under every interpreter, the native accelerator's `LPN_MODE_*` are the contract's hook modes,
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

  it("the native accelerator's hook modes are the contract's", () => {
    const header = fs.readFileSync(path.join(REPO_ROOT, 'native', 'luapanda_native.h'), 'utf8');
    const modes: Record<string, number> = {};
    for (const m of header.matchAll(/^#define LPN_MODE_([A-Z]+)\s+\(?(-?\d+)\)?/gm)) {
      modes[m[1].toLowerCase()] = Number(m[2]);
    }
    assert.deepEqual(modes, HOOK_MODES);
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
      });
    });
  }
});
