/**
 * Breakpoints of the headless host: they exist before, between and after sessions, keep their
 * ids for life, and are sent to every live session whenever a file's list changes (DAP's
 * setBreakpoints replaces a file's whole list). Each session's answer sets `verified` and the
 * reason when not, and tells which adapter id stands for which of ours.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  BreakpointPrecheck,
  PrecheckedBreakpoint,
} from '../../session/breakpoints/breakpointPrecheck';
import {
  BreakpointInfo,
  BreakpointService,
  BreakpointSpec,
  FunctionBreakpointInfo,
  FunctionBreakpointSpec,
} from '../channel';
import { FunctionEntry, functionAnswer, functionInfo } from './headlessFunctions';

/** What the store needs of a live session to push breakpoints to it. */
export interface BreakpointTarget {
  readonly id: string;
  /** Resolves with the answer and its `seq` among the adapter's messages (events included). */
  request(
    command: 'setBreakpoints' | 'setFunctionBreakpoints',
    args: DebugProtocol.SetBreakpointsArguments | DebugProtocol.SetFunctionBreakpointsArguments,
  ): Promise<{ body: unknown; seq: number }>;
}

interface Entry {
  spec: BreakpointSpec;
  verified: boolean;
  message?: string;
  /** The line a session bound it on. */
  line?: number;
  /** What the checks of a Lua file said before any session answered. */
  precheck?: PrecheckedBreakpoint;
  /**
   * The `seq` of the adapter message that last set its state, and whose adapter it was: an older
   * answer of the same adapter does not undo it (each adapter numbers its own messages).
   */
  seq?: number;
  seqFrom?: string;
}

interface AdapterEvent {
  readonly body: DebugProtocol.BreakpointEvent['body'];
  readonly seq: number;
}

export class HeadlessBreakpoints implements BreakpointService {
  private nextId = 1;
  private readonly entries = new Map<number, Entry>();
  private readonly functions = new Map<number, FunctionEntry>();
  private readonly precheck = new BreakpointPrecheck();
  private readonly targets = new Map<string, BreakpointTarget>();
  /** session id → adapter breakpoint id → our id */
  private readonly adapterIds = new Map<string, Map<number, number>>();
  /**
   * session id → adapter breakpoint id → the latest event about a breakpoint whose answer (which
   * says whose id it is) the caller has not read yet: events arrive at once, answers a bit later.
   */
  private readonly early = new Map<string, Map<number, AdapterEvent>>();

  list(): BreakpointInfo[] {
    return [...this.entries].map(([id, entry]) => this.info(id, entry));
  }

  async add(spec: BreakpointSpec): Promise<BreakpointInfo> {
    const id = this.nextId++;
    const precheck = await this.precheck.check(spec.filePath, spec.line, spec);
    const entry: Entry = {
      spec,
      verified: false,
      precheck,
      message:
        this.targets.size === 0
          ? (precheck?.message ?? 'No debug session yet; the breakpoint is set when one starts.')
          : undefined,
      line: this.targets.size === 0 ? precheck?.line : undefined,
    };
    this.entries.set(id, entry);
    await this.syncFile(spec.filePath);
    return this.info(id, entry);
  }

  listFunctions(): FunctionBreakpointInfo[] {
    return [...this.functions].map(([id, entry]) => functionInfo(id, entry));
  }

  async addFunction(spec: FunctionBreakpointSpec): Promise<FunctionBreakpointInfo> {
    const id = this.nextId++;
    const entry: FunctionEntry = {
      spec,
      verified: false,
      message:
        this.targets.size === 0
          ? 'No debug session yet; the breakpoint is set when one starts.'
          : undefined,
    };
    this.functions.set(id, entry);
    await this.syncFunctions();
    return functionInfo(id, entry);
  }

