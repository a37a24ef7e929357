/**
 * Breakpoints of the headless host: they exist before, between and after sessions, keep their
 * ids for life, and are sent to every live session whenever a file's list changes (DAP's
 * setBreakpoints replaces a file's whole list). Each session's answer sets `verified` and the
 * reason when not, and tells which adapter id stands for which of ours.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { BreakpointInfo, BreakpointService, BreakpointSpec } from './channel';

/** What the store needs of a live session to push breakpoints to it. */
export interface BreakpointTarget {
  readonly id: string;
  request(command: 'setBreakpoints', args: DebugProtocol.SetBreakpointsArguments): Promise<unknown>;
}

interface Entry {
  spec: BreakpointSpec;
  verified: boolean;
  message?: string;
}

export class HeadlessBreakpoints implements BreakpointService {
  private nextId = 1;
  private readonly entries = new Map<number, Entry>();
  private readonly targets = new Map<string, BreakpointTarget>();
  /** session id → adapter breakpoint id → our id */
  private readonly adapterIds = new Map<string, Map<number, number>>();

  list(): BreakpointInfo[] {
    return [...this.entries].map(([id, entry]) => this.info(id, entry));
  }

  async add(spec: BreakpointSpec): Promise<BreakpointInfo> {
    const id = this.nextId++;
    const entry: Entry = {
      spec,
      verified: false,
      message:
        this.targets.size === 0
          ? 'No debug session yet; the breakpoint is set when one starts.'
          : undefined,
    };
    this.entries.set(id, entry);
    await this.syncFile(spec.filePath);
    return this.info(id, entry);
  }

  async remove(ids: readonly number[]): Promise<void> {
    const files = new Set<string>();
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
  }

  detach(sessionId: string): void {
    this.targets.delete(sessionId);
    this.adapterIds.delete(sessionId);
  }

  /** A `breakpoint` event from a session's adapter (verified state changed, or moved). */
  onAdapterEvent(sessionId: string, body: DebugProtocol.BreakpointEvent['body']): void {
    const adapterId = body.breakpoint.id;
    if (adapterId === undefined) return;
    const ours = this.idForAdapterBreakpoint(sessionId, adapterId);
    const entry = ours === undefined ? undefined : this.entries.get(ours);
    if (!entry || body.reason === 'removed') return;
    entry.verified = body.breakpoint.verified;
    entry.message = body.breakpoint.message;
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
        try {
          body = (await target.request(
            'setBreakpoints',
            args,
          )) as DebugProtocol.SetBreakpointsResponse['body'];
        } catch (error) {
          for (const [, entry] of inFile) {
            entry.verified = false;
            entry.message = `The debugger refused the breakpoint: ${(error as Error).message}`;
          }
          return;
        }
        const ids = this.adapterIds.get(target.id);
        body?.breakpoints?.forEach((answer, i) => {
          const mine = inFile[i];
          if (!mine) return;
          const [id, entry] = mine;
          entry.verified = answer.verified;
          entry.message = answer.verified
            ? undefined
            : (answer.message ?? 'The debugger could not bind the breakpoint.');
          if (answer.id !== undefined) ids?.set(answer.id, id);
        });
      }),
    );
  }

  private info(id: number, entry: Entry): BreakpointInfo {
    return { ...entry.spec, id, verified: entry.verified, message: entry.message };
  }
}
