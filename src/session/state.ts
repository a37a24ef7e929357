/**
 * The session state machine: `Idle → Starting → Running ⇄ Stopped → Terminating → Terminated`.
 * The table below is the only place that says which transitions exist; `StateMachine` enforces
 * it and reports every change to one listener (the session turns that into an event).
 */
import { SessionError } from './errors';

export type SessionState =
  'Idle' | 'Starting' | 'Running' | 'Stopped' | 'Terminating' | 'Terminated';

const TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = {
  Idle: ['Starting', 'Terminated'],
  // Starting → Stopped: stop on entry, or a breakpoint on the first lines.
  Starting: ['Running', 'Stopped', 'Terminating', 'Terminated'],
  // Running/Stopped → Starting: the link dropped and the session waits for the game to come back.
  Running: ['Stopped', 'Starting', 'Terminating', 'Terminated'],
  Stopped: ['Running', 'Starting', 'Terminating', 'Terminated'],
  Terminating: ['Terminated'],
  Terminated: [],
};

export interface StateChange {
  readonly from: SessionState;
  readonly to: SessionState;
  readonly reason: string;
}

export function canTransition(from: SessionState, to: SessionState): boolean {
  return TRANSITIONS[from].includes(to);
}

export class StateMachine {
  private current: SessionState = 'Idle';

  constructor(private readonly onChange: (change: StateChange) => void) {}

  get state(): SessionState {
    return this.current;
  }

  is(...states: SessionState[]): boolean {
    return states.includes(this.current);
  }

  /** Moves to `to`; throws `invalid-state` for a transition the table does not allow. */
  transition(to: SessionState, reason: string): void {
    const from = this.current;
    if (!canTransition(from, to)) {
      throw new SessionError(
        'invalid-state',
        `A session cannot go from ${from} to ${to} (${reason}).`,
      );
    }
    this.current = to;
    this.onChange({ from, to, reason });
  }
}
