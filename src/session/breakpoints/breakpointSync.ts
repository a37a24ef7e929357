/**
 * Keeps a session's breakpoints and the Lua side in step: reads each breakpoint file for the
 * line analysis, sends a file's list (with the binding details our runtime understands), and
 * turns what the runtime says back — verdicts, "loaded", `breakpointsBound`, a condition that
 * failed — into breakpoint changes and warnings. LuaSession owns it and relays both as events.
 */
import type { FeatureSet, IdeRequestInfo, LuaNotification, ReplyInfo } from '../../protocol';
import { Breakpoint, BreakpointSpec, BreakpointStore } from './breakpoints';
import { toSessionError } from '../errors';
import { dialectOf } from '../lines/luaDialect';
import type { SourceMapper } from '../paths';
import { SourceFiles } from '../lines/sourceFiles';

export interface BreakpointSyncHost {
  readonly store: BreakpointStore;
  readonly mapper: SourceMapper;
  features(): FeatureSet;
  sendList(info: IdeRequestInfo<'setBreakPoint'>): Promise<ReplyInfo<'setBreakPoint'>>;
  /** Breakpoints changed without a request that returns them. */
  announce(changed: readonly Breakpoint[]): void;
  /** Something about a breakpoint the user should hear of once (a condition that fails…). */
  warn(text: string): void;
  /** Hears the text of each file read for its breakpoints. */
  readonly sourceRead?: (path: string, text: string) => void;
}

type BoundNotice = Extract<LuaNotification, { kind: 'bound' }>;

/** The runtime's word on a failing condition (lua/luapanda/hits.lua, said once). */
const CONDITION_FAILED = /^LuaPanda: the condition of the breakpoint at line (\d+) \(/;

export class BreakpointSync {
  private readonly sources: SourceFiles;
  /** The path each file was sent under → the file as the client named it. */
  private readonly wirePaths = new Map<string, string>();
  /**
   * Lists on their way, and the notices that came meanwhile. The runtime sends its reply before
   * the notices its program then causes (a file loaded, a condition that failed), but a notice is
   * handled at once while the reply's handler resumes later — and the reply resets what the
   * notices said. So notices wait until no list is on its way, then apply in order.
   */
  private sendsInFlight = 0;
  private deferred: (() => void)[] = [];

  constructor(private readonly host: BreakpointSyncHost) {
    this.sources = new SourceFiles(host.sourceRead);
  }

  /** Replaces a file's breakpoints; sends them when connected. Resolves with the new list. */
  async set(path: string, specs: readonly BreakpointSpec[], connected: boolean) {
    this.host.mapper.addFile(path);
    const list = this.host.store.setFile(path, specs, await this.sources.read(path));
    this.flushWarnings();
    if (!connected) return list;
    // The caller gets the verdicts in the result; events are for changes nobody asked for.
    await this.send(path, false);
    return this.host.store.forFile(path);
  }

  /** A runtime connected, whose `luaVersion` decides which lines have code. */
  connected(luaVersion: string | undefined): void {
    const changed = this.host.store.setDialect(dialectOf(luaVersion));
    if (changed.length > 0) this.host.announce(changed);
  }

  /** Sends one file's breakpoints; a failure leaves them unverified with the reason. */
  async send(path: string, announce = true): Promise<void> {
    const features = this.host.features();
    const hitConditions = features.has('hitCondition');
    // Our runtime (it answers with per-breakpoint results) binds and says where.
    const ours = features.has('breakpointResults');
    const bks = this.host.store.wireList(path, hitConditions, ours);
    const wirePath = this.host.mapper.wirePath(path);
    this.wirePaths.set(wirePath, path);
    let changed: Breakpoint[];
    this.sendsInFlight++;
    try {
      const reply = await this.host.sendList({
        path: wirePath,
        bks,
        ...(ours ? { notifyBound: true } : {}),
      });
      const results = ours ? reply.results : undefined;
      changed = this.host.store.applyResults(path, hitConditions, results, reply.loaded);
    } catch (error) {
      changed = this.host.store.applyFailure(path, toSessionError(error).message);
    } finally {
      this.sendsInFlight--;
    }
    this.flushWarnings();
    if (announce && changed.length > 0) this.host.announce(changed);
    if (this.sendsInFlight === 0) {
      for (const apply of this.deferred.splice(0)) apply();
    }
  }

  /** Applies a notice now, or once the lists on their way are answered. */
  private inOrder(apply: () => void): void {
    if (this.sendsInFlight > 0) this.deferred.push(apply);
    else apply();
  }

  /** `breakpointsBound`: a file loaded, breakpoints bound where the loaded code has code. */
  onBound(notice: BoundNotice): void {
    this.inOrder(() => this.applyBound(notice));
  }

  private applyBound(notice: BoundNotice): void {
    const path = this.wirePaths.get(notice.path);
    if (path === undefined) return;
    const changed = this.host.store.applyBound(path, notice.lines);
    this.flushWarnings();
    if (changed.length > 0) this.host.announce(changed);
  }

  /** A log line of the runtime: one that says a condition failed updates its breakpoint. */
  onLog(text: string): void {
    const match = CONDITION_FAILED.exec(text);
    if (match) this.inOrder(() => this.applyConditionFailure(text, match));
  }

  private applyConditionFailure(text: string, match: RegExpExecArray): void {
    const rest = text.slice(match[0].length);
    // "<condition>) failed: <error>; it counts as false": the condition may hold ") failed: ".
    const end = rest.lastIndexOf('; it counts as false');
    const body = end >= 0 ? rest.slice(0, end) : rest;
    for (const bp of this.host.store.all()) {
      const prefix = `${bp.condition ?? ''}) failed: `;
      if (bp.condition === undefined || !body.startsWith(prefix)) continue;
      const changed = this.host.store.conditionFailed(
        Number(match[1]),
        bp.condition,
        body.slice(prefix.length),
      );
      if (changed.length > 0) this.host.announce(changed);
    }
    this.flushWarnings();
  }

  /** The link dropped: every breakpoint is unbound until the next connection. */
  disconnected(): void {
    // What the program said about the breakpoints it had no longer holds.
    this.deferred = [];
    const changed = this.host.store.markUnbound();
    if (changed.length > 0) this.host.announce(changed);
  }

  private flushWarnings(): void {
    for (const text of this.host.store.takeWarnings()) this.host.warn(text);
  }
}
