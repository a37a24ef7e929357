/**
 * The current stop and every handle into it (frames, scopes, values). They live exactly as long
 * as the program stays stopped, so they are forgotten together, in one place: when the program
 * moves on, when a new stop replaces the old one, and when the session ends.
 */
import { ChangeMemory } from './changeMemory';
import { functionKey } from './changeMarks';
import { HandleTable } from './handles';
import type { Frame, StopInfo } from '../types';
import { VariableStore } from './variables';

export class StopState {
  readonly frames = new HandleTable<Frame>();
  readonly variables = new VariableStore();
  /** Outlives the stops: what the values were at the last stop in each function. */
  readonly changes = new ChangeMemory();
  private stop: StopInfo | undefined;

  /** The stop the program is in, if any (the session checks its state before showing it). */
  get current(): StopInfo | undefined {
    return this.stop;
  }

  /** The program moved or the session ended: the stop and its handles mean nothing any more. */
  invalidate(): void {
    this.variables.invalidate();
    this.frames.invalidate();
    this.stop = undefined;
  }

  /** A new stop: the old handles are forgotten before `build` hands out the new ones. */
  replace(build: (frames: HandleTable<Frame>) => StopInfo): StopInfo {
    this.invalidate();
    this.stop = build(this.frames);
    this.changes.beginStop(functionKey(this.stop.frames[0]));
    return this.stop;
  }
}
