/**
 * The MCP server as an agent meets it: a stable tool listing (golden file), the prompt, stdio
 * transport against the real tools, an attach session with progress notifications, runs that end
 * without a stop, and many agents at once.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startHttpServer } from '../../src/mcp/transport/http';
import { TOOLS } from '../../src/mcp/server';
import { HeadlessFixture, callTool, makeWorkspace } from './headlessFixture';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const GOLDEN = path.join(REPO_ROOT, 'test', 'mcp', 'golden', 'tools.json');
const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const lua = luaInterpreters().find((i) => i.command === 'lua5.4') ?? luaInterpreters()[0];

const PRINTER = 'for i = 1, 3 do print("line " .. i) end\n';
const ATTACHED_GAME = `-- connects to the IDE, then hits a hard breakpoint
local port = tonumber(arg[1])
require("LuaPanda").start("127.0.0.1", port)
local score = 41
score = score + 1
LuaPanda.BP()
print("score", score)
`;

describe('MCP server', function () {
  this.timeout(60_000);
  let fixture: HeadlessFixture;
  let workspace: string;
  const connect = () => fixture.connect();
  const call = (
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
    onprogress?: (p: { message?: string }) => void,
  ) => callTool(client, name, args, { onprogress });

  beforeEach(async () => {
    workspace = await makeWorkspace({ 'printer.lua': PRINTER, 'attached.lua': ATTACHED_GAME }, [
      {
        type: 'luapanda',
        request: 'launch',
        name: 'printer',
        program: '${workspaceFolder}/printer.lua',
        luaPath: lua.command,
      },
      { type: 'luapanda', request: 'attach', name: 'attach', connectionPort: 0 },
      {
        type: 'node',
        request: 'launch',
        name: 'a node program',
        program: '${workspaceFolder}/x.js',
      },
    ]);
    fixture = await HeadlessFixture.start(workspace);
  });

  afterEach(() => fixture.close());

  it('lists its tools, schemas and annotations exactly as the golden file says', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const listing = JSON.stringify(tools, null, 2) + '\n';
    if (process.env.UPDATE_GOLDEN === '1') {
      await fs.mkdir(path.dirname(GOLDEN), { recursive: true });
      await fs.writeFile(GOLDEN, listing);
    }
    assert.equal(
      listing,
      await fs.readFile(GOLDEN, 'utf8'),
      'tool listing changed: review, then UPDATE_GOLDEN=1',
    );
    for (const tool of tools) {
      assert.equal(tool.annotations?.openWorldHint, false, tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.ok(
        (tool.description ?? '').length > 60,
        `${tool.name} needs a description written for an agent`,
      );
    }
    assert.equal(client.getInstructions()?.includes('Golden path'), true);
  });

  it('offers a Lua debugging prompt', async () => {
    const client = await connect();
    const { prompts } = await client.listPrompts();
    assert.deepEqual(
      prompts.map((p) => p.name),
      ['debug_lua_problem', 'find_bug'],
    );
    const prompt = await client.getPrompt({
      name: 'debug_lua_problem',
      arguments: { problem: 'hp never drops' },
    });
    const text = (prompt.messages[0].content as { text: string }).text;
    assert.match(text, /hp never drops/);
    assert.match(text, /set_breakpoint/);
  });

  it('offers a plan for a bug whose place is unknown, naming tools that exist', async () => {
    const client = await connect();
    const prompt = await client.getPrompt({
      name: 'find_bug',
      arguments: { symptom: 'the score goes negative after a few minutes' },
    });
    const text = (prompt.messages[0].content as { text: string }).text;
    assert.match(text, /the score goes negative after a few minutes/);
    const tools = new Set(TOOLS.map((tool) => tool.name));
    for (const name of [
      'collect_values',
      'set_breakpoint',
      'start_debugging',
      'set_exception_filters',
      'pause_debugging',
      'get_debug_state',
      'hot_reload_file',
      'continue_debugging',
      'get_output',
      'stop_debugging',
    ]) {
      assert.ok(text.includes(name), `the plan names ${name}`);
      assert.ok(tools.has(name), `${name} is a tool`);
    }
    for (const field of ['error_autopsy', 'changed', 'caught'])
      assert.match(text, new RegExp(field));
  });

  it('runs a program to its end: completed, with and without debugging', async () => {
    const client = await connect();
    const debugged = await call(client, 'start_debugging', { configuration_name: 'printer' });
    assert.equal(debugged.status, 'completed', JSON.stringify(debugged));
    const plain = await call(client, 'start_debugging', {
      configuration_name: 'printer',
      no_debug: true,
    });
    assert.equal(plain.status, 'completed', JSON.stringify(plain));
    const output = await call(client, 'get_output', { session_id: String(plain.session_id) });
    assert.deepEqual(
      (output.groups as { category: string; lines: { text: string }[] }[])
        .filter((g) => g.category === 'stdout')
        .flatMap((g) => g.lines.map((l) => l.text)),
      ['line 1', 'line 2', 'line 3'],
    );
  });

  it('attaches to a game that connects later, reporting progress while it waits', async () => {
    // A fixed free port for the attach configuration: ask the OS for one.
    const probe = await startHttpServer({
      createServer: () => fixture.backend.createServer(),
      port: 0,
      ipv6: false,
    });
    const port = probe.port;
    await probe.close();
    const launchJson = path.join(workspace, '.vscode', 'launch.json');
    const config = parseJsonc(await fs.readFile(launchJson, 'utf8'));
    config.configurations[1].connectionPort = port;
    await fs.writeFile(launchJson, JSON.stringify(config));

    const client = await connect();
    const progress: string[] = [];
    const attached = call(
      client,
      'start_debugging',
      { configuration_name: 'attach', timeout_seconds: 30 },
      (p) => progress.push(p.message ?? ''),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const game = spawnLua(lua, path.join(workspace, 'attached.lua'), {
      args: [String(port)],
      luaPath: [RUNTIME_DIR],
    });
    const result = await attached;
    assert.equal(result.status, 'stopped', JSON.stringify(result));
    assert.ok(
      progress.some((m) => m.includes(`waiting for the Lua VM to connect on :${port}`)),
      progress.join(' | '),
    );
    const stop = result.stop_event_data as {
      top_frame_variables: { variables: { name: string; value: string }[] };
    };
    assert.equal(stop.top_frame_variables.variables.find((v) => v.name === 'score')?.value, '42');
    assert.equal((await call(client, 'stop_debugging')).status, 'success');
    const exit = await game.waitForExit(15_000);
    assert.equal(exit.code, 0, game.stderr);
    assert.match(game.stdout, /score\s+42/, 'the detached game runs on to its end');
  });

  it('refuses a configuration of a debugger the headless server does not have', async () => {
    const client = await connect();
    const result = await call(client, 'start_debugging', { configuration_name: 'a node program' });
    assert.equal(result.code, 'start-failed');
    assert.match(String(result.message), /headless server cannot debug/);
  });

  it('answers wrong tool arguments with an error naming the field', async () => {
    const client = await connect();
    const response = await client.callTool({
      name: 'set_breakpoint',
      arguments: { file_path: 'printer.lua', line_number: 'abc' },
    });
    assert.equal(response.isError, true);
    const text = (response.content as { text: string }[])[0].text;
    assert.match(text, /line_number/);
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match((unknown.content as { text: string }[])[0].text, /no_such_tool not found/);
  });

  it('serves 20 agents at once, sharing one set of breakpoints', async () => {
    const agents = await Promise.all(Array.from({ length: 20 }, () => connect()));
    const set = await Promise.all(
      agents.map((agent, i) =>
        call(agent, 'set_breakpoint', {
          file_path: 'printer.lua',
          line_number: 1,
          condition: `i == ${i}`,
        }),
      ),
    );
    const ids = set.map((r) => (r.breakpoint as { id: number }).id);
    assert.equal(new Set(ids).size, 20, 'every breakpoint gets its own id');
    const lists = await Promise.all(agents.map((agent) => call(agent, 'get_breakpoints')));
    for (const list of lists) assert.equal((list.breakpoints as unknown[]).length, 20);
  });

  it('serves the same tools over stdio', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        path.join(REPO_ROOT, 'out', 'src', 'cli', 'mcp.js'),
        '--stdio',
        '--workspace',
        workspace,
      ],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, TOOLS.length);
      const result = await call(client, 'start_debugging', { configuration_name: 'printer' });
      assert.equal(result.status, 'completed', JSON.stringify(result));
    } finally {
      await client.close();
    }
  });
});
