/**
 * What the MCP tools know of each session, derived from the channel's DAP events alone: its
 * state, its latest stop, and whether it ended. Asynchronous tools wait here for "the next stop or
 * end after this moment" — every event gets a sequence number, so a stop that arrives before the
 * waiter is registered (a fast step, a stop on entry) is never missed. A wait can be interrupted
 * (another request stopped the session, the server is shutting down) or cancelled by the client.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ENDED_EVENT, endedEventBodySchema } from '../adapter/endedEvent';
import { WARNING_EVENT, warningEventBodySchema } from '../adapter/warningEvent';
import { DebugChannel, DebugSessionPort, Disposable } from './channel';
import { OutputLog } from './outputLog';

export type SessionState =
  'Idle' | 'Starting' | 'Running' | 'Stopped' | 'Terminating' | 'Terminated';

export interface StopRecord {
  readonly seq: number;
  readonly at: Date;
  readonly body: DebugProtocol.StoppedEvent['body'];
}

interface Tracked {
  readonly session: DebugSessionPort;
  state: SessionState;
  lastStop?: StopRecord;
  /** Sequence number of the session's end, once it ended. */
  endedSeq?: number;
  exitCode?: number;
  /** Why it ended, when the adapter said (our adapter's `luapandaEnded`). */
  endReason?: string;
  /** The catalogue code of the error that ended it, if one did. */
  endError?: string;
  /** Long operations the adapter reports (DAP progress), by progress id: what it is busy with. */
  readonly progress: Map<string, string>;
}

export interface EndInfo {
  readonly exitCode?: number;
  readonly reason?: string;
  /** Set when an error ended the session (its code), rather than the program's end or a stop. */
  readonly error?: string;
}

/** A stop or an end says whose it is: a wait on an attach session's games takes any game's. */
export type WaitOutcome =
  | { readonly kind: 'stopped'; readonly stop: StopRecord; readonly session?: DebugSessionPort }
  | ({ readonly kind: 'ended'; readonly session?: DebugSessionPort } & EndInfo)
  | { readonly kind: 'timeout' }
  | { readonly kind: 'interrupted'; readonly reason: string }
  | { readonly kind: 'cancelled' };

interface Waiter {
  readonly sessionId: string;
  /** With `games`: the session itself or one of its games' sessions (their `parentId`). */
  readonly matches: (session: DebugSessionPort) => boolean;
  readonly afterSeq: number;
  readonly settle: (outcome: WaitOutcome) => void;
}

export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Also the first stop or end of a game session under it (an attach session hands each game to
   * a session of its own); the outcome says whose it is.
   */
  games?: boolean;
}

/** Warnings kept per session until a result carries them; older ones are counted, not kept. */
export const MAX_WARNINGS = 20;

export class SessionMonitor implements Disposable {
  readonly output = new OutputLog();
  private seq = 0;
  private readonly tracked = new Map<string, Tracked>();
  /** Per session: what the adapter warned of (`luapandaWarning`) since a result last said it. */
  private readonly warnings = new Map<string, { texts: string[]; dropped: number }>();
  private readonly waiters = new Set<Waiter>();
  /** Who hears `waiting` change (the extension's status bar: no polling). */
  private readonly waitingListeners = new Set<(waiting: number) => void>();
  private readonly subscriptions: Disposable[];
  /** Sessions being started by a tool call, keyed by configuration name (before an id exists). */
  private starting = 0;
  private lastSessionId: string | undefined;

  constructor(private readonly channel: DebugChannel) {
    this.subscriptions = [
      channel.onSessionStarted((session) => this.onStarted(session)),
      channel.onEvent((session, event) => this.onEvent(session, event)),
      channel.onSessionEnded((session) => this.onEnded(session)),
    ];
    for (const session of channel.sessions()) this.onStarted(session);
  }

  /** The current sequence number: "now", for a later `waitForStopOrEnd`. */
  mark(): number {
    return this.seq;
  }

  /** Marks that a tool is starting a session, so the state reads `Starting` meanwhile. */
  beginStarting(): Disposable {
    this.starting++;
    return { dispose: () => void this.starting-- };
  }

  state(sessionId?: string): SessionState {
    const tracked = sessionId ? this.tracked.get(sessionId) : this.current();
    if (tracked) return tracked.state;
    if (this.starting > 0) return 'Starting';
    if (sessionId === undefined && this.lastSessionId) {
      return this.tracked.get(this.lastSessionId)?.state ?? 'Terminated';
    }
    return 'Idle';
  }

