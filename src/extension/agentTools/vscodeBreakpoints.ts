/**
 * The MCP tools' breakpoints as VS Code breakpoints: an agent's breakpoint is added with
 * `vscode.debug.addBreakpoints`, so it shows in the editor gutter, and the human's breakpoints are
 * the agent's too. Each gets a number that stays its id while it exists. VS Code does not expose
 * whether a breakpoint is verified, so the debug adapter tracker feeds in every session's
 * setBreakpoints answers and breakpoint events: they give `verified`, the adapter's message, and
 * which adapter breakpoint id (in `hitBreakpointIds`) stands for which of ours.
 */
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as vscode from 'vscode';
import {
  BreakpointInfo,
  BreakpointService,
  BreakpointSpec,
  FunctionBreakpointInfo,
  FunctionBreakpointSpec,
} from '../../mcp/channel';
import {
  BreakpointPrecheck,
  PrecheckedBreakpoint,
} from '../../session/breakpoints/breakpointPrecheck';

interface Binding {
  verified: boolean;
  message?: string;
  /** Where the adapter bound it. */
  line?: number;
  /** The file it bound in (function breakpoints). */
  path?: string;
}

/** The waiters' key for a setFunctionBreakpoints answer (no file path can look like it). */
const FUNCTIONS = '\0functions';

export class VscodeBreakpoints implements BreakpointService, vscode.Disposable {
  private nextId = 1;
  /** VS Code's breakpoint id → ours. */
  private readonly ids = new Map<string, number>();
  /** our id → session id → what that session's adapter said. */
  private readonly bindings = new Map<number, Map<string, Binding>>();
  /** session id → adapter breakpoint id → our id. */
  private readonly adapterIds = new Map<string, Map<number, number>>();
  /** Resolvers waiting for a session's setBreakpoints answer on a file. */
  private readonly answerWaiters = new Set<{ file: string; resolve: () => void }>();
  private readonly subscription: vscode.Disposable;
  private readonly precheck = new BreakpointPrecheck();
  /** our id → what the checks of a Lua file said when the agent set it (before any answer). */
  private readonly prechecks = new Map<number, PrecheckedBreakpoint>();

  /** `family(sessionId)`: the VS Code sessions that make up one agent-visible session. */
  constructor(private readonly family: (sessionId: string) => string[]) {
    this.subscription = vscode.debug.onDidChangeBreakpoints((change) => {
      for (const removed of change.removed) {
        const ours = this.ids.get(removed.id);
        if (ours !== undefined) {
          this.bindings.delete(ours);
          this.prechecks.delete(ours);
        }
        this.ids.delete(removed.id);
      }
      // An edited breakpoint (condition, line) is no longer what was checked.
      for (const changed of change.changed) {
        const ours = this.ids.get(changed.id);
        if (ours !== undefined) this.prechecks.delete(ours);
      }
    });
  }

  list(): BreakpointInfo[] {
    return vscode.debug.breakpoints
      .filter(
        (bp): bp is vscode.SourceBreakpoint =>
          bp instanceof vscode.SourceBreakpoint && bp.location.uri.scheme === 'file',
      )
      .map((bp) => this.info(bp));
  }

  async add(spec: BreakpointSpec): Promise<BreakpointInfo> {
    const breakpoint = new vscode.SourceBreakpoint(
      new vscode.Location(
        vscode.Uri.file(spec.filePath),
        new vscode.Position(spec.line - 1, Math.max(0, (spec.column ?? 1) - 1)),
      ),
      true,
      spec.condition,
      spec.hitCondition,
      spec.logMessage,
    );
    const precheck = await this.precheck.check(spec.filePath, spec.line, spec);
    const live = vscode.debug.activeDebugSession !== undefined;
    const answered = live ? this.nextAnswer(spec.filePath, 3000) : Promise.resolve();
    vscode.debug.addBreakpoints([breakpoint]);
    const id = this.idOf(breakpoint);
    if (precheck) this.prechecks.set(id, precheck);
    await answered;
    return this.info(breakpoint);
  }

  listFunctions(): FunctionBreakpointInfo[] {
    return vscode.debug.breakpoints
      .filter((bp): bp is vscode.FunctionBreakpoint => bp instanceof vscode.FunctionBreakpoint)
      .map((bp) => this.functionInfo(bp));
  }

