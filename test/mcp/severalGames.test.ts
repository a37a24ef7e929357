/**
 * Several games on one attach port, through the MCP tools (headless luapanda-mcp, the SDK client,
 * real Lua over real TCP): the attach session is the parent of every game, each a session of its
 * own named after the game; each stops at the shared breakpoint independently; one continues
 * while the other stays paused; one ending does not end the other. start_debugging answers with
 * the game that stopped; the parent's id stands for its only game, and with two is refused, except
 * by set_exception_filters, which sets the filters of every game.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, makeWorkspace } from './headlessFixture';
import { luaInterpreters } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { quietPort } from '../harness/ports';

const BUNDLE_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const GAME = [
  'local port, name, gate = tonumber(arg[1]), arg[2], arg[3]',
  'local LuaPanda = require("LuaPanda")',
  'LuaPanda.start("127.0.0.1", port, { name = name })',
  'local deadline = os.time() + 20',
  'while not LuaPanda.isConnected() and os.time() < deadline do LuaPanda.tick() end',
  '-- With a gate file: say it is attached (gate.in), then wait (bounded) for the gate.',
  'if gate then local f = io.open(gate .. ".in", "w") f:write(tostring(LuaPanda.isConnected())) f:close() end',
  'local function opened() local f = gate and io.open(gate) if f then f:close() end return f end',
  'while gate and not opened() and os.time() < deadline do',
  '  LuaPanda.tick()',
  '  require("socket").sleep(0.02)',
  'end',
  'local total = 0',
  'for i = 1, 3 do',
  '  total = total + i -- the breakpoint',
  'end',
  'print(name .. " total " .. total)',
  'pcall(error, name .. " caught error")',
  '',
].join('\n');
const BP_LINE = 15;
/** The id of a game's main thread (each session numbers its own threads). */
const MAIN_THREAD = 1;

interface SessionView {
  id: string;
  name: string;
  state: string;
  parent_id?: string;
  exception_filters?: unknown[];
}

