/**
 * `SessionLink`: the lifecycle of a session's link to the Lua program, apart from the model. It
 * owns the connector and the current connection: it waits for the program (retrying a link lost
 * in the handshake while time remains), greets it, reconnects a game that dropped the link,
 * gives a launched program a grace period to report its exit, and hangs up and releases both
 * when the session ends. What the link carries (stops, logs, configuration) is the model's: the
 * link hands it over through `LinkHooks`, for the current connection only.
 */
import { settleWithin } from '../../common/async';
import {
  Feature,
  IdeCommand,
  IdeRequestInfo,
  LuaNotification,
  ProtocolError,
  ReplyInfo,
  RequestCommand,
  featureSet,
} from '../../protocol';
import type { Connector } from './connectors';
import { SessionError, sessionErrors, toSessionError } from '../errors';
import { handshakeFor } from './handshakeSettings';
import { pairedHandshake } from './pairingHandshake';
import type { StateMachine } from '../state';
import type { SessionConnection, SessionSettings } from '../types';

/** How long a dropped link waits for the launched program to exit, to report its exit code. */
const EXIT_GRACE_MS = 2_000;
/** Longest wait for the connector to release its listener and program when the session ends. */
const DISPOSE_TIMEOUT_MS = 5_000;
/** How long a detach waits for the Lua side to acknowledge `stopRun`. */
const DETACH_TIMEOUT_MS = 2_000;

/** What the link asks of the model that owns it. */
export interface LinkHooks {
  /** The session's state machine: the link moves it to Starting and Running, never further. */
  readonly machine: StateMachine;
  notification(notification: LuaNotification): void;
  protocolError(error: ProtocolError): void;
  /**
   * A handshake completed (`features` and `runtime` are set): the model sends its configuration
   * (breakpoints, filters) and resolves once the runtime has it.
   */
  configure(reply: ReplyInfo<'initSuccess'>, connection: SessionConnection): Promise<void>;
  /** The handshaken link dropped: the model forgets what belonged to it. */
  lost(): void;
  /** A line for the user (the Debug Console's important category). */
  notice(text: string): void;
  /** Ends the session with `reason` (once; the model releases the link through `release`). */
  finish(reason: string, error?: SessionError): Promise<void>;
}

export class SessionLink {
  private currentConnector: Connector | undefined;
  private connection: SessionConnection | undefined;
  /** The connection whose handshake completed; a link lost before that is the start's concern. */
  private handshaken: SessionConnection | undefined;
  private featureNames: ReadonlySet<Feature> = new Set();
  private runtimeName = '';

  constructor(
    private readonly settings: SessionSettings,
    private readonly hooks: LinkHooks,
  ) {}

  get connector(): Connector | undefined {
    return this.currentConnector;
  }

  /** What the connected runtime said it can do (kept after the link drops). */
  get features(): ReadonlySet<Feature> {
    return this.featureNames;
  }

  get runtime(): string {
    return this.runtimeName;
  }

  /** A connection is held (it may be closing: see `isConnected`). */
  get hasConnection(): boolean {
    return this.connection !== undefined;
  }

  /** The current connection's handshake completed. */
  get isHandshaken(): boolean {
    return this.handshaken !== undefined;
  }

  isConnected(): boolean {
    return this.connection !== undefined && !this.connection.closed;
  }

  /** The connector the session runs through (set before any wait, a run without debugging too). */
  use(connector: Connector): void {
    this.currentConnector = connector;
  }

  /**
   * Waits through the connector for the program and greets it; a link that dies before the
   * handshake is retried while time remains. Rejects with the error the session ends with.
   */
  async connect(connectTimeoutMs?: number): Promise<void> {
    const connector = this.currentConnector;
    if (!connector) throw sessionErrors.notConnected();
    const deadline = connectTimeoutMs !== undefined ? Date.now() + connectTimeoutMs : undefined;
    let lostHandshake: SessionError | undefined;
    for (;;) {
      let connection: SessionConnection | undefined;
      try {
        const remaining = deadline !== undefined ? Math.max(1, deadline - Date.now()) : undefined;
        connection = await connector.nextConnection(remaining);
        await this.adopt(connection);
        return;
      } catch (error) {
        const failure = toSessionError(error, 'no-connection');
        // A link that dies before the handshake is a failed attempt (a game that listens may
        // close a connection it did not accept in time), and a peer that failed the pairing is a
        // stranger (its connection is closed): try again while time remains.
        const pairingFailed = failure.code === 'pairing-failed';
        if (pairingFailed) this.hooks.notice(`${failure.message}\n`);
        const failedAttempt =
          (failure.code === 'handshake-failed' && connection?.closed === true) || pairingFailed;
        // (Its address waits a while before it is taken again: strangerBackoff.ts.)
        if (failedAttempt && connection) connector.pairingFailed?.(connection);
        const retry =
          failedAttempt &&
          connector.canReconnect &&
          (deadline === undefined || Date.now() < deadline) &&
          this.hooks.machine.is('Starting');
        if (retry) {
          lostHandshake = failure;
          continue;
        }
        // A program that connected and died in the handshake is the news, not the wait after it.
        throw failure.code === 'no-connection' && lostHandshake
          ? new SessionError(
              lostHandshake.code,
              `${lostHandshake.message} No program completed the handshake after it ` +
                `(${failure.message})`,
            )
          : failure;
      }
    }
  }

