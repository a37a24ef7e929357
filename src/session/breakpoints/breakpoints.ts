/**
 * The breakpoint set of a session: per file, with ids that stay the same for the life of a
 * breakpoint (re-sending a file's list keeps the id of a breakpoint whose line is unchanged).
 * It checks each breakpoint when it is set (condition, hit condition, log message), binds it to
 * a line with code (lines/breakpointLines.ts), builds the `setBreakPoint` list for the wire, and
 * reads what the runtime says back: per-breakpoint verdicts, whether the file is loaded, where a
 * breakpoint bound, a condition that failed. How that looks to the user is breakpointView.ts.
 */
import type { WireBreakpoint } from '../../protocol';
import { checkBreakpoint } from './breakpointChecks';
import { BreakpointFacts, NO_HIT_CONDITIONS_MESSAGE, lookOf, sentLine } from './breakpointView';
import { parseHitCondition } from './hitCondition';
import type { LuaDialect } from '../lines/luaDialect';
import { baseName, comparable } from '../paths';
import { SourceInfo, bindingIn } from '../lines/sourceFiles';

export { NOT_CONNECTED_MESSAGE, NOT_LOADED_MESSAGE } from './breakpointView';

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
  /** Where it is: the line asked for, or the line with code it moved to. */
  readonly line: number;
  /** The line the client asked for. */
  readonly requestedLine: number;
  readonly verified: boolean;
  /** Why the breakpoint is not verified (or a note about it: where it moved from). */
  readonly message?: string;
}

interface Entry {
  readonly id: number;
  readonly spec: BreakpointSpec;
  facts: BreakpointFacts;
  readonly wireHitCondition?: string;
  /** Its place in the last list sent, or -1 when it was left out. */
  sentIndex: number;
  /** What the user saw last (to tell what changed). */
  shown?: string;
}

interface FileState {
  readonly path: string;
  entries: Entry[];
  source?: SourceInfo;
  loaded?: boolean;
}

export class BreakpointStore {
  private nextId = 1;
  private readonly files = new Map<string, FileState>();
  private connected = false;
  private dialect: LuaDialect | undefined;
  private warnings: string[] = [];

  constructor(private readonly caseSensitive: boolean) {}

  /** A fresh id from the sequence every breakpoint of the session (function ones too) shares. */
  allocateId(): number {
    return this.nextId++;
  }

  /**
   * Replaces the breakpoints of `path`; returns the new list (ids kept where lines match).
   * `source` is the file's analysis; without it, lines are used as they are.
   */
  setFile(path: string, specs: readonly BreakpointSpec[], source?: SourceInfo): Breakpoint[] {
    const key = comparable(path, this.caseSensitive);
    const previous = this.files.get(key);
    const unused = [...(previous?.entries ?? [])];
    const file: FileState = { path, entries: [], source, loaded: previous?.loaded };
    file.entries = specs.map((spec) => {
      // The client may send the requested line or the one it was moved to.
      let reuse = unused.findIndex((e) => e.spec.line === spec.line);
      if (reuse < 0) reuse = unused.findIndex((e) => this.view(e, file).line === spec.line);
      const old = reuse >= 0 ? unused.splice(reuse, 1)[0] : undefined;
      const invalid = checkBreakpoint(spec);
      const hit = nonEmpty(spec.hitCondition) ? parseHitCondition(spec.hitCondition) : undefined;
      const entry: Entry = {
        id: old?.id ?? this.nextId++,
        spec,
        facts: { requested: spec.line, invalid, binding: this.bind(source, spec.line) },
        wireHitCondition: hit?.ok ? hit.wire : undefined,
        sentIndex: -1,
        shown: old?.shown,
      };
      if (invalid && old?.facts.invalid !== invalid) this.warn(entry, path, invalid);
      return entry;
    });
    if (file.entries.length === 0) this.files.delete(key);
    else this.files.set(key, file);
    return file.entries.map((e) => this.snapshot(e, file));
  }

  /** The runtime's Lua dialect, once a runtime said its version. */
  get luaDialect(): LuaDialect | undefined {
    return this.dialect;
  }