  /** What the session's adapter reports it is busy with (an attach wait, …), if anything. */
  busyWith(sessionId: string): string | undefined {
    const progress = this.tracked.get(sessionId)?.progress;
    return progress && progress.size > 0 ? [...progress.values()].join('; ') : undefined;
  }

  /**
   * The warnings of `sessionId` not yet given to the agent, oldest first (a breakpoint whose
   * condition failed, one that binds nowhere…); each is given once.
   */
  takeWarnings(sessionId: string): string[] {
    const pending = this.warnings.get(sessionId);
    if (!pending) return [];
    this.warnings.delete(sessionId);
    const texts = [...pending.texts];
    if (pending.dropped > 0) texts.unshift(`(${pending.dropped} earlier warning(s) left out)`);
    return texts;
  }

  lastStop(sessionId: string): StopRecord | undefined {
    const tracked = this.tracked.get(sessionId);
    return tracked?.state === 'Stopped' ? tracked.lastStop : undefined;
  }

  /** Notes that a session was told to end, so its state reads `Terminating` until it has. */
  markTerminating(sessionId: string): void {
    const tracked = this.tracked.get(sessionId);
    if (tracked && tracked.state !== 'Terminated') tracked.state = 'Terminating';
  }

  /**
   * Notes that a resume request sent after `mark` was accepted (some adapters send no
   * `continued` event). A stop or end that already arrived after `mark` — it can come before the
   * request's response — wins.
   */
  markRunning(sessionId: string, mark: number): void {
    const tracked = this.tracked.get(sessionId);
    if (!tracked || tracked.state === 'Terminated' || tracked.state === 'Terminating') return;
    if (tracked.lastStop && tracked.lastStop.seq > mark) return;
    tracked.state = 'Running';
  }

