/**
 * The attach wait as the user sees it: where the session waits for the game and for how long, as
 * a console line and — for a client that reports progress — as a cancellable progress
 * notification (DAP `progressStart`/`progressEnd`; the client's `cancel` with the progress id
 * ends the wait); after a moment without a game, a hint on what the game may be missing (a
 * `progressUpdate` and a console line). Texts and events only; the session does the waiting.
 */
import { Event, OutputEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  ATTACH_HINT_AFTER_MS,
  DEFAULT_CONNECTION_HOST,
  describeListenHost,
  pairingClause,
  isLoopbackHost,
  slowAttachHint,
} from '../session';

export interface GameWaitSpec {
  readonly port: number;
  /** Dial this address (the game listens, `VSCodeAsClient`); absent: listen on `listenHost`. */
  readonly dialHost?: string;
  /** The address the session listens on (`connectionHost`); default 127.0.0.1. */
  readonly listenHost?: string;
  /** The `connectionTimeout`, in seconds. */
  readonly seconds: number;
  /** A pairing secret is set (`connectionSecret`): a stranger is refused. */
  readonly secured?: boolean;
}

let counter = 0;

export class GameWait {
  readonly progressId = `luapanda-attach-${++counter}`;
  private open = false;
  private hintTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly spec: GameWaitSpec,
    private readonly send: (event: DebugProtocol.Event) => void,
  ) {}

  private get listenHost(): string {
    return this.spec.listenHost ?? DEFAULT_CONNECTION_HOST;
  }

  /** "Waiting for the game on 127.0.0.1:8818". */
  get title(): string {
    const { port, dialHost } = this.spec;
    return dialHost === undefined
      ? `Waiting for the game on ${this.listenHost}:${port}`
      : `Connecting to the game at ${dialHost}:${port}`;
  }

  /** Where and how long, and what the game must do. */
  get detail(): string {
    const { port, dialHost, seconds } = this.spec;
    if (dialHost !== undefined) {
      return (
        `Trying about once a second until the game's LuaPanda.startServer answers; up to ` +
        `${seconds} s (connectionTimeout).`
      );
    }
    const host = this.listenHost;
    return (
      `Listening on ${describeListenHost(host)}, port ${port}, until the game calls ` +
      `require("LuaPanda").start(host, ${port}); up to ${seconds} s (connectionTimeout).` +
      (isLoopbackHost(host)
        ? ' A game on a phone or another machine needs "connectionHost": "0.0.0.0" and a "connectionSecret".'
        : '')
    );
  }

  /**
   * The Debug Console line (its first words are kept: users and tests look for them). It says
   * where the session listens — beyond this machine too, when `connectionHost` says so — once.
   */
  consoleLine(): string {
    const { port, dialHost, seconds } = this.spec;
    if (dialHost !== undefined) {
      return (
        `Connecting to a Lua program at ${dialHost}:${port}, for up to ${seconds} s ` +
        '(connectionTimeout)…\n'
      );
    }
    const host = this.listenHost;
    const startHost = isLoopbackHost(host) ? host : '<this machine>';
    // Beyond this machine, the line says who is let in.
    const who = isLoopbackHost(host) ? '' : ` (${pairingClause(this.spec.secured === true)})`;
    return (
      `Waiting for a Lua program to call require("LuaPanda").start("${startHost}", ${port}) ` +
      `— listening on ${describeListenHost(host)} ("connectionHost"), for up to ${seconds} s ` +
      `(connectionTimeout)…${who}\n`
    );
  }

  /** Shows the cancellable progress notification. */
  begin(): void {
    this.open = true;
    const body: DebugProtocol.ProgressStartEvent['body'] = {
      progressId: this.progressId,
      title: this.title,
      message: this.detail,
      cancellable: true,
    };
    this.send(new Event('progressStart', body) as DebugProtocol.ProgressStartEvent);
    this.hintTimer = setTimeout(() => this.hint(), ATTACH_HINT_AFTER_MS);
    this.hintTimer.unref();
  }

  /** The wait goes on: what a game that runs already may be missing, and the fix. */
  private hint(): void {
    this.hintTimer = undefined;
    if (!this.open) return;
    const text = slowAttachHint(this.spec.port, this.spec.dialHost !== undefined);
    // (The console line first: a client that sees the update has the line already.)
    this.send(new OutputEvent(`${text}\n`, 'console'));
    const body: DebugProtocol.ProgressUpdateEvent['body'] = {
      progressId: this.progressId,
      message: text,
    };
    this.send(new Event('progressUpdate', body) as DebugProtocol.ProgressUpdateEvent);
  }

  /** Closes the notification (once), saying how the wait ended. */
  end(message: string): void {
    if (!this.open) return;
    this.open = false;
    if (this.hintTimer) clearTimeout(this.hintTimer);
    this.hintTimer = undefined;
    const body: DebugProtocol.ProgressEndEvent['body'] = { progressId: this.progressId, message };
    this.send(new Event('progressEnd', body) as DebugProtocol.ProgressEndEvent);
  }

  isOpen(progressId: string | undefined): boolean {
    return this.open && progressId === this.progressId;
  }
}
