/**
 * `luapanda-mcp --trace` (stderr) and LUAPANDA_TRACE_FILE (a file) in a real child process driven
 * by the SDK's stdio client, debugging a real Lua program: every frame crossing the wire is
 * traced both ways (each request's reply, and the runtime's own account of each frame it got),
 * with the tool calls and the session's state changes; stdout stays the MCP protocol.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';
import { type WireFrame, assertRepliesAndStopTraced } from '../harness/wireTrace';
import { callTool, makeWorkspace } from './headlessFixture';

const CLI = path.join(REPO_ROOT, 'out', 'src', 'cli', 'mcp.js');

const PROGRAM = `local total = 0
for i = 1, 3 do
  total = total + i -- line 3
end
print("total", total)
`;

/** The texts of the lines of `tag` in a trace (stderr or file lines: time, [tag], text). */
function traced(trace: string, tag: string): string[] {
  const marker = ` [${tag}] `;
  return trace
    .split('\n')
    .filter((line) => line.includes(marker))
    .map((line) => line.slice(line.indexOf(marker) + marker.length));
}

/** Runs the program to a breakpoint and to its end through the CLI; returns its stderr. */
async function debugThroughCli(
  workspace: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--stdio', '--workspace', workspace, ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as PassThrough | null)?.on('data', (chunk: Buffer) => (stderr += chunk));
  const client = new Client({ name: 'trace-test', version: '1.0.0' });
  const errors: string[] = [];
  client.onerror = (error) => errors.push(error.message);
  await client.connect(transport);
  try {
    const file = path.join(workspace, 'main.lua');
    const set = await callTool(client, 'set_breakpoint', { file_path: file, line_number: 3 });
    assert.equal(set.status, 'success');
    const stopped = await callTool(client, 'start_debugging', {
      configuration_name: 'main',
      timeout_seconds: 20,
    });
    assert.equal(stopped.status, 'stopped', JSON.stringify(stopped));
    await callTool(client, 'remove_breakpoint', { clear_all: true });
    const threadId = (stopped.stop_event_data as { thread_id: number }).thread_id;
    const ended = await callTool(client, 'continue_debugging', {
      thread_id: threadId,
      timeout_seconds: 20,
    });
    assert.equal(ended.status, 'completed', JSON.stringify(ended));
  } finally {
    await client.close();
  }
  assert.deepEqual(errors, [], 'stdout carried only the protocol');
  return stderr;
}

function checkWireTrace(trace: string): void {
  const sent = traced(trace, 'wire.send').map((text) => JSON.parse(text) as WireFrame);
  const received = traced(trace, 'wire.receive').map((text) => JSON.parse(text) as WireFrame);
  assert.equal(sent[0]?.cmd, 'initSuccess', `the handshake first:\n${trace}`);
  assertRepliesAndStopTraced(sent, received);
  const commands = traced(trace, 'runtime')
    .filter((line) => line.startsWith('command '))
    .map((line) => line.split(' ')[1]);
  assert.deepEqual(
    commands,
    sent.slice(1).map((f) => f.cmd),
    'the runtime received exactly the frames traced as sent',
  );
  const calls = traced(trace, 'mcp.call');
  assert.ok(calls.some((line) => line.startsWith('→ start_debugging {')));
  assert.ok(calls.some((line) => line.startsWith('← start_debugging {"status":"stopped"')));
  const states = traced(trace, 'session.state');
  assert.ok(
    states.some((line) => line.includes('→ Stopped')),
    states.join(' | '),
  );
}

const lua = luaInterpreters()[0];

(lua ? describe : describe.skip)('luapanda-mcp tracing', function () {
  this.timeout(60_000);
  let workspace: string;

  before(async () => {
    workspace = await makeWorkspace({ 'main.lua': PROGRAM }, [
      {
        type: 'luapanda',
        request: 'launch',
        name: 'main',
        program: '${workspaceFolder}/main.lua',
        cwd: '${workspaceFolder}',
        luaPath: lua.command,
      },
    ]);
  });
  after(async () => {
    await fs.rm(workspace, { recursive: true, force: true });
  });

  it('--trace writes every frame both ways, tool calls and state changes to stderr', async () => {
    const stderr = await debugThroughCli(workspace, ['--trace']);
    checkWireTrace(stderr);
  });

  it('LUAPANDA_TRACE_FILE writes the trace to a file; --trace=TAGS narrows it', async () => {
    const file = path.join(workspace, 'trace.log');
    const stderr = await debugThroughCli(workspace, [], { LUAPANDA_TRACE_FILE: file });
    assert.doesNotMatch(stderr, /\[wire\./, 'nothing on stderr');
    checkWireTrace(await fs.readFile(file, 'utf8'));

    const narrow = await debugThroughCli(workspace, ['--trace=mcp']);
    assert.ok(traced(narrow, 'mcp.call').length > 0);
    assert.deepEqual(traced(narrow, 'wire.send'), []);
    assert.deepEqual(traced(narrow, 'session.state'), []);
  });
});
