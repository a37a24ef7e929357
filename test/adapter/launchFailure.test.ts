// A launch or attach that fails is shown to the user once. VS Code turns a failed launch/attach
// response into a dialog unless `body.error.showUser` is false, into a notification as well when
// it is true, and every `important` output event into a notification: the adapter (out of
// process, DebugClient) must produce exactly one of these for each set-up failure — the dialog.
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { luaInterpreters } from '../harness/interpreters';
import { DapTest, fixture, rawRequest } from './dapHarness';
import { useDapTest } from './useDapTest';

interface Shown {
  response: DebugProtocol.Response;
  dialogs: number;
  notifications: number;
}

/** Starts like VS Code does and counts what VS Code would show of the failure. */
async function failedStart(
  t: DapTest,
  request: 'launch' | 'attach',
  args: Record<string, unknown>,
): Promise<Shown> {
  const configured = t.dc
    .waitForEvent('initialized', 10_000)
    .then(() => t.dc.configurationDoneRequest())
    .catch(() => undefined);
  await t.dc.initializeRequest({
    adapterID: 'luapanda',
    pathFormat: 'path',
    linesStartAt1: true,
    columnsStartAt1: true,
  });
  const response = await rawRequest(t.dc, request, args);
  // Anything the adapter says after the response (the session's end) counts too. A configuration
  // refused before any session exists has no `initialized` and no end to wait for.
  await Promise.race([
    Promise.all([configured, t.terminated]),
    new Promise((resolve) => setTimeout(resolve, 1000)),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const error = (response.body as { error?: DebugProtocol.Message } | undefined)?.error;
  assert.equal(response.success, false, 'the start failed');
  const dialogs = error?.showUser === false ? 0 : 1;
  const notifications =
    (error?.showUser === true ? 1 : 0) + t.outputs.filter((o) => o.category === 'important').length;
  return { response, dialogs, notifications };
}

describe('adapter: a failed launch or attach is shown once', function () {
  this.timeout(30_000);
  const t = useDapTest();

  const once = (shown: Shown, message: RegExp): void => {
    assert.match(shown.response.message ?? '', message);
    assert.deepEqual(
      { dialogs: shown.dialogs, notifications: shown.notifications },
      { dialogs: 1, notifications: 0 },
      JSON.stringify({ response: shown.response, outputs: t.outputs }),
    );
  };

  it('a luaPath that names no interpreter', async () => {
    const shown = await failedStart(t, 'launch', {
      program: fixture('output.lua'),
      cwd: fixture(),
      luaPath: 'no-such-lua-5.9',
    });
    once(shown, /"no-such-lua-5\.9" set in "luaPath" was not found/);
  });

  it('a typo in program', async () => {
    const shown = await failedStart(t, 'launch', {
      program: fixture('outptu.lua'),
      cwd: fixture(),
      luaPath: luaInterpreters()[0].command,
    });
    once(shown, /The program ".*outptu\.lua" does not exist/);
  });

  it('a program with a syntax error', async () => {
    const shown = await failedStart(t, 'launch', {
      program: fixture('syntaxError.lua'),
      cwd: fixture(),
      luaPath: luaInterpreters()[0].command,
    });
    once(shown, /syntax error/i);
  });

  it('an invalid configuration', async () => {
    const shown = await failedStart(t, 'launch', { program: '', cwd: fixture() });
    once(shown, /Invalid launch configuration: "program"/);
  });

  it('an attach port in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      const shown = await failedStart(t, 'attach', { connectionPort: port, cwd: fixture() });
      once(shown, /already in use/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
