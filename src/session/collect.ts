/**
 * Collecting breakpoints (feature `collect`): a session's running collects, each a line where the
 * runtime evaluates expressions without stopping and sends every hit (`collectHit`). A collect
 * ends at its hit limit, its timeout or the session's end; then the runtime is sent the list
 * without it, so nothing of it stays in the program.
 */
import type { CollectHit } from '../protocol';
import type { FrameLocation } from './paths';
import { SessionError } from './errors';

/** Where a collect reads: a local file (absolute) and line. */
export interface CollectLocation {
  readonly path: string;
  readonly line: number;
}

/** What one collect asks for: a location, or a function as Lua source names it. */
export type CollectRequest = CollectOptions & (CollectLocation | { readonly functionName: string });

/** What one collect reads and for how long. */
export interface CollectOptions {
  readonly expressions: readonly string[];
  readonly condition?: string;
  readonly hitLimit: number;
  readonly timeoutMs: number;
}

export type CollectedValue =
  { readonly value: string; readonly type: string } | { readonly error: string };

export interface CollectedFrame {
  readonly name: string;
  /** The local file, when the chunk maps to one; else the chunk's name. */
  readonly file: string;
  readonly line: number;
}

export interface CollectedHit {
  readonly hit: number;
  readonly values: readonly CollectedValue[];
  readonly frames: readonly CollectedFrame[];
}

/** Why a collect ended. */
export type CollectEnd = 'hit-limit' | 'timeout' | 'session-ended';

export interface CollectReport {
  readonly ended: CollectEnd;
  /** Where it collected (a function's first line with code, when a function was named). */
  readonly path: string;
  readonly line: number;
  readonly hits: readonly CollectedHit[];
  /** The condition failed when evaluated (it counts as false from then on). */
  readonly conditionError?: string;
}

/** One collector as the wire names it (`setCollect`). */
export interface CollectorWireSpec {
  id: string;
  path: string;
  line: number;
  exprs: string[];
  condition?: string;
  limit: number;
}

export interface CollectDeps {
  /** Sends the whole list; resolves with the runtime's verdict per id. */
  send(list: CollectorWireSpec[]): Promise<{
    results: readonly { id: string; verified: boolean; message?: string }[];
  }>;
  wirePath(localPath: string): string;
  resolve(location: FrameLocation): string | undefined;
}

interface Active {
  readonly spec: CollectorWireSpec;
  readonly location: CollectLocation;
  readonly hits: CollectedHit[];
  conditionError?: string;
  timer?: NodeJS.Timeout;
  finish(report: CollectReport): void;
}

export class Collects {
  private readonly active = new Map<string, Active>();
  private sequence = 0;

  constructor(private readonly deps: CollectDeps) {}

  /**
   * Runs one collect to its end. Rejects (SessionError) when the runtime refused it. `resume`
   * runs once the collector is set (a stopped program is let go, so that it reaches the line).
   */
  async run(
    request: CollectOptions & CollectLocation,
    resume: () => Promise<void>,
  ): Promise<CollectReport> {
    const id = `c${++this.sequence}`;
    const spec: CollectorWireSpec = {
      id,
      path: this.deps.wirePath(request.path),
      line: request.line,
      exprs: [...request.expressions],
      limit: request.hitLimit,
      ...(request.condition ? { condition: request.condition } : {}),
    };
    let finish: (report: CollectReport) => void = () => undefined;
    const done = new Promise<CollectReport>((resolve) => (finish = resolve));
    // In the map before the list is sent: hits may come in the same read as the reply.
    const entry: Active = {
      spec,
      location: { path: request.path, line: request.line },
      hits: [],
      finish,
    };
    this.active.set(id, entry);
    let verdict: { verified: boolean; message?: string } | undefined;
    try {
      verdict = (await this.deps.send(this.specs())).results.find((r) => r.id === id);
    } catch (error) {
      this.active.delete(id);
      throw error;
    }
    if (!verdict?.verified) {
      this.active.delete(id);
      await this.deps.send(this.specs()).catch(() => undefined);
      throw new SessionError(
        'invalid-arguments',
        `The collect was not set: ${verdict?.message ?? 'the runtime did not answer for it'}.`,
      );
    }
    if (this.active.has(id)) {
      entry.timer = setTimeout(() => this.end(id, 'timeout'), request.timeoutMs);
      await resume().catch(() => undefined);
    }
    return done;
  }

  /** A `collectHit` from the runtime. */
  onHit(hit: CollectHit): void {
    const entry = this.active.get(hit.id);
    if (!entry) return;
    if (hit.conditionError !== undefined) {
      entry.conditionError = hit.conditionError;
      return;
    }
    if (hit.hit === undefined) return;
    entry.hits.push({
      hit: hit.hit,
      values: (hit.values ?? []).map((v) =>
        v.error !== undefined ? { error: v.error } : { value: v.value ?? '', type: v.type ?? '' },
      ),
      frames: (hit.frames ?? []).map((f) => ({
        name: f.name,
        file: this.deps.resolve({ file: f.file, oPath: f.oPath ?? f.file }) ?? f.file,
        line: f.line,
      })),
    });
    if (entry.hits.length >= entry.spec.limit) this.end(hit.id, 'hit-limit');
  }

  /** The link dropped or the session ended: every collect ends with what it has. */
  endAll(): void {
    for (const id of [...this.active.keys()]) this.end(id, 'session-ended', false);
  }

  private end(id: string, why: CollectEnd, tellRuntime = true): void {
    const entry = this.active.get(id);
    if (!entry) return;
    this.active.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.finish({
      ended: why,
      ...entry.location,
      hits: entry.hits,
      ...(entry.conditionError !== undefined ? { conditionError: entry.conditionError } : {}),
    });
    if (tellRuntime) this.deps.send(this.specs()).catch(() => undefined);
  }

  private specs(): CollectorWireSpec[] {
    return [...this.active.values()].map((a) => a.spec);
  }
}
