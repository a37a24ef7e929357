/**
 * The MCP server manager's rules, with real HTTP servers on loopback: several managers in one
 * process stand for several VS Code windows of one user (they share a control folder, as windows
 * share the extension's global storage).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHeadlessBackend } from '../../src/cli/headlessBackend';
import { CONTROL_HEADER, CONTROL_PATH, controlFile } from '../../src/extension/mcpServer/control';
import {
  ManagerSettings,
  McpServerManager,
  ServerState,
  validatePort,
} from '../../src/extension/mcpServer/serverManager';
import { fetchHealth, startHttpServer } from '../../src/mcp/transport/http';

interface Window {
  readonly manager: McpServerManager;
  readonly settings: { -readonly [K in keyof ManagerSettings]: ManagerSettings[K] };
  readonly interrupts: string[];
  dispose(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('extension: MCP server manager (several windows on one port)', () => {
  let controlDir: string;
  let port: number;
  const windows: Window[] = [];
  const backend = createHeadlessBackend({ workspaceFolder: os.tmpdir() });

  function openWindow(workspace: string, settings: Partial<ManagerSettings> = {}): Window {
    const current = { port, autoStart: true, ...settings };
    const interrupts: string[] = [];
    const manager = new McpServerManager({
      workspace,
      settings: () => current,
      createServer: () => backend.createServer(),
      controlDir,
      log: () => undefined,
      interrupt: (reason) => void interrupts.push(reason),
      watchIntervalMs: 100,
      handoverTimeoutMs: 3000,
    });
    const window: Window = {
      manager,
      settings: current,
      interrupts,
      dispose: () => manager.dispose(),
    };
    windows.push(window);
    return window;
  }

  beforeEach(async () => {
    controlDir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-control-'));
    port = await freePort();
  });

  afterEach(async () => {
    await Promise.all(windows.splice(0).map((w) => w.dispose()));
    fs.rmSync(controlDir, { recursive: true, force: true });
  });

  after(() => backend.dispose());

  it('starts on the port, tells /health which folder it serves, and keeps a private control record', async () => {
    const one = openWindow('/work/one');
    const state = await one.manager.initialize();
    assert.equal(state.kind, 'running');
    assert.equal((await fetchHealth(port))?.workspace, '/work/one');
    const file = controlFile(controlDir, port);
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const record = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(record.instanceId, state.kind === 'running' && state.instanceId);
    await one.manager.stop();
    assert.equal(fs.existsSync(file), false, 'stopping removes the record');
    assert.equal(await fetchHealth(port), undefined);
  });

  it('at start-up a second window stays out of the way and shows which folder serves', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const two = openWindow('/work/two');
    const state = await two.manager.initialize();
    assert.deepEqual(
      { kind: state.kind, workspace: state.kind === 'elsewhere' && state.workspace },
      { kind: 'elsewhere', workspace: '/work/one' },
    );
    assert.equal((await fetchHealth(port))?.workspace, '/work/one');
  });

  it('a start by hand takes the port over; the other window is told, and its waits interrupted', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const two = openWindow('/work/two');
    await two.manager.initialize();
    const changes: ServerState[] = [];
    one.manager.onDidChangeState((s) => changes.push(s));

    const state = await two.manager.start();
    assert.equal(state.kind, 'running');
    assert.equal((await fetchHealth(port))?.workspace, '/work/two');
    await waitFor(() => one.manager.state.kind === 'elsewhere', 'window one to step down');
    assert.deepEqual(one.interrupts, ['The MCP server was handed over to another VS Code window.']);
    assert.ok(changes.some((s) => s.kind === 'elsewhere'));
  });

  it('when the serving window closes, a window with auto-start on takes over', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const two = openWindow('/work/two');
    await two.manager.initialize();
    await one.dispose();
    await waitFor(() => two.manager.state.kind === 'running', 'window two to take over');
    assert.equal((await fetchHealth(port))?.workspace, '/work/two');
  });

  it('with auto-start off a window never starts by itself, whatever other windows do', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const two = openWindow('/work/two', { autoStart: false });
    assert.equal((await two.manager.initialize()).kind, 'elsewhere');
    await one.dispose();
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(two.manager.state.kind, 'elsewhere');
    assert.equal(await fetchHealth(port), undefined, 'nobody serves');
    const alone = openWindow('/work/three', { autoStart: false });
    assert.equal((await alone.manager.initialize()).kind, 'stopped');
    assert.equal((await alone.manager.start()).kind, 'running', 'a start by hand still works');
  });

  it('a handover request without the control token is refused (401) and changes nothing', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const attempts: Record<string, string>[] = [{}, { [CONTROL_HEADER]: 'not-the-token' }];
    for (const headers of attempts) {
      const response = await fetch(`http://127.0.0.1:${port}${CONTROL_PATH}`, {
        method: 'POST',
        headers,
        body: '{}',
      });
      assert.equal(response.status, 401);
    }
    const get = await fetch(`http://127.0.0.1:${port}${CONTROL_PATH}`);
    assert.equal(get.status, 405);
    assert.equal(one.manager.state.kind, 'running');
    assert.equal((await fetchHealth(port))?.workspace, '/work/one');
  });

  it('a port held by another program is an error that says so; another port is the way out', async () => {
    // Another program: accepts connections and never answers.
    const sockets = new Set<net.Socket>();
    const blocker = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const one = openWindow('/work/one');
      const state = await one.manager.initialize();
      assert.equal(state.kind, 'error');
      assert.equal(state.kind === 'error' && state.cause, 'port-in-use');
      assert.match(state.kind === 'error' ? state.message : '', /in use by another program/);
      one.settings.port = await freePort();
      const moved = await one.manager.settingsChanged();
      assert.equal(moved.kind, 'running');
      assert.equal(moved.kind === 'running' && moved.port, one.settings.port);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('a running server follows a port change', async () => {
    const one = openWindow('/work/one');
    await one.manager.initialize();
    const old = port;
    one.settings.port = await freePort();
    const state = await one.manager.settingsChanged();
    assert.equal(state.kind === 'running' && state.port, one.settings.port);
    assert.equal(await fetchHealth(old), undefined, 'the old port is free again');
    assert.equal(one.interrupts.length, 1);
  });

  it('turning auto-start off leaves a running server alone; a token change restarts it', async () => {
    const one = openWindow('/work/one');
    const first = await one.manager.initialize();
    one.settings.autoStart = false;
    assert.equal(await one.manager.settingsChanged(), first, 'same server, no restart');
    assert.deepEqual(one.interrupts, []);
    one.settings.token = 'secret';
    const second = await one.manager.settingsChanged();
    assert.equal(second.kind, 'running');
    assert.notEqual(
      second.kind === 'running' && second.instanceId,
      first.kind === 'running' && first.instanceId,
    );
    const refused = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    assert.equal(refused.status, 401);
  });

  it('does not take the port from a LuaPanda server that is no window of this user', async () => {
    const headless = await startHttpServer({
      createServer: () => backend.createServer(),
      port,
      workspace: '/headless',
    });
    try {
      const one = openWindow('/work/one');
      const state = await one.manager.start();
      assert.equal(state.kind, 'error');
      assert.match(state.kind === 'error' ? state.message : '', /headless luapanda-mcp/);
      assert.equal((await fetchHealth(port))?.workspace, '/headless');
    } finally {
      await headless.close();
    }
  });

  it('validates ports', () => {
    assert.equal(validatePort('6009'), undefined);
    assert.equal(validatePort(65535), undefined);
    assert.match(validatePort('80') ?? '', /between 1024 and 65535/);
    assert.match(validatePort('70000') ?? '', /between 1024 and 65535/);
    assert.match(validatePort('60a') ?? '', /whole number/);
    assert.match(validatePort('') ?? '', /whole number/);
  });
});