  async addFunction(spec: FunctionBreakpointSpec): Promise<FunctionBreakpointInfo> {
    const breakpoint = new vscode.FunctionBreakpoint(
      spec.functionName,
      true,
      spec.condition,
      spec.hitCondition,
      spec.logMessage,
    );
    const live = vscode.debug.activeDebugSession !== undefined;
    const answered = live ? this.nextAnswer(FUNCTIONS, 3000) : Promise.resolve();
    vscode.debug.addBreakpoints([breakpoint]);
    this.idOf(breakpoint);
    await answered;
    return this.functionInfo(breakpoint);
  }

  /** A setFunctionBreakpoints request of `sessionId` and its answer, as seen by the tracker. */
  onSetFunctionBreakpoints(
    sessionId: string,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
    response: DebugProtocol.SetFunctionBreakpointsResponse,
  ): void {
    const answers = response.success ? (response.body?.breakpoints ?? []) : [];
    const adapterIds = this.adapterIds.get(sessionId) ?? new Map<number, number>();
    this.adapterIds.set(sessionId, adapterIds);
    const unmatched = vscode.debug.breakpoints.filter(
      (bp): bp is vscode.FunctionBreakpoint => bp instanceof vscode.FunctionBreakpoint,
    );
    args.breakpoints.forEach((request, i) => {
      const index = unmatched.findIndex((bp) => bp.functionName === request.name);
      if (index < 0) return;
      const ours = this.idOf(unmatched.splice(index, 1)[0]);
      const answer = answers[i];
      const binding: Binding = answer
        ? {
            verified: answer.verified,
            message: answer.message,
            line: answer.line,
            path: answer.source?.path,
          }
        : { verified: false, message: response.message ?? 'The debugger refused the breakpoints.' };
      this.bindingsOf(ours).set(sessionId, binding);
      if (answer?.id !== undefined) adapterIds.set(answer.id, ours);
    });
    for (const waiter of [...this.answerWaiters]) {
      if (waiter.file === FUNCTIONS) waiter.resolve();
    }
  }

  async remove(ids: readonly number[]): Promise<void> {
    const wanted = new Set(ids);
    const doomed = vscode.debug.breakpoints.filter((bp) => {
      const ours = this.ids.get(bp.id);
      return ours !== undefined && wanted.has(ours);
    });
    if (doomed.length > 0) vscode.debug.removeBreakpoints(doomed);
  }

  idForAdapterBreakpoint(sessionId: string, adapterId: number): number | undefined {
    for (const id of this.family(sessionId)) {
      const ours = this.adapterIds.get(id)?.get(adapterId);
      if (ours !== undefined) return ours;
    }
    return undefined;
  }

  /** A setBreakpoints request of `sessionId` and its answer, as seen by the tracker. */
  onSetBreakpoints(
    sessionId: string,
    args: DebugProtocol.SetBreakpointsArguments,
    response: DebugProtocol.SetBreakpointsResponse,
  ): void {
    const file = args.source.path;
    if (!file) return;
    const sent: DebugProtocol.SourceBreakpoint[] =
      args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
    const answers = response.success ? (response.body?.breakpoints ?? []) : [];
    const inFile = this.sourceBreakpointsIn(file);
    const adapterIds = this.adapterIds.get(sessionId) ?? new Map<number, number>();
    this.adapterIds.set(sessionId, adapterIds);
    sent.forEach((request, i) => {
      const match = inFile.find(
        (bp) =>
          bp.location.range.start.line + 1 === request.line &&
          (request.column === undefined ||
            bp.location.range.start.character + 1 === request.column),
      );
      if (!match) return;
      const ours = this.idOf(match);
      const answer = answers[i];
      const binding: Binding = answer
        ? {
            verified: answer.verified,
            // A verified answer's message says where it moved from.
            message: answer.verified
              ? answer.message
              : (answer.message ?? 'The debugger could not bind the breakpoint.'),
            line: answer.line,
          }
        : { verified: false, message: response.message ?? 'The debugger refused the breakpoints.' };
      this.bindingsOf(ours).set(sessionId, binding);
      if (answer?.id !== undefined) adapterIds.set(answer.id, ours);
    });
    for (const waiter of [...this.answerWaiters]) {
      if (samePath(waiter.file, file)) waiter.resolve();
    }
  }