  /** The runtime's Lua dialect is known (or not): re-binds every breakpoint; returns changes. */
  setDialect(dialect: LuaDialect | undefined): Breakpoint[] {
    this.dialect = dialect;
    return this.update((entry, file) => {
      entry.facts = { ...entry.facts, binding: this.bind(file.source, entry.spec.line) };
    });
  }

  /** Every breakpoint, file by file. */
  all(): Breakpoint[] {
    return [...this.files.values()].flatMap((f) => f.entries.map((e) => this.view(e, f)));
  }

  /** The files that hold breakpoints. */
  paths(): string[] {
    return [...this.files.values()].map((f) => f.path);
  }

  forFile(path: string): Breakpoint[] {
    const file = this.file(path);
    return file ? file.entries.map((e) => this.snapshot(e, file)) : [];
  }

  /**
   * The `bks` list for `setBreakPoint`; breakpoints that cannot be sent are left out. With
   * `extended` (our runtime), each carries the line asked for and the function it binds in.
   */
  wireList(path: string, supportsHitCondition: boolean, extended = false): WireBreakpoint[] {
    const file = this.file(path);
    if (!file) return [];
    const sendable = file.entries.filter((e) => this.sendable(e, supportsHitCondition));
    for (const entry of file.entries) entry.sentIndex = sendable.indexOf(entry);
    return sendable.map((entry) => {
      const { spec, facts } = entry;
      const wire: WireBreakpoint = { verified: true, type: 2, line: sentLine(facts) };
      if (nonEmpty(spec.logMessage)) {
        wire.type = 1;
        wire.logMessage = spec.logMessage;
      } else if (nonEmpty(spec.condition)) {
        wire.type = 0;
        wire.condition = spec.condition;
      }
      if (entry.wireHitCondition !== undefined) wire.hitCondition = entry.wireHitCondition;
      if (extended && facts.binding?.kind === 'code') {
        wire.requested = spec.line;
        wire.fnFirst = facts.binding.target.first;
        wire.fnLast = facts.binding.target.last;
      }
      return wire;
    });
  }

  /**
   * Records the runtime's answer for `path` (results in `wireList` order, or none from upstream,
   * which means every sent breakpoint is accepted) and whether the file is loaded (undefined:
   * the runtime does not say). Returns the breakpoints whose state changed.
   */
  applyResults(
    path: string,
    supportsHitCondition: boolean,
    results: readonly { verified: boolean; message?: string }[] | undefined,
    loaded?: boolean,
  ): Breakpoint[] {
    this.connected = true;
    const file = this.file(path);
    if (!file) return [];
    file.loaded = loaded;
    const sent = file.entries.filter((e) => this.sendable(e, supportsHitCondition));
    return this.update((entry) => {
      const { facts } = entry;
      entry.sentIndex = sent.indexOf(entry);
      let runtime: BreakpointFacts['runtime'];
      if (entry.sentIndex >= 0) {
        const result = results?.[entry.sentIndex];
        runtime = result
          ? { verified: result.verified, message: result.message }
          : { verified: true };
        if (!runtime.verified && facts.runtime?.message !== runtime.message) {
          this.warn(entry, file.path, runtime.message ?? 'The Lua side rejected it.');
        }
      } else if (!facts.invalid && facts.binding?.kind !== 'none' && !supportsHitCondition) {
        runtime = { verified: false, message: NO_HIT_CONDITIONS_MESSAGE };
      }
      entry.facts = { ...facts, runtime, bound: undefined, conditionError: undefined };
    }, file);
  }

  /** The runtime did not confirm `path`'s breakpoints: they stay unverified, with the reason. */
  applyFailure(path: string, reason: string): Breakpoint[] {
    const file = this.file(path);
    if (!file) return [];
    return this.update((entry) => {
      const runtime = { verified: false, message: `The Lua side did not confirm it: ${reason}` };
      entry.facts = { ...entry.facts, runtime };
    }, file);
  }

