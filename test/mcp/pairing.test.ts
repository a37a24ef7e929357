/**
 * The pairing secret through the MCP SDK client and headless luapanda-mcp with real Lua: the
 * attach configuration listens on 0.0.0.0 and names no secret, so the server takes it from its
 * own environment (LUAPANDA_SECRET); a game with the wrong secret is refused while
 * start_debugging keeps waiting, and the game with the right one stops at the agent's breakpoint.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { luaInterpreters } from '../harness/interpreters';
import { quietPort } from '../harness/ports';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { HeadlessFixture, ToolCallResult, callTool, makeWorkspace } from './headlessFixture';

const lua = luaInterpreters().find((i) => i.command === 'lua5.4') ?? luaInterpreters()[0];
const BUNDLE_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const GAME = fs.readFileSync(
  path.join(REPO_ROOT, 'test', 'scenarios', 'pairing', 'connects.lua'),
  'utf8',
);
const FRAME_LINE = GAME.split('\n').findIndex((l) => l.includes('@frame')) + 1;
const SECRET = 'the secret of the headless server';

describe('MCP: a game on the network pairs with the headless server', function () {
  this.timeout(60_000);
  let fixture: HeadlessFixture;
  let client: Client;
  let port: number;
  const games: LuaProcess[] = [];
  const saved = process.env.LUAPANDA_SECRET;

  beforeEach(async () => {
    process.env.LUAPANDA_SECRET = SECRET;
    port = await quietPort();
    const workspace = await makeWorkspace({ 'game.lua': GAME }, [
      {
        type: 'luapanda',
        request: 'attach',
        name: 'network game',
        connectionHost: '0.0.0.0',
        connectionPort: port,
        cwd: '${workspaceFolder}',
      },
    ]);
    fixture = await HeadlessFixture.start(workspace);
    client = await fixture.connect();
  });

  afterEach(async () => {
    for (const game of games.splice(0)) {
      game.kill();
      await game.exited;
    }
    await fixture.close();
    if (saved === undefined) delete process.env.LUAPANDA_SECRET;
    else process.env.LUAPANDA_SECRET = saved;
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    callTool(client, name, args) as Promise<ToolCallResult>;
  const game = (secret: string) => {
    const g = spawnLua(lua, path.join(fixture.workspace, 'game.lua'), {
      args: [String(port), secret],
      luaPath: [BUNDLE_DIR],
      cwd: fixture.workspace,
      env: { LUAPANDA_SECRET: undefined },
    });
    games.push(g);
    return g;
  };

  it('refuses the wrong secret, keeps waiting, and debugs the game that proves it', async () => {
    const set = await call('set_breakpoint', {
      file_path: path.join(fixture.workspace, 'game.lua'),
      line_number: FRAME_LINE,
    });
    assert.equal(set.status, 'success', JSON.stringify(set));
    const starting = call('start_debugging', {
      configuration_name: 'network game',
      timeout_seconds: 40,
    });
    const wrong = game('not it');
    await wrong.waitForOutput(/alive 30/, 20_000);
    wrong.kill();
    game(SECRET);
    const started = await starting;
    assert.equal(started.status, 'stopped', JSON.stringify(started));
    const value = await call('evaluate_expression', { expression: 'treasure' });
    assert.equal(value.status, 'success', JSON.stringify(value));
    assert.equal(value.result, '"the game\'s own secret state"');
    const stopped = await call('stop_debugging');
    assert.equal(stopped.status, 'success', JSON.stringify(stopped));
  });
});