  async request<C extends RequestCommand & IdeCommand>(
    cmd: C,
    info: IdeRequestInfo<C>,
    timeoutMs = this.settings.requestTimeoutMs,
  ): Promise<ReplyInfo<C>> {
    const connection = this.connection;
    if (!connection || connection.closed) {
      throw sessionErrors.notConnected();
    }
    try {
      return await connection.request(cmd, info, { timeoutMs });
    } catch (error) {
      throw toSessionError(error);
    }
  }

  /**
   * Ends the link before the session is released: a launched program is killed (`killProcess`),
   * an attached one is detached from and runs on.
   */
  async hangUp(killProcess: boolean): Promise<void> {
    const connection = this.connection;
    if (!connection || connection.closed) return;
    if (killProcess) await this.currentConnector?.process?.kill();
    else {
      // Detach: the runtime drops the link and the program runs on (stopped ones resume).
      await this.request('stopRun', {}, DETACH_TIMEOUT_MS).catch(() => undefined);
    }
    await connection.close();
  }

  /** Drops the connection and lets the connector release its listener (and program), bounded. */
  async release(killProcess: boolean): Promise<void> {
    this.connection?.destroy();
    this.connection = undefined;
    await settleWithin(this.currentConnector?.dispose(killProcess), DISPOSE_TIMEOUT_MS);
  }

  private async adopt(connection: SessionConnection): Promise<void> {
    this.connection = connection;
    this.handshaken = undefined;
    connection.on('notification', (n) => {
      if (connection === this.connection) this.hooks.notification(n);
    });
    connection.on('protocolError', (e) => {
      if (connection === this.connection) this.hooks.protocolError(e);
    });
    connection.on('close', () => void this.onConnectionClosed(connection));
    const reply =
      this.currentConnector?.handshakeOf?.(connection) ??
      (await greetGame(connection, this.settings));
    this.handshaken = connection;
    this.featureNames = featureSet(reply.features);
    this.runtimeName = reply.runtime ?? `LuaPanda ${reply.debuggerVer ?? ''}`.trim();
    await this.hooks.configure(reply, connection);
    const machine = this.hooks.machine;
    if (machine.is('Starting')) machine.transition('Running', 'the program runs');
  }

  private async onConnectionClosed(connection: SessionConnection): Promise<void> {
    if (connection !== this.connection || connection !== this.handshaken) return;
    const machine = this.hooks.machine;
    if (machine.is('Terminating', 'Terminated')) return;
    this.connection = undefined;
    this.hooks.lost();
    const connector = this.currentConnector;
    const debuggee = connector?.process;
    if (debuggee) {
      // The program is probably ending: report its exit code rather than a lost link.
      if (!debuggee.exited) {
        const timer = setTimeout(() => {
          void this.hooks.finish('The Lua program closed the debug connection.');
        }, EXIT_GRACE_MS);
        debuggee.once('exit', () => clearTimeout(timer));
      }
      return;
    }
    if (connector && connector.canReconnect && this.settings.autoReconnect) {
      machine.transition('Starting', 'the link dropped; waiting for the game to reconnect');
      this.hooks.notice(`The Lua program disconnected; waiting for it on ${connector.endpoint}.\n`);
      try {
        await this.adopt(await connector.nextConnection());
      } catch (error) {
        const failure = toSessionError(error, 'connection-lost');
        if (failure.code !== 'terminated') await this.hooks.finish(failure.message, failure);
      }
      return;
    }
    await this.hooks.finish('The Lua program closed the debug connection.');
  }
}

/**
 * The LuaPanda handshake on a new connection; rejects with `handshake-failed` (no complete reply)
 * or `handshake-refused` (the runtime refused these settings).
 */
export async function greetGame(
  connection: SessionConnection,
  settings: SessionSettings,
): Promise<ReplyInfo<'initSuccess'>> {
  if (settings.connectionSecret !== undefined) {
    return pairedHandshake(connection, settings, settings.connectionSecret);
  }
  let reply: ReplyInfo<'initSuccess'>;
  try {
    reply = await connection.request('initSuccess', handshakeFor(settings), {
      timeoutMs: settings.requestTimeoutMs,
    });
  } catch (error) {
    const cause = toSessionError(error);
    throw sessionErrors.handshakeFailed(cause.message);
  }
  if (reply.error !== undefined) {
    // The runtime drops the link after a refusal, and would refuse the same settings again: the
    // session ends with the runtime's reason (a code start() does not retry).
    throw sessionErrors.handshakeRefused(reply.error);
  }
  return reply;
}
