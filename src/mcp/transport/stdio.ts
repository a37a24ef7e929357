/**
 * The MCP server's stdio transport: `serveStdio` serves one McpServer over stdin/stdout (headless
 * `luapanda-mcp --stdio`). The stdio → HTTP bridge (`--stdio --connect <url>`) is in stdioBridge.ts.
 * stdout carries the protocol only; diagnostics go to stderr.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { redirectConsoleToStderr, type StdioStreams } from './stdioStreams';

export interface ServeStdioOptions extends StdioStreams {
  /** Send `console.log/info/debug` to stderr, so that nothing but protocol reaches stdout
   * (default true when stdout is `process.stdout`). */
  redirectConsole?: boolean;
}

export interface StdioServerHandle {
  readonly server: McpServer;
  /** Resolves when the session ends: stdin closed, stdout broken, or `close()`. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one McpServer from `createServer()` over stdio; the session ends when stdin ends. */
export async function serveStdio(
  createServer: () => McpServer,
  options: ServeStdioOptions = {},
): Promise<StdioServerHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (options.redirectConsole ?? stdout === process.stdout) redirectConsoleToStderr();

  const server = createServer();
  const transport = new StdioServerTransport(stdin, stdout);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  // Set before connect(): the SDK chains its own onclose after ours.
  transport.onclose = () => markClosed();
  await server.connect(transport);

  const end = (): void => void server.close().catch(() => undefined);
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    // EPIPE: the client is gone; nothing can be answered any more.
    if (error.code !== 'EPIPE') process.stderr.write(`luapanda-mcp: stdout: ${error.message}\n`);
    end();
  };
  stdin.once('end', end);
  stdin.once('close', end);
  stdout.on('error', onStdoutError);
  void closed.then(() => {
    stdin.off('end', end);
    stdin.off('close', end);
    stdout.off('error', onStdoutError);
  });
  return {
    server,
    closed,
    async close() {
      await server.close();
      await closed;
    },
  };
}