  /**
   * `breakpointsBound`: `path` is loaded, and the breakpoints sent on `lines[i].line` bound on
   * `lines[i].bound` (0: nowhere). Returns the breakpoints whose state changed.
   */
  applyBound(
    path: string,
    lines: readonly { readonly line: number; readonly bound: number }[],
  ): Breakpoint[] {
    const file = this.file(path);
    if (!file) return [];
    file.loaded = true;
    return this.update((entry) => {
      if (entry.sentIndex < 0) return;
      const found = lines.find((l) => l.line === sentLine(entry.facts));
      if (!found) return;
      entry.facts = { ...entry.facts, bound: found.bound };
      if (found.bound === 0) {
        this.warn(entry, file.path, this.view(entry, file).message ?? 'It binds nowhere.');
      }
    }, file);
  }

  /**
   * The runtime said the condition `condition` of the breakpoint on (sent) line `line` failed:
   * it counts as false. Returns the breakpoints whose state changed.
   */
  conditionFailed(line: number, condition: string, error: string): Breakpoint[] {
    return this.update((entry, file) => {
      if (entry.sentIndex < 0 || sentLine(entry.facts) !== line) return;
      if (entry.spec.condition !== condition || nonEmpty(entry.spec.logMessage)) return;
      if (entry.facts.conditionError === error) return;
      entry.facts = { ...entry.facts, conditionError: error };
      this.warn(
        entry,
        file.path,
        `its condition \`${condition}\` failed: ${error}; it counts as false.`,
      );
    });
  }

  /** No program is connected any more: everything is unbound. Returns what changed. */
  markUnbound(): Breakpoint[] {
    this.connected = false;
    for (const file of this.files.values()) file.loaded = undefined;
    return this.update((entry) => {
      entry.facts = {
        ...entry.facts,
        runtime: undefined,
        bound: undefined,
        conditionError: undefined,
      };
    });
  }

  /** Problems found since the last call (said once each): a bad condition, a rejection… */
  takeWarnings(): string[] {
    const taken = this.warnings;
    this.warnings = [];
    return taken;
  }

  /** Ids of the breakpoints of `path` at `lines` (where they are, as stops report them). */
  idsAt(path: string, lines: readonly number[]): number[] {
    const file = this.file(path);
    if (!file) return [];
    return file.entries.filter((e) => lines.includes(this.view(e, file).line)).map((e) => e.id);
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
        f.entries.some((e) => this.view(e, f).line === line),
    );
  }

  private file(path: string): FileState | undefined {
    return this.files.get(comparable(path, this.caseSensitive));
  }

  private bind(source: SourceInfo | undefined, line: number): BreakpointFacts['binding'] {
    return source ? bindingIn(source, line, this.dialect) : undefined;
  }

  private sendable(entry: Entry, supportsHitCondition: boolean): boolean {
    if (entry.facts.invalid || entry.facts.binding?.kind === 'none') return false;
    return entry.wireHitCondition === undefined || supportsHitCondition;
  }

  /** Applies `change` to every entry (of `only`), returning the ones whose look changed. */
  private update(change: (entry: Entry, file: FileState) => void, only?: FileState): Breakpoint[] {
    const changed: Breakpoint[] = [];
    for (const file of only ? [only] : this.files.values()) {
      for (const entry of file.entries) {
        const before = entry.shown ?? JSON.stringify(this.view(entry, file));
        change(entry, file);
        const after = this.snapshot(entry, file);
        if (JSON.stringify(after) !== before) changed.push(after);
      }
    }
    return changed;
  }

  /** The breakpoint as the user sees it now, remembered as what was shown. */
  private snapshot(entry: Entry, file: FileState): Breakpoint {
    const view = this.view(entry, file);
    entry.shown = JSON.stringify(view);
    return view;
  }

  private view(entry: Entry, file: FileState): Breakpoint {
    const look = lookOf(entry.facts, { connected: this.connected, loaded: file.loaded });
    return {
      ...entry.spec,
      id: entry.id,
      path: file.path,
      line: look.line,
      requestedLine: entry.spec.line,
      verified: look.verified,
      ...(look.message !== undefined ? { message: look.message } : {}),
    };
  }

  private warn(entry: Entry, path: string, message: string): void {
    this.warnings.push(`Breakpoint at ${baseName(path)}:${entry.spec.line}: ${message}`);
  }
}

function nonEmpty(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== '';
}
