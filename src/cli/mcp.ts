/**
 * `luapanda-mcp`: the MCP debugger tools without VS Code. Serves one workspace folder over
 * Streamable HTTP or stdio, launching and attaching Lua sessions through the in-process adapter;
 * or, with `--connect`, bridges a stdio-only client to a running HTTP server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTraceTags, setProcessTracer, tracerFromSwitches } from '../common/trace';
import { DEFAULT_MCP_PORT, startHttpServer } from '../mcp/transport/http';
import { serveStdio } from '../mcp/transport/stdio';
import { DEFAULT_BRIDGE_WAIT_SECONDS, runStdioBridge } from '../mcp/transport/stdioBridge';
import { createHeadlessBackend } from './headlessBackend';
import { PACKAGE_VERSION } from '../common/version';

const USAGE = `luapanda-mcp ${PACKAGE_VERSION}
Serve the LuaPanda MCP debugger tools to an AI agent, without VS Code.

usage:
  luapanda-mcp --stdio [--workspace DIR]               MCP over stdin/stdout (for clients that start servers)
  luapanda-mcp --http [PORT] [--workspace DIR]         Streamable HTTP on http://127.0.0.1:PORT/mcp (default ${DEFAULT_MCP_PORT})
  luapanda-mcp --stdio --connect URL [--wait-seconds N]
                                                       bridge stdio to an HTTP server (e.g. the VS Code extension's)

options:
  --workspace DIR            folder with .vscode/launch.json (default: the current folder)
  --token TOKEN              require "Authorization: Bearer TOKEN" over HTTP (or send it, with --connect);
                             default: the LUAPANDA_MCP_TOKEN environment variable, else none
  --timeout SECONDS          default wait of start/continue/step/pause (default 30)
  --wait-seconds N           with --connect: how long to wait for the HTTP server when it is not up yet or
                             went away (a VS Code window starting or reloading), holding the client's
                             requests meanwhile; 0 = fail at once (default ${DEFAULT_BRIDGE_WAIT_SECONDS}). A restarted
                             server gets a new session transparently.
  --allow-outside-workspace  allow breakpoints in files outside the workspace folder
  --trace[=TAGS]             trace to stderr what crosses the debugger, for bug reports: every tag, or a
                             comma-separated list of wire.send, wire.receive (wire: both), dap, mcp.call,
                             session.state, runtime (default: the LUAPANDA_TRACE environment variable)
  --trace-file FILE          append the trace to FILE instead (alone: every tag; LUAPANDA_TRACE_FILE)
  --help, --version`;

export interface CliOptions {
  mode: 'http' | 'stdio' | 'bridge';
  workspace: string;
  port: number;
  connect?: string;
  token?: string;
  timeoutSeconds: number;
  /** With --connect: how long to wait for an unreachable HTTP server. */
  waitSeconds: number;
  allowOutsideWorkspace: boolean;
  /** --trace: the tags to trace (`all` for every one); undefined: the environment decides. */
  trace?: string;
  /** --trace-file: where the trace goes instead of stderr. */
  traceFile?: string;
}

export class UsageError extends Error {}

