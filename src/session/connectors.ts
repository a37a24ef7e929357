/**
 * How a session reaches its Lua program. `launchConnector` checks that the interpreter loads
 * luasocket and the runtime, listens on a free loopback port and starts the program on it; `listenConnector` waits for a game that calls `LuaPanda.start`
 * (attach, default port 8818); `dialConnector` connects to a game that called
 * `LuaPanda.startServer`. All waits are bounded and end at once when the connector is disposed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LuaListener, connectToLua } from '../protocol';
import { DebuggeeProcess, DebuggeeSpec } from './debuggee';
import { SessionError } from './errors';
import { describeExit } from './exitStatus';
import { checkInterpreter } from './launchProbe';
import { gameNotReached, noGameConnected, programEndedEarly } from './setupErrors';
import type { SessionConnection } from './types';

export interface Connector {
  readonly mode: 'launch' | 'attach';
  /** Where the session waits, for messages (`127.0.0.1:8818`). */
  readonly endpoint: string;
  /** The program, when this connector started it. */
  readonly process?: DebuggeeProcess;
  /** Whether a second connection can follow the first (autoReconnect). */
  readonly canReconnect: boolean;
  /** Resolves with the next connection; rejects with a `SessionError`. */
  nextConnection(timeoutMs?: number): Promise<SessionConnection>;
  /** Messages worth showing the user (a rejected second connection, …). */
  onNotice?: (text: string) => void;
  /** Releases the listener and pending waits; ends the program when `killProcess`. */
  dispose(killProcess: boolean): Promise<void>;
}

export interface LaunchSpec extends Omit<DebuggeeSpec, 'port'> {
  readonly requestTimeoutMs?: number;
}

export async function launchConnector(spec: LaunchSpec): Promise<Connector> {
  if (!fs.existsSync(spec.cwd) || !fs.statSync(spec.cwd).isDirectory()) {
    throw new SessionError(
      'invalid-configuration',
      `The working folder "${spec.cwd}" does not exist. Check "cwd" in the launch configuration.`,
    );
  }
  if (!fs.existsSync(spec.program) || !fs.statSync(spec.program).isFile()) {
    throw new SessionError(
      'program-not-found',
      `The program "${spec.program}" does not exist. Check "program" in the launch configuration ` +
        '(relative paths are resolved against "cwd").',
    );
  }
  if (!spec.noDebug && !fs.existsSync(path.join(spec.runtimeDir, 'LuaPanda.lua'))) {
    throw new SessionError(
      'runtime-not-found',
      `The debugger runtime LuaPanda.lua was not found in ${spec.runtimeDir}. Rebuild the ` +
        'extension (node scripts/build-lua.mjs) or set "runtimePath".',
    );
  }
  // Without luasocket (or the runtime) the program would run undebugged until the connect
  // timeout: check first, with the same interpreter, environment and search paths.
  const interpreters = spec.noDebug
    ? spec.interpreters
    : [(await checkInterpreter(spec)).interpreter];
  const listener = await LuaListener.listen({
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: spec.requestTimeoutMs,
  });
  let debuggee: DebuggeeProcess;
  try {
    debuggee = await DebuggeeProcess.start({ ...spec, interpreters, port: listener.port });
  } catch (error) {
    await listener.close();
    throw error;
  }
  const aborter = new AbortController();
  return {
    mode: 'launch',
    endpoint: `127.0.0.1:${listener.port}`,
    process: debuggee,
    canReconnect: false,
    nextConnection(timeoutMs) {
      if (debuggee.exited) return Promise.reject(exitError(debuggee));
      return new Promise<SessionConnection>((resolve, reject) => {
        const onExit = () => {
          // Let the last stderr chunk arrive: 'exit' fires after the pipes close.
          cleanup();
          reject(exitError(debuggee));
        };
        const cleanup = () => debuggee.off('exit', onExit);
        debuggee.once('exit', onExit);
        listener
          .waitForConnection({ timeoutMs, signal: aborter.signal })
          .then((connection) => {
            cleanup();
            resolve(connection);
          })
          .catch(() => {
            cleanup();
            reject(
              aborter.signal.aborted
                ? new SessionError('terminated', 'The session was stopped while starting.')
                : new SessionError(
                    'no-connection',
                    `The program did not connect to the debugger within ${timeoutMs} ms. ` +
                      `Its output so far: ${debuggee.stderrTail.trim() || '(nothing on stderr)'}`,
                  ),
            );
          });
      });
    },
    async dispose(killProcess) {
      aborter.abort();
      if (killProcess) await debuggee.kill();
      await listener.close();
    },
  };
}