  onBreakpointEvent(sessionId: string, body: DebugProtocol.BreakpointEvent['body']): void {
    const adapterId = body.breakpoint.id;
    if (adapterId === undefined || body.reason === 'removed') return;
    const ours = this.adapterIds.get(sessionId)?.get(adapterId);
    if (ours === undefined) return;
    this.bindingsOf(ours).set(sessionId, {
      verified: body.breakpoint.verified,
      message: body.breakpoint.message,
      line: body.breakpoint.line,
      path: body.breakpoint.source?.path,
    });
  }

  forgetSession(sessionId: string): void {
    this.adapterIds.delete(sessionId);
    for (const perSession of this.bindings.values()) perSession.delete(sessionId);
  }

  /** Our id of a VS Code breakpoint (assigned on first sight). */
  idOf(breakpoint: vscode.Breakpoint): number {
    let id = this.ids.get(breakpoint.id);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(breakpoint.id, id);
    }
    return id;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private bindingsOf(id: number): Map<string, Binding> {
    let map = this.bindings.get(id);
    if (!map) {
      map = new Map();
      this.bindings.set(id, map);
    }
    return map;
  }

  private sourceBreakpointsIn(file: string): vscode.SourceBreakpoint[] {
    return vscode.debug.breakpoints.filter(
      (bp): bp is vscode.SourceBreakpoint =>
        bp instanceof vscode.SourceBreakpoint && samePath(bp.location.uri.fsPath, file),
    );
  }

  private nextAnswer(file: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const waiter = {
        file,
        resolve: () => {
          clearTimeout(timer);
          this.answerWaiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, timeoutMs);
      this.answerWaiters.add(waiter);
    });
  }

  private functionInfo(bp: vscode.FunctionBreakpoint): FunctionBreakpointInfo {
    const id = this.idOf(bp);
    const bindings = [...(this.bindings.get(id)?.values() ?? [])];
    const chosen = bindings.find((b) => b.verified) ?? bindings.find((b) => b.message);
    const message =
      chosen?.message ??
      (bindings.length === 0 && !vscode.debug.activeDebugSession
        ? 'No debug session yet; the breakpoint is set when one starts.'
        : undefined);
    return {
      id,
      functionName: bp.functionName,
      ...(bp.condition ? { condition: bp.condition } : {}),
      ...(bp.hitCondition ? { hitCondition: bp.hitCondition } : {}),
      ...(bp.logMessage ? { logMessage: bp.logMessage } : {}),
      verified: chosen?.verified ?? false,
      ...(message ? { message } : {}),
      ...(chosen?.path !== undefined ? { filePath: chosen.path } : {}),
      ...(chosen?.line !== undefined ? { line: chosen.line } : {}),
    };
  }

  private info(bp: vscode.SourceBreakpoint): BreakpointInfo {
    const id = this.idOf(bp);
    const bindings = [...(this.bindings.get(id)?.values() ?? [])];
    const verified = bindings.some((b) => b.verified);
    const chosen = bindings.find((b) => b.verified) ?? bindings.find((b) => b.message);
    const precheck = bindings.length === 0 ? this.prechecks.get(id) : undefined;
    // Verified: only a note (where it moved from); otherwise why not.
    const message = verified
      ? chosen?.message
      : (chosen?.message ??
        precheck?.message ??
        (vscode.debug.activeDebugSession
          ? undefined
          : 'No debug session yet; the breakpoint is set when one starts.'));
    const start = bp.location.range.start;
    const boundLine = chosen?.line ?? precheck?.line;
    return {
      id,
      filePath: bp.location.uri.fsPath,
      line: start.line + 1,
      ...(start.character > 0 ? { column: start.character + 1 } : {}),
      ...(bp.condition ? { condition: bp.condition } : {}),
      ...(bp.hitCondition ? { hitCondition: bp.hitCondition } : {}),
      ...(bp.logMessage ? { logMessage: bp.logMessage } : {}),
      verified,
      ...(message ? { message } : {}),
      ...(boundLine !== undefined && boundLine !== start.line + 1 ? { boundLine } : {}),
    };
  }
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string): string => {
    const resolved = path.normalize(p);
    return process.platform === 'win32' || process.platform === 'darwin'
      ? resolved.toLowerCase()
      : resolved;
  };
  return norm(a) === norm(b);
}