for (const lua of luaInterpreters().filter((l) => l.command === 'lua5.4' || l.isLuaJIT)) {
  describe(`several games on one attach port (MCP, ${lua.command})`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;
    let port: number;
    const games: LuaProcess[] = [];

    beforeEach(async () => {
      port = await quietPort();
      const workspace = await makeWorkspace({ 'game.lua': GAME }, [
        {
          type: 'luapanda',
          request: 'attach',
          name: 'games',
          connectionPort: port,
          cwd: '${workspaceFolder}',
        },
      ]);
      fixture = await HeadlessFixture.start(workspace);
      client = await fixture.connect();
    });

    afterEach(async () => {
      for (const game of games.splice(0)) game.kill();
      await fixture.close();
    });

    const call = (name: string, args: Record<string, unknown> = {}) =>
      callTool(client, name, args) as Promise<ToolCallResult>;
    const launchGame = (name: string, gate?: string) => {
      const game = spawnLua(lua, path.join(fixture.workspace, 'game.lua'), {
        args: [String(port), name, ...(gate ? [gate] : [])],
        luaPath: [BUNDLE_DIR],
        cwd: fixture.workspace,
      });
      games.push(game);
      return game;
    };
    const sessions = async () => ((await call('get_debug_state')).sessions ?? []) as SessionView[];
    async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
      for (let i = 0; i < 200; i++) {
        const value = await probe();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await sessions())}`);
    }

    /**
     * Sets the games' breakpoint, then starts the attach configuration; `starting` answers when a
     * game stops (wrapped, so that awaiting this does not wait for it).
     */
    async function breakAndStart(): Promise<{
      starting: ReturnType<typeof call>;
      breakpointId: number;
    }> {
      const set = await call('set_breakpoint', {
        file_path: path.join(fixture.workspace, 'game.lua'),
        line_number: BP_LINE,
      });
      assert.equal(set.status, 'success', JSON.stringify(set));
      return {
        starting: call('start_debugging', { configuration_name: 'games', timeout_seconds: 30 }),
        breakpointId: (set.breakpoint as { id: number }).id,
      };
    }

    it('gives each game its own session, stopping, continuing and ending on its own', async () => {
      const { starting, breakpointId } = await breakAndStart();
      const server = launchGame('server');
      const first = await starting;
      assert.equal(first.status, 'stopped', JSON.stringify(first));
      const [hub] = (await sessions()).filter((s) => s.name === 'games');
      assert.ok(hub, JSON.stringify(await sessions()));
      const game = (await sessions()).find((s) => s.id === first.session_id);
      assert.deepEqual(
        [game?.name, game?.parent_id],
        ['server', hub.id],
        'start_debugging answers with the game that stopped, a session under the attach session',
      );
      const bps = await call('get_breakpoints');
      assert.match(JSON.stringify(bps), /"verified":true/, 'the game session bound the breakpoint');

      const client2 = launchGame('client');
      const child = await waitFor('the second game to stop', async () => {
        const list = await sessions();
        return list.find((s) => s.name === 'client' && s.state === 'Stopped');
      });
      const list = await sessions();
      assert.deepEqual(
        list.map((s) => [s.name, s.parent_id]),
        [
          ['games', undefined],
          ['server', hub.id],
          ['client', hub.id],
        ],
      );
      const parent = game!;

      // The attach session's id stands for a game only while it has one.
      const ambiguous = await call('get_stack_trace', {
        session_id: hub.id,
        thread_id: MAIN_THREAD,
      });
      assert.equal(ambiguous.code, 'several-games', JSON.stringify(ambiguous));
      assert.ok(String(ambiguous.message).includes(parent.id), String(ambiguous.message));
      assert.ok(String(ambiguous.message).includes(child.id), String(ambiguous.message));

      // The first game steps, then runs on to its next stop; the second stays paused meanwhile.
      const stepped = await call('step_execution', {
        session_id: parent.id,
        thread_id: MAIN_THREAD,
        step_type: 'over',
        timeout_seconds: 20,
      });
      assert.equal(stepped.status, 'stopped', JSON.stringify(stepped));
      const again = await call('continue_debugging', {
        session_id: parent.id,
        thread_id: MAIN_THREAD,
        timeout_seconds: 20,
      });
      assert.equal(again.status, 'stopped', JSON.stringify(again));
      const childState = async () => (await sessions()).find((s) => s.id === child.id)?.state;
      assert.equal(await childState(), 'Stopped', 'the other game stays paused');
      const childStop = await call('get_stack_trace', {
        session_id: child.id,
        thread_id: MAIN_THREAD,
      });
      assert.equal(childStop.status, 'success', JSON.stringify(childStop));
      assert.match(JSON.stringify(childStop), new RegExp(`"line_number":${BP_LINE}\\b`));

      // The second game runs to its end: its session ends, the first stays paused.
      assert.equal(
        (await call('remove_breakpoint', { breakpoint_id: breakpointId })).status,
        'success',
      );
      const ended = await call('continue_debugging', {
        session_id: child.id,
        thread_id: MAIN_THREAD,
        timeout_seconds: 20,
      });
      assert.equal(ended.status, 'completed', JSON.stringify(ended));
      assert.equal((await client2.waitForExit(10_000)).code, 0);
      assert.match(client2.stdout, /^client total 6$/m);
      const left = await sessions();
      assert.deepEqual(
        left.map((s) => [s.id, s.state]),
        [
          [hub.id, 'Running'],
          [parent.id, 'Stopped'],
        ],
      );
      // With one game left, the attach session's id stands for it.
      const last = await call('continue_debugging', {
        session_id: hub.id,
        thread_id: MAIN_THREAD,
        timeout_seconds: 20,
      });
      assert.equal(last.status, 'completed', JSON.stringify(last));
      assert.match(String(last.message), /"server" ended/);
      assert.equal((await server.waitForExit(10_000)).code, 0);
      assert.match(server.stdout, /^server total 6$/m);
    });

    it("set_exception_filters with the attach session's id sets them in every game", async () => {
      const { starting } = await breakAndStart();
      launchGame('server');
      const first = await starting;
      assert.equal(first.status, 'stopped', JSON.stringify(first));
      launchGame('client');
      await waitFor('the second game to stop', async () =>
        (await sessions()).find((s) => s.name === 'client' && s.state === 'Stopped'),
      );
      const [hub, ...games] = await sessions();
      assert.deepEqual(
        games.map((g) => g.name),
        ['server', 'client'],
      );

      const filters = await call('set_exception_filters', {
        session_id: hub.id,
        filters: ['uncaught', 'caught'],
      });
      assert.equal(filters.status, 'success', JSON.stringify(filters));
      assert.deepEqual(
        filters.games,
        games.map((g) => g.id),
      );
      assert.match(String(filters.message), /In 2 game\(s\) \("server", "client"\)/);
      assert.deepEqual(
        (await sessions()).map((s) => [s.name, s.exception_filters]),
        [
          ['games', ['uncaught', 'caught']],
          ['server', ['uncaught', 'caught']],
          ['client', ['uncaught', 'caught']],
        ],
      );

      // Each game now stops at the error its pcall catches.
      await call('remove_breakpoint', { clear_all: true });
      for (const game of games) {
        const stop = await call('continue_debugging', {
          session_id: game.id,
          thread_id: MAIN_THREAD,
          timeout_seconds: 20,
        });
        assert.equal(stop.status, 'stopped', JSON.stringify(stop));
        const data = stop.stop_event_data as { reason?: string; text?: string } | undefined;
        assert.deepEqual([data?.reason, data?.text], ['exception', `${game.name} caught error`]);
      }
    });

    it('start_debugging of the attach configuration answers with the game that stopped', async () => {
      const { starting } = await breakAndStart();
      // The first game connects and waits at its gate; the second comes in meanwhile and stops
      // first: the start answers with its session, and names the first in other_sessions.
      const gate = path.join(fixture.workspace, 'gate');
      launchGame('server', gate);
      const attached = await waitFor('the first game to connect', () =>
        fs.readFile(`${gate}.in`, 'utf8').then(
          (text) => text || undefined, // (empty: created, not yet written)
          () => undefined,
        ),
      );
      assert.equal(attached, 'true');
      const server = await waitFor('the first game to have its session', async () =>
        (await sessions()).find((s) => s.name === 'server'),
      );
      launchGame('client');
      const first = await starting;
      assert.equal(first.status, 'stopped', JSON.stringify(first));
      const child = (await sessions()).find((s) => s.name === 'client');
      assert.equal(first.session_id, child?.id);
      assert.deepEqual(first.other_sessions, [{ session_id: server.id, name: 'server' }]);
      assert.match(String(first.message), /1 more game\(s\) connected to this attach port/);
      await fs.writeFile(gate, '');
    });
  });
}
