/**
 * The attach wait as the user sees it: where the session waits for the game and for how long, as
 * a console line and — for a client that reports progress — as a cancellable progress
 * notification (DAP `progressStart`/`progressEnd`; the client's `cancel` with the progress id
 * ends the wait). Texts only and the event pair; the session does the waiting.
 */
import { Event } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';

export interface GameWaitSpec {
  readonly port: number;
  /** Dial this address (the game listens, `VSCodeAsClient`); absent: listen on every interface. */
  readonly dialHost?: string;
  /** The `connectionTimeout`, in seconds. */
  readonly seconds: number;
}

let counter = 0;

export class GameWait {
  readonly progressId = `luapanda-attach-${++counter}`;
  private open = false;

  constructor(
    readonly spec: GameWaitSpec,
    private readonly send: (event: DebugProtocol.Event) => void,
  ) {}

  /** "Waiting for the game on :8818". */
  get title(): string {
    const { port, dialHost } = this.spec;
    return dialHost === undefined
      ? `Waiting for the game on :${port}`
      : `Connecting to the game at ${dialHost}:${port}`;
  }

  /** Where and how long, and what the game must do. */
  get detail(): string {
    const { port, dialHost, seconds } = this.spec;
    return dialHost === undefined
      ? `Listening on every interface of this machine, port ${port}, until the game calls ` +
          `require("LuaPanda").start(host, ${port}); up to ${seconds} s (connectionTimeout).`
      : `Trying about once a second until the game's LuaPanda.startServer answers; up to ` +
          `${seconds} s (connectionTimeout).`;
  }

  /** The Debug Console line (its first words are kept: users and tests look for them). */
  consoleLine(): string {
    const { port, dialHost, seconds } = this.spec;
    return dialHost === undefined
      ? `Waiting for a Lua program to call require("LuaPanda").start("<this machine>", ${port}) ` +
          `— listening on every interface, for up to ${seconds} s (connectionTimeout)…\n`
      : `Connecting to a Lua program at ${dialHost}:${port}, for up to ${seconds} s ` +
          '(connectionTimeout)…\n';
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
  }

  /** Closes the notification (once), saying how the wait ended. */
  end(message: string): void {
    if (!this.open) return;
    this.open = false;
    const body: DebugProtocol.ProgressEndEvent['body'] = { progressId: this.progressId, message };
    this.send(new Event('progressEnd', body) as DebugProtocol.ProgressEndEvent);
  }

  isOpen(progressId: string | undefined): boolean {
    return this.open && progressId === this.progressId;
  }
}
