/**
 * Keeps a session's function breakpoints and the Lua side in step: sends the whole list
 * (`setFunctionBreakPoint`) when it changes and at each connection, with the definition sites the
 * workspace's sources give each name (functionSites.ts: how local classes and functions bind),
 * and applies what the runtime says back — in its reply, and in `functionBreakpointsBound` when a
 * name binds later. Notices that arrive while a list is on its way wait for its reply (which would
 * otherwise undo them).
 */
import type {
  FeatureSet,
  FunctionBreakpointResult,
  IdeRequestInfo,
  ReplyInfo,
} from '../../protocol';
import { toSessionError } from '../errors';
import {
  ChunkResolver,
  FunctionBreakpoint,
  FunctionBreakpointSpec,
  FunctionBreakpointStore,
  NO_FUNCTION_BREAKPOINTS_MESSAGE,
  WireSite,
} from './functionBreakpoints';

export interface FunctionBreakpointSyncHost {
  readonly store: FunctionBreakpointStore;
  readonly resolve: ChunkResolver;
  features(): FeatureSet;
  /** The definition sites of each name in the workspace's sources, paths as the wire has them. */
  findSites(names: readonly string[]): Promise<Map<string, readonly WireSite[]>>;
  sendList(
    info: IdeRequestInfo<'setFunctionBreakPoint'>,
  ): Promise<ReplyInfo<'setFunctionBreakPoint'>>;
  /** Breakpoints changed without a request that returns them. */
  announce(changed: readonly FunctionBreakpoint[]): void;
}

export class FunctionBreakpointSync {
  private sendsInFlight = 0;
  private deferred: (() => void)[] = [];
  /** The sites found for the names by the last `prepare`. */
  private sites = new Map<string, readonly WireSite[]>();

  constructor(private readonly host: FunctionBreakpointSyncHost) {}

  /** Replaces every function breakpoint; sends them when connected. */
  async set(
    specs: readonly FunctionBreakpointSpec[],
    connected: boolean,
  ): Promise<FunctionBreakpoint[]> {
    this.host.store.set(specs);
    if (connected) {
      await this.prepare();
      await this.send(false);
    }
    return this.host.store.all();
  }

  /**
   * Reads the sources for the names' definition sites, for the next `send`. Done before anything
   * is sent at a connection, so the list goes out with the rest, before the program runs on.
   */
  async prepare(): Promise<void> {
    const names = this.host.store.names();
    this.sites = names.length > 0 ? await this.host.findSites(names) : new Map();
  }

  /** Sends the list (or, to a runtime without the feature, says why it cannot). */
  async send(announce = true): Promise<void> {
    const { store } = this.host;
    let changed: FunctionBreakpoint[];
    if (!this.host.features().has('functionBreakpoints')) {
      changed = store.applyFailure(NO_FUNCTION_BREAKPOINTS_MESSAGE);
    } else {
      this.sendsInFlight++;
      try {
        const list = store.wireList((name) => this.sites.get(name) ?? []);
        const reply = await this.host.sendList(list);
        changed = store.applyResults(reply.results, this.host.resolve);
      } catch (error) {
        const reason = toSessionError(error).message;
        changed = store.applyFailure(`The Lua side did not confirm it: ${reason}`);
      } finally {
        this.sendsInFlight--;
      }
    }
    if (announce && changed.length > 0) this.host.announce(changed);
    if (this.sendsInFlight === 0) {
      for (const apply of this.deferred.splice(0)) apply();
    }
  }

  /** `functionBreakpointsBound`: names that bound once their code loaded. */
  onBound(results: readonly FunctionBreakpointResult[]): void {
    const apply = () => {
      const changed = this.host.store.applyBound(results, this.host.resolve);
      if (changed.length > 0) this.host.announce(changed);
    };
    if (this.sendsInFlight > 0) this.deferred.push(apply);
    else apply();
  }

  /** The link dropped: unbound until the next connection. */
  disconnected(): void {
    this.deferred = [];
    const changed = this.host.store.markUnbound();
    if (changed.length > 0) this.host.announce(changed);
  }
}
