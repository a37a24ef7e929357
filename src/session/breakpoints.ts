/**
 * The breakpoint set of a session: per file, with ids that stay the same for the life of a
 * breakpoint (re-sending a file's list keeps the id of a breakpoint whose line is unchanged),
 * a verified flag and a message saying why a breakpoint is not verified. It also builds the
 * `setBreakPoint` list for the wire and reads the runtime's per-breakpoint verdicts.
 */
import type { WireBreakpoint } from '../protocol';
import { parseHitCondition } from './hitCondition';
import { baseName, comparable } from './paths';

export interface BreakpointSpec {
  readonly line: number;
  readonly column?: number;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface Breakpoint extends BreakpointSpec {
  readonly id: number;
  /** The workspace file, as the client named it. */
  readonly path: string;
  readonly verified: boolean;
  /** Why the breakpoint is not verified (or a note about it). */
  readonly message?: string;
}

interface MutableBreakpoint extends Breakpoint {
  verified: boolean;
  message?: string;
  /** Set when the breakpoint can never be sent as it is (a hit condition that does not parse). */
  invalid?: string;
  wireHitCondition?: string;
}

export const NOT_CONNECTED_MESSAGE =
  'Not bound yet: it is sent to the Lua program when one is connected.';

export class BreakpointStore {
  private nextId = 1;
  private readonly files = new Map<string, { path: string; list: MutableBreakpoint[] }>();

  constructor(private readonly caseSensitive: boolean) {}

  /** Replaces the breakpoints of `path`; returns the new list (ids kept where lines match). */
  setFile(path: string, specs: readonly BreakpointSpec[]): Breakpoint[] {
    const key = comparable(path, this.caseSensitive);
    const previous = this.files.get(key)?.list ?? [];
    const unused = [...previous];
    const list = specs.map((spec): MutableBreakpoint => {
      const reuse = unused.findIndex((bp) => bp.line === spec.line);
      const id = reuse >= 0 ? unused.splice(reuse, 1)[0].id : this.nextId++;
      const bp: MutableBreakpoint = {
        ...spec,
        id,
        path,
        verified: false,
        message: NOT_CONNECTED_MESSAGE,
      };
      if (spec.hitCondition !== undefined && spec.hitCondition.trim() !== '') {
        const parsed = parseHitCondition(spec.hitCondition);
        if (parsed.ok) bp.wireHitCondition = parsed.wire;
        else bp.invalid = bp.message = parsed.message;
      }
      return bp;
    });
    if (list.length === 0) this.files.delete(key);
    else this.files.set(key, { path, list });
    return list.map(snapshot);
  }

  /** Every breakpoint, file by file. */
  all(): Breakpoint[] {
    return [...this.files.values()].flatMap((f) => f.list.map(snapshot));
  }

  /** The files that hold breakpoints. */
  paths(): string[] {
    return [...this.files.values()].map((f) => f.path);
  }

  forFile(path: string): Breakpoint[] {
    return (this.files.get(comparable(path, this.caseSensitive))?.list ?? []).map(snapshot);
  }

  /** The `bks` list for `setBreakPoint`; breakpoints that cannot be sent are left out. */
  wireList(path: string, supportsHitCondition: boolean): WireBreakpoint[] {
    const list = this.files.get(comparable(path, this.caseSensitive))?.list ?? [];
    return this.sendable(list, supportsHitCondition).map((bp) => {
      const wire: WireBreakpoint = { verified: true, type: 2, line: bp.line };
      if (bp.logMessage !== undefined && bp.logMessage !== '') {
        wire.type = 1;
        wire.logMessage = bp.logMessage;
      } else if (bp.condition !== undefined && bp.condition.trim() !== '') {
        wire.type = 0;
        wire.condition = bp.condition;
      }
      if (bp.wireHitCondition !== undefined) wire.hitCondition = bp.wireHitCondition;
      return wire;
    });
  }

  /**
   * Records the runtime's answer for `path` (results in `wireList` order, or none from upstream,
   * which means every sent breakpoint is accepted). Returns the breakpoints whose state changed.
   */
  applyResults(
    path: string,
    supportsHitCondition: boolean,
    results: readonly { verified: boolean; message?: string }[] | undefined,
  ): Breakpoint[] {
    const list = this.files.get(comparable(path, this.caseSensitive))?.list ?? [];
    const sent = this.sendable(list, supportsHitCondition);
    const changed: Breakpoint[] = [];
    for (const bp of list) {
      const index = sent.indexOf(bp);
      let verified = false;
      let message: string | undefined = bp.invalid;
      if (index < 0 && !bp.invalid) {
        message = 'This Lua runtime does not support hit conditions (upstream LuaPanda).';
      } else if (index >= 0) {
        const result = results?.[index];
        verified = result ? result.verified : true;
        message = verified ? undefined : (result?.message ?? 'The Lua side rejected it.');
      }
      if (bp.verified !== verified || bp.message !== message) {
        bp.verified = verified;
        bp.message = message;
        changed.push(snapshot(bp));
      }
    }
    return changed;
  }

  /** Marks every breakpoint unverified (no program connected); returns those that changed. */
  markUnbound(message = NOT_CONNECTED_MESSAGE): Breakpoint[] {
    const changed: Breakpoint[] = [];
    for (const { list } of this.files.values()) {
      for (const bp of list) {
        const next = bp.invalid ?? message;
        if (bp.verified || bp.message !== next) {
          bp.verified = false;
          bp.message = next;
          changed.push(snapshot(bp));
        }
      }
    }
    return changed;
  }

  /** Ids of the breakpoints of `path` on `lines`. */
  idsAt(path: string, lines: readonly number[]): number[] {
    const list = this.files.get(comparable(path, this.caseSensitive))?.list ?? [];
    return list.filter((bp) => lines.includes(bp.line)).map((bp) => bp.id);
  }

  /**
   * Whether a stop at `path:line` can only be a breakpoint of another file with the same name
   * (the Lua side matches by file name in autoPathMode): none here, one there.
   */
  isSameNameMismatch(path: string, line: number): boolean {
    if (this.idsAt(path, [line]).length > 0) return false;
    const name = comparable(baseName(path), this.caseSensitive);
    return [...this.files.values()].some(
      (f) =>
        comparable(baseName(f.path), this.caseSensitive) === name &&
        f.list.some((bp) => bp.line === line),
    );
  }

  private sendable(list: MutableBreakpoint[], supportsHitCondition: boolean): MutableBreakpoint[] {
    return list.filter(
      (bp) => !bp.invalid && (bp.wireHitCondition === undefined || supportsHitCondition),
    );
  }
}

function snapshot(bp: MutableBreakpoint): Breakpoint {
  const copy: MutableBreakpoint = { ...bp };
  delete copy.invalid;
  delete copy.wireHitCondition;
  return copy;
}