/** Parses the command line; throws UsageError with a message for the user. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  let mode: CliOptions['mode'] | undefined;
  let workspace = process.cwd();
  let port = DEFAULT_MCP_PORT;
  let connect: string | undefined;
  let token = env.LUAPANDA_MCP_TOKEN || undefined;
  let timeoutSeconds = 30;
  let waitSeconds = DEFAULT_BRIDGE_WAIT_SECONDS;
  let allowOutsideWorkspace = false;
  let trace: string | undefined;
  let traceFile: string | undefined;
  const value = (i: number, flag: string): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const take = () => inline ?? value(i++, flag);
    switch (flag) {
      case '--stdio':
        mode = mode === 'bridge' ? 'bridge' : 'stdio';
        break;
      case '--http': {
        mode = 'http';
        const next = inline ?? argv[i + 1];
        if (next !== undefined && /^\d+$/.test(next)) {
          port = parsePort(next);
          if (inline === undefined) i++;
        }
        break;
      }
      case '--connect':
        connect = take();
        mode = 'bridge';
        break;
      case '--workspace':
        workspace = path.resolve(take());
        break;
      case '--token':
        token = take();
        break;
      case '--timeout': {
        const seconds = Number(take());
        if (!(seconds > 0 && seconds <= 3600))
          throw new UsageError('--timeout takes a number of seconds from 1 to 3600');
        timeoutSeconds = seconds;
        break;
      }
      case '--wait-seconds': {
        const text = take();
        const seconds = Number(text);
        if (!/^\d+$/.test(text) || seconds > 86400)
          throw new UsageError('--wait-seconds takes a whole number of seconds from 0 to 86400');
        waitSeconds = seconds;
        break;
      }
      case '--allow-outside-workspace':
        allowOutsideWorkspace = true;
        break;
      case '--trace':
        trace = inline ?? 'all';
        try {
          parseTraceTags(trace);
        } catch (e) {
          throw new UsageError(`--trace: ${(e as Error).message}`);
        }
        break;
      case '--trace-file':
        traceFile = path.resolve(take());
        break;
      default:
        throw new UsageError(`unknown argument: ${arg}`);
    }
  }
  if (!mode) throw new UsageError('choose --stdio or --http [PORT] (or --stdio --connect URL)');
  if (mode !== 'bridge') {
    if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) {
      throw new UsageError(`the workspace folder does not exist: ${workspace}`);
    }
  }
  return {
    mode,
    workspace,
    port,
    connect,
    token,
    timeoutSeconds,
    waitSeconds,
    allowOutsideWorkspace,
    trace,
    traceFile,
  };
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`not a port number: ${text}`);
  return port;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--version')) {
    console.log(PACKAGE_VERSION);
    return 0;
  }
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`luapanda-mcp: ${e.message}\nRun luapanda-mcp --help for usage.`);
    return 2;
  }
  if (options.trace !== undefined || options.traceFile !== undefined) {
    // The switches replace LUAPANDA_TRACE (stdout is the protocol: the trace goes to stderr).
    try {
      setProcessTracer(
        tracerFromSwitches(
          options.trace ?? process.env.LUAPANDA_TRACE,
          options.traceFile ?? process.env.LUAPANDA_TRACE_FILE,
        ),
      );
    } catch (e) {
      console.error(`luapanda-mcp: cannot trace: ${(e as Error).message}`);
      return 2;
    }
  }
  if (options.mode === 'bridge') {
    return runStdioBridge(options.connect!, {
      token: options.token,
      waitSeconds: options.waitSeconds,
    });
  }
  const backend = createHeadlessBackend({
    workspaceFolder: options.workspace,
    settings: {
      defaultTimeoutSeconds: options.timeoutSeconds,
      allowOutsideWorkspace: options.allowOutsideWorkspace,
    },
  });
  if (options.mode === 'stdio') {
    const handle = await serveStdio(() => backend.createServer());
    const stop = () => void handle.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await handle.closed;
    await backend.dispose();
    return 0;
  }
  let server;
  try {
    server = await startHttpServer({
      createServer: () => backend.createServer(),
      port: options.port,
      token: options.token,
      workspace: options.workspace,
      log: (line) => console.error(`luapanda-mcp: ${line}`),
    });
  } catch (e) {
    console.error(`luapanda-mcp: ${(e as Error).message}`);
    await backend.dispose();
    return 1;
  }
  console.error(`luapanda-mcp: serving ${options.workspace} at ${server.urls.join(' and ')}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  console.error('luapanda-mcp: shutting down');
  await backend.dispose();
  await server.close();
  return 0;
}

if (require.main === module) {
  // Exit explicitly: idle keep-alive sockets of the HTTP client or server would otherwise hold
  // the process open for a while after the work is done.
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(`luapanda-mcp: ${(e as Error).stack ?? String(e)}`);
      process.exit(1);
    },
  );
}