function exitError(debuggee: DebuggeeProcess): SessionError {
  const syntax = debuggee.syntaxError;
  if (syntax !== undefined) {
    return new SessionError('syntax-error', `The program has a syntax error: ${syntax}`);
  }
  const exit = debuggee.exitStatus ?? { code: null, signal: null };
  return programEndedEarly(describeExit(exit), debuggee.stderrTail);
}

export interface ListenSpec {
  readonly port: number;
  /** Interface to bind; default all, so games on other devices can connect. */
  readonly host?: string;
  readonly requestTimeoutMs?: number;
  /** The configured wait for the game (`connectionTimeout`), for the message when it passes. */
  readonly connectionTimeoutS?: number;
}

export async function listenConnector(spec: ListenSpec): Promise<Connector> {
  let listener: LuaListener;
  try {
    listener = await LuaListener.listen({
      port: spec.port,
      host: spec.host,
      requestTimeoutMs: spec.requestTimeoutMs,
    });
  } catch (error) {
    const message = (error as Error).message;
    throw new SessionError(/in use/.test(message) ? 'port-in-use' : 'no-connection', message);
  }
  const aborter = new AbortController();
  const connector: Connector = {
    mode: 'attach',
    endpoint: `${spec.host ?? '0.0.0.0'}:${listener.port}`,
    canReconnect: true,
    async nextConnection(timeoutMs) {
      try {
        return await listener.waitForConnection({ timeoutMs, signal: aborter.signal });
      } catch {
        if (aborter.signal.aborted) {
          throw new SessionError(
            'terminated',
            'The session was stopped while waiting for the game.',
          );
        }
        // The listener rejects only when aborted or when the time is up.
        const seconds = spec.connectionTimeoutS ?? (timeoutMs ?? 0) / 1000;
        throw noGameConnected({ port: listener.port, host: spec.host, seconds });
      }
    },
    async dispose() {
      aborter.abort();
      await listener.close();
    },
  };
  listener.on('rejected', (rejected) =>
    connector.onNotice?.(
      `Refused a second Lua connection from ${rejected.remoteAddress}: ${rejected.reason}.`,
    ),
  );
  return connector;
}

export interface DialSpec {
  readonly host: string;
  readonly port: number;
  readonly requestTimeoutMs?: number;
  /** The configured wait for the game (`connectionTimeout`), for the message when it passes. */
  readonly connectionTimeoutS?: number;
}

export function dialConnector(spec: DialSpec): Connector {
  const aborter = new AbortController();
  return {
    mode: 'attach',
    endpoint: `${spec.host}:${spec.port}`,
    canReconnect: true,
    async nextConnection(timeoutMs) {
      try {
        return await connectToLua({
          host: spec.host,
          port: spec.port,
          timeoutMs,
          signal: aborter.signal,
          requestTimeoutMs: spec.requestTimeoutMs,
        });
      } catch (error) {
        if (aborter.signal.aborted) {
          throw new SessionError('terminated', 'The session was stopped while connecting.');
        }
        const message = (error as Error).message;
        const seconds = spec.connectionTimeoutS ?? (timeoutMs ?? 0) / 1000;
        const lastError = /\(last error: (.+?)\)\./.exec(message)?.[1] ?? '';
        throw gameNotReached({ host: spec.host, port: spec.port, seconds }, lastError);
      }
    },
    async dispose() {
      aborter.abort();
    },
  };
}