  async remove(ids: readonly number[]): Promise<void> {
    const files = new Set<string>();
    const functionsBefore = this.functions.size;
    for (const id of ids) this.functions.delete(id);
    if (this.functions.size !== functionsBefore) await this.syncFunctions();
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      files.add(entry.spec.filePath);
      this.entries.delete(id);
    }
    await Promise.all([...files].map((file) => this.syncFile(file)));
  }

  idForAdapterBreakpoint(sessionId: string, adapterId: number): number | undefined {
    return this.adapterIds.get(sessionId)?.get(adapterId);
  }

  /** A session started: send it every file's breakpoints. */
  async attach(target: BreakpointTarget): Promise<void> {
    this.targets.set(target.id, target);
    this.adapterIds.set(target.id, new Map());
    const files = new Set([...this.entries.values()].map((e) => e.spec.filePath));
    await Promise.all([...files].map((file) => this.syncFile(file, [target])));
    if (this.functions.size > 0) await this.syncFunctions([target]);
  }

  detach(sessionId: string): void {
    this.targets.delete(sessionId);
    this.adapterIds.delete(sessionId);
    this.early.delete(sessionId);
  }

  /** A `breakpoint` event from a session's adapter (verified state changed, or moved). */
  onAdapterEvent(
    sessionId: string,
    body: DebugProtocol.BreakpointEvent['body'],
    seq: number,
  ): void {
    const adapterId = body.breakpoint.id;
    if (adapterId === undefined || body.reason === 'removed') return;
    const ours = this.idForAdapterBreakpoint(sessionId, adapterId);
    if (ours === undefined) {
      if (!this.early.has(sessionId)) this.early.set(sessionId, new Map());
      this.early.get(sessionId)?.set(adapterId, { body, seq });
      return;
    }
    const entry = this.entries.get(ours) ?? this.functions.get(ours);
    if (entry) applyEvent(entry, { body, seq }, sessionId);
  }

  /** Sends every function breakpoint (DAP replaces the whole list) to `targets`. */
  private async syncFunctions(targets = [...this.targets.values()]): Promise<void> {
    const mine = [...this.functions];
    const args: DebugProtocol.SetFunctionBreakpointsArguments = {
      breakpoints: mine.map(([, { spec }]) => ({
        name: spec.functionName,
        condition: spec.condition,
        hitCondition: spec.hitCondition,
        // (Not in DAP's FunctionBreakpoint; our adapter reads it as for source breakpoints.)
        ...(spec.logMessage ? { logMessage: spec.logMessage } : {}),
      })),
    };
    await Promise.all(
      targets.map(async (target) => {
        let answer: { body: unknown; seq: number };
        try {
          answer = await target.request('setFunctionBreakpoints', args);
        } catch (error) {
          for (const [, entry] of mine) {
            entry.verified = false;
            entry.message = `The debugger refused the breakpoint: ${(error as Error).message}`;
          }
          return;
        }
        const body = answer.body as
          DebugProtocol.SetFunctionBreakpointsResponse['body'] | undefined;
        this.applyAnswers(target.id, mine, body?.breakpoints ?? [], answer.seq, functionAnswer);
      }),
    );
  }

  /** A session's answers, in the order of `mine`: ids mapped, states set unless newer ones came. */
  private applyAnswers<E extends Entry | FunctionEntry>(
    sessionId: string,
    mine: readonly [number, E][],
    answers: readonly DebugProtocol.Breakpoint[],
    seq: number,
    apply: (entry: E, answer: DebugProtocol.Breakpoint) => void,
  ): void {
    const ids = this.adapterIds.get(sessionId);
    const early = this.early.get(sessionId);
    answers.forEach((answer, i) => {
      const pair = mine[i];
      if (!pair) return;
      const [id, entry] = pair;
      if (answer.id !== undefined) {
        ids?.set(answer.id, id);
        const event = early?.get(answer.id);
        early?.delete(answer.id);
        if (event && event.seq > seq) {
          applyEvent(entry, event, sessionId);
          return;
        }
      }
      // A breakpoint event the adapter sent after this answer was already applied.
      if (newerThan(entry, sessionId, seq)) return;
      entry.seq = seq;
      entry.seqFrom = sessionId;
      apply(entry, answer);
    });
  }

  private async syncFile(filePath: string, targets = [...this.targets.values()]): Promise<void> {
    const inFile = [...this.entries].filter(([, entry]) => entry.spec.filePath === filePath);
    const args: DebugProtocol.SetBreakpointsArguments = {
      source: { path: filePath },
      breakpoints: inFile.map(([, { spec }]) => ({
        line: spec.line,
        column: spec.column,
        condition: spec.condition,
        hitCondition: spec.hitCondition,
        logMessage: spec.logMessage,
      })),
      lines: inFile.map(([, { spec }]) => spec.line),
    };
    await Promise.all(
      targets.map(async (target) => {
        let body: DebugProtocol.SetBreakpointsResponse['body'] | undefined;
        let seq: number;
        try {
          const answer = await target.request('setBreakpoints', args);
          body = answer.body as DebugProtocol.SetBreakpointsResponse['body'];
          seq = answer.seq;
        } catch (error) {
          for (const [, entry] of inFile) {
            entry.verified = false;
            entry.message = `The debugger refused the breakpoint: ${(error as Error).message}`;
          }
          return;
        }
        this.applyAnswers(target.id, inFile, body?.breakpoints ?? [], seq, lineAnswer);
      }),
    );
  }

  private info(id: number, entry: Entry): BreakpointInfo {
    const bound = entry.line !== undefined && entry.line !== entry.spec.line;
    return {
      ...entry.spec,
      id,
      verified: entry.verified,
      message: entry.message,
      ...(bound ? { boundLine: entry.line } : {}),
    };
  }
}

function lineAnswer(entry: Entry, answer: DebugProtocol.Breakpoint): void {
  entry.verified = answer.verified;
  // A verified answer's message says where it moved from.
  entry.message = answer.verified
    ? answer.message
    : (answer.message ?? 'The debugger could not bind the breakpoint.');
  entry.line = answer.line;
}

/** The entry holds a state that `sessionId`'s adapter sent after its message `seq`. */
function newerThan(entry: Entry | FunctionEntry, sessionId: string, seq: number): boolean {
  return entry.seq !== undefined && entry.seqFrom === sessionId && entry.seq > seq;
}

/** A breakpoint event of the adapter, unless the entry already holds a newer state. */
function applyEvent(entry: Entry | FunctionEntry, event: AdapterEvent, sessionId: string): void {
  if (newerThan(entry, sessionId, event.seq)) return;
  entry.seqFrom = sessionId;
  const { breakpoint } = event.body;
  entry.verified = breakpoint.verified;
  entry.message = breakpoint.message;
  entry.line = breakpoint.line ?? entry.line;
  entry.seq = event.seq;
  if ('functionName' in entry.spec) {
    (entry as FunctionEntry).filePath =
      breakpoint.source?.path ?? (entry as FunctionEntry).filePath;
  }
}
