/**
 * "Copy LuaPanda.lua into the Workspace" copies the built drop-in and its LuaLS definitions
 * together (from the real dist/lua), replacing older copies, and tells the user where they went.
 */
import { vscode, resetVscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RUNTIME_FILES, copyRuntime } from '../../src/extension/debug/copyRuntime';
import { REPO_ROOT } from '../harness/luaProcess';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');

describe('extension: copy the runtime into the workspace', () => {
  let folder: string;
  beforeEach(() => {
    resetVscode();
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-copy-'));
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('copies LuaPanda.lua and LuaPanda.meta.lua, replacing old copies', async () => {
    fs.writeFileSync(path.join(folder, 'LuaPanda.meta.lua'), '-- an old copy');
    const logged: string[] = [];
    const copied = await copyRuntime(RUNTIME_DIR, folder, { info: (m) => logged.push(m) });
    assert.equal(copied, path.join(folder, 'LuaPanda.lua'));
    assert.deepEqual(RUNTIME_FILES, ['LuaPanda.lua', 'LuaPanda.meta.lua']);
    for (const file of RUNTIME_FILES) {
      assert.ok(
        fs
          .readFileSync(path.join(folder, file))
          .equals(fs.readFileSync(path.join(RUNTIME_DIR, file))),
        `${file} is a copy of the built one`,
      );
    }
    assert.match(fs.readFileSync(path.join(folder, 'LuaPanda.meta.lua'), 'utf8'), /^---@meta/);
    assert.deepEqual(logged, [`copied the runtime and its LuaLS definitions to ${folder}`]);
    const message = vscode.window.showInformationMessage.firstCall.args[0] as string;
    assert.match(message, /LuaPanda\.meta\.lua/);
    assert.match(message, /require\("LuaPanda"\)\.start\("127\.0\.0\.1", 8818\)/);
  });

  it('without a workspace folder and no target, copies nothing and says to open the folder', async () => {
    const copied = await copyRuntime(RUNTIME_DIR, undefined, { info: () => undefined });
    assert.equal(copied, undefined);
    assert.equal(
      vscode.window.showErrorMessage.firstCall.args[0],
      'Open the game project folder first.',
    );
  });
});
