/**
 * The stdio server transport in a real child process: `serveStdio` driven by the SDK's
 * StdioClientTransport, with progress and cancellation, console output kept off stdout, and an exit
 * when the client closes stdin. (The stdio → HTTP bridge: stdioBridge.test.ts.)
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { FIXTURES, textOf } from './helpers';
import { connectStdio, progressAndCancel, type StdioClient } from './stdioClient';

const STDIO_SERVER = path.join(FIXTURES, 'stdioServerMain.js');

describe('mcp/transport/stdio', () => {
  describe('serveStdio in a child process', () => {
    let stdio: StdioClient | undefined;

    afterEach(async () => {
      await stdio?.client.close();
      stdio = undefined;
    });

    it('serves initialize, tools/list and tools/call', async () => {
      stdio = await connectStdio([STDIO_SERVER]);
      assert.equal(stdio.client.getServerVersion()?.name, 'transport-test');
      const tools = await stdio.client.listTools();
      assert.ok(tools.tools.some((tool) => tool.name === 'echo'));
      const echo = await stdio.client.callTool({ name: 'echo', arguments: { text: 'über stdio' } });
      assert.equal(textOf(echo), 'über stdio');
      assert.match(stdio.stderr(), /console\.log is routed to stderr/);
      assert.deepEqual(stdio.errors, []);
    });

    it('delivers progress and passes cancellation to the handler signal', async () => {
      stdio = await connectStdio([STDIO_SERVER]);
      const client = stdio.client;
      // stdio keeps order: the cancellation is handled before the next request is read.
      await progressAndCancel(client, async () => {
        const count = await client.callTool({ name: 'abort_count', arguments: {} });
        assert.equal(textOf(count), '1');
      });
    });

    it('exits when the client closes stdin', async () => {
      stdio = await connectStdio([STDIO_SERVER]);
      const transport = stdio.transport;
      const pid = transport.pid;
      assert.ok(pid);
      let closed!: () => void;
      const gone = new Promise<void>((resolve) => (closed = resolve));
      transport.onclose = () => closed();
      await stdio.client.close();
      stdio = undefined;
      await gone;
      assert.throws(() => process.kill(pid, 0), /ESRCH/);
    });
  });
});