  /**
   * Resolves with the first stop or end of `sessionId` after sequence `afterSeq` — at once if it
   * already happened — or with timeout, interruption or cancellation.
   */
  waitForStopOrEnd(
    sessionId: string,
    afterSeq: number,
    options: WaitOptions,
  ): Promise<WaitOutcome> {
    const matches = options.games
      ? (s: DebugSessionPort) => s.id === sessionId || s.parentId === sessionId
      : (s: DebugSessionPort) => s.id === sessionId;
    const ready = this.firstOutcome(matches, afterSeq);
    if (ready) return Promise.resolve(ready);
    if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
        resolve(outcome);
        this.waitingChanged();
      };
      const waiter: Waiter = { sessionId, matches, afterSeq, settle: finish };
      const onAbort = () => finish({ kind: 'cancelled' });
      const timer = setTimeout(() => finish({ kind: 'timeout' }), options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort);
      this.waiters.add(waiter);
      this.waitingChanged();
    });
  }

  /** Ends every wait on `sessionId` (every wait, without one) with `interrupted`. */
  interrupt(reason: string, sessionId?: string): number {
    let count = 0;
    for (const waiter of [...this.waiters]) {
      if (sessionId === undefined || waiter.sessionId === sessionId) {
        waiter.settle({ kind: 'interrupted', reason });
        count++;
      }
    }
    return count;
  }

  /** How many tool calls are waiting on the debugger right now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** Calls `listener` with the new count each time a tool call starts or stops waiting. */
  onDidChangeWaiting(listener: (waiting: number) => void): Disposable {
    this.waitingListeners.add(listener);
    return { dispose: () => void this.waitingListeners.delete(listener) };
  }

  dispose(): void {
    this.interrupt('The MCP server is shutting down.');
    this.waitingListeners.clear();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private waitingChanged(): void {
    const waiting = this.waiters.size;
    for (const listener of [...this.waitingListeners]) {
      // A listener's failure must not break the wait it reports on (this runs inside its settle).
      try {
        listener(waiting);
      } catch {
        // The listener's own bug; the waits go on.
      }
    }
  }

  private current(): Tracked | undefined {
    const active = this.channel.activeSession();
    if (active) return this.tracked.get(active.id);
    return undefined;
  }

  /** The earliest stop or end after `afterSeq` among the sessions that `matches` takes. */
  private firstOutcome(
    matches: (session: DebugSessionPort) => boolean,
    afterSeq: number,
  ): WaitOutcome | undefined {
    let first: { seq: number; outcome: WaitOutcome } | undefined;
    for (const tracked of this.tracked.values()) {
      if (!matches(tracked.session)) continue;
      const found = this.outcomeAfter(tracked, afterSeq);
      if (found && (!first || found.seq < first.seq)) first = found;
    }
    return first?.outcome;
  }

  private outcomeAfter(
    tracked: Tracked,
    afterSeq: number,
  ): { seq: number; outcome: WaitOutcome } | undefined {
    const { session } = tracked;
    if (tracked.lastStop && tracked.lastStop.seq > afterSeq && tracked.state === 'Stopped') {
      return {
        seq: tracked.lastStop.seq,
        outcome: { kind: 'stopped', stop: tracked.lastStop, session },
      };
    }
    if (tracked.endedSeq !== undefined && tracked.endedSeq > afterSeq) {
      return {
        seq: tracked.endedSeq,
        outcome: {
          kind: 'ended',
          session,
          exitCode: tracked.exitCode,
          reason: tracked.endReason,
          error: tracked.endError,
        },
      };
    }
    return undefined;
  }

  private onStarted(session: DebugSessionPort): void {
    if (this.tracked.has(session.id)) return;
    this.seq++;
    this.tracked.set(session.id, { session, state: 'Running', progress: new Map() });
    this.lastSessionId = session.id;
  }

  private onEvent(session: DebugSessionPort, event: DebugProtocol.Event): void {
    this.seq++;
    const tracked = this.tracked.get(session.id);
    switch (event.event) {
      case 'stopped': {
        if (!tracked) return;
        const body = (event as DebugProtocol.StoppedEvent).body;
        tracked.state = 'Stopped';
        tracked.lastStop = { seq: this.seq, at: new Date(), body };
        this.wake(session.id);
        return;
      }
      case 'continued':
        if (tracked && tracked.state !== 'Terminating') tracked.state = 'Running';
        return;
      case 'exited':
        if (tracked) tracked.exitCode = (event as DebugProtocol.ExitedEvent).body.exitCode;
        return;
      case ENDED_EVENT: {
        const parsed = endedEventBodySchema.safeParse(event.body);
        if (tracked && parsed.success) {
          tracked.endReason = parsed.data.reason;
          tracked.endError = parsed.data.error?.code;
        }
        return;
      }
      case WARNING_EVENT: {
        // Kept even before the session is tracked: a breakpoint checked at the start warns then.
        const parsed = warningEventBodySchema.safeParse(event.body);
        if (parsed.success) this.addWarning(session.id, parsed.data.text);
        return;
      }
      case 'progressStart': {
        const body = (event as DebugProtocol.ProgressStartEvent).body;
        tracked?.progress.set(
          body.progressId,
          [body.title, body.message].filter(Boolean).join(': '),
        );
        return;
      }
      case 'progressUpdate': {
        // The wait goes on with news (the attach wait's hint): it replaces the detail.
        const body = (event as DebugProtocol.ProgressUpdateEvent).body;
        const started = tracked?.progress.get(body.progressId);
        if (started !== undefined && body.message) {
          const title = started.split(': ')[0];
          tracked?.progress.set(body.progressId, `${title}: ${body.message}`);
        }
        return;
      }
      case 'progressEnd':
        tracked?.progress.delete((event as DebugProtocol.ProgressEndEvent).body.progressId);
        return;
      case 'terminated':
        this.output.endSession(session.id);
        this.markEnded(session.id);
        return;
      case 'output': {
        const body = (event as DebugProtocol.OutputEvent).body;
        if (body.category !== 'telemetry') {
          this.output.append(session.id, body.category ?? 'console', body.output);
        }
        return;
      }
    }
  }

  private addWarning(sessionId: string, text: string): void {
    const pending = this.warnings.get(sessionId) ?? { texts: [], dropped: 0 };
    this.warnings.set(sessionId, pending);
    if (pending.texts.includes(text)) return;
    pending.texts.push(text);
    if (pending.texts.length > MAX_WARNINGS) {
      pending.texts.shift();
      pending.dropped++;
    }
  }

  private onEnded(session: DebugSessionPort): void {
    this.seq++;
    this.markEnded(session.id);
  }

  private markEnded(sessionId: string): void {
    const tracked = this.tracked.get(sessionId);
    if (!tracked || tracked.endedSeq !== undefined) return;
    tracked.state = 'Terminated';
    tracked.progress.clear();
    tracked.endedSeq = this.seq;
    this.wake(sessionId);
  }

  private wake(sessionId: string): void {
    const tracked = this.tracked.get(sessionId);
    if (!tracked) return;
    for (const waiter of [...this.waiters]) {
      if (!waiter.matches(tracked.session)) continue;
      const outcome = this.firstOutcome(waiter.matches, waiter.afterSeq);
      if (outcome) waiter.settle(outcome);
    }
  }
}
