#!/usr/bin/env node
/**
 * `luapanda-dap`: the `luapanda` debug adapter as a standalone program. With no argument it
 * speaks DAP on stdin/stdout (one session); with `--server=PORT` it listens on 127.0.0.1:PORT
 * and runs one session per connection (handy for debugging the adapter itself). Programs it
 * launched are ended when it exits. `--trace[=TAGS]` traces to stderr (`--trace-file=FILE`: to
 * a file) what crosses the adapter, as LUAPANDA_TRACE does.
 */
import { LuaDebugSession, serveAdapterOverTcp } from '../adapter';
import { errorText } from '../common/errorText';
import { setProcessTracer, tracerFromSwitches } from '../common/trace';
import { killAllDebuggees } from '../session';

function serverPort(argv: string[]): number | undefined {
  const arg = argv.find((a) => a.startsWith('--server='));
  if (arg === undefined) return undefined;
  const port = Number(arg.slice('--server='.length));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`luapanda-dap: invalid port in ${arg}`);
    process.exit(2);
  }
  return port;
}

/** `--trace[=TAGS]` and `--trace-file=FILE` replace the environment's trace switches. */
function configureTrace(argv: string[]): void {
  const trace = argv.find((a) => a === '--trace' || a.startsWith('--trace='));
  const file = argv.find((a) => a.startsWith('--trace-file='));
  if (trace === undefined && file === undefined) return;
  try {
    setProcessTracer(
      tracerFromSwitches(
        trace === undefined ? process.env.LUAPANDA_TRACE : trace.slice('--trace='.length) || 'all',
        file === undefined ? process.env.LUAPANDA_TRACE_FILE : file.slice('--trace-file='.length),
      ),
    );
  } catch (e) {
    console.error(`luapanda-dap: cannot trace: ${(e as Error).message}`);
    process.exit(2);
  }
}

function main(): void {
  configureTrace(process.argv.slice(2));
  process.on('exit', killAllDebuggees);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => process.exit(0));
  }
  const port = serverPort(process.argv.slice(2));
  if (port === undefined) {
    // A child session would start another adapter process, which cannot take over a connection
    // this one accepted: a further game on the attach port is refused instead (use --server).
    const session = new LuaDebugSession({ gamesInChildSessions: false });
    process.stdin.on('end', () => session.shutdown());
    session.start(process.stdin, process.stdout);
    return;
  }
  serveAdapterOverTcp(port).then(
    (server) => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      console.error(`luapanda-dap: listening on 127.0.0.1:${bound}`);
    },
    (error: unknown) => {
      console.error(`luapanda-dap: cannot listen on 127.0.0.1:${port}: ${errorText(error)}`);
      process.exit(1);
    },
  );
}

main();
