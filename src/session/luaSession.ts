/**
 * `LuaSession`: the one model of a debug session. It owns the state machine, the breakpoint set,
 * the current stop and variable handles, and emits a typed event for every change (program
 * output too: it keeps none; whoever shows output listens). It knows the LuaPanda protocol (through `src/protocol`) and nothing of DAP, MCP or
 * VS Code: the DAP adapter and the MCP tools are views of it and drive it through its methods,
 * each of which returns a promise bounded by a timeout and fails with a coded `SessionError`.
 * The link to the program (waiting, handshake, reconnect, exit grace) is `SessionLink`'s job, and
 * the current stop with its handles `StopState`'s.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { NO_TRACE, Tracer } from '../common/trace';
import type {
  IdeCommand,
  IdeRequestInfo,
  LuaNotification,
  ProtocolError,
  ReplyInfo,
  RequestCommand,
} from '../protocol';
import { Breakpoint, BreakpointSpec, BreakpointStore } from './breakpoints/breakpoints';
import { BreakpointSync } from './breakpoints/breakpointSync';
import type { Connector } from './link/connectors';
import { SessionError, sessionErrors, toSessionError } from './errors';
import { pauseCompiledCode } from './stop/compiledPause';
import { SLOW_POLL_HINT } from './link/attachHint';
import {
  ExceptionFilterResult,
  ExceptionFilterSpec,
  exceptionFilterWire,
} from './breakpoints/exceptionFilters';
import { ExitStatus, describeExit, exitNumber } from './link/exitStatus';
import type { HotReloadReport } from './hotReload';
import { CollectReport, CollectRequest, Collects } from './collect';
import { FEATURES } from '../protocol';
import { hotReloadFile } from './hotReloadRequest';
import { type CoroutineList, listCoroutines } from './coroutineList';
import { Ask, EvaluateContext, assignIn, evaluateIn } from './stop/inspection';
import { SourceMapper } from './paths';
import { SessionLink } from './link/sessionLink';
import { SessionState, StateMachine } from './state';
import {
  MAIN_THREAD_ID,
  StopNotification,
  ThreadRegistry,
  buildStop,
  sameNameFakeHit,
} from './stop/stopSnapshot';
import { FunctionNames } from './stop/functionNames';
import { RunningSources } from './runningSources';
import {
  FunctionBreakpoint,
  FunctionBreakpointSpec,
  FunctionBreakpointStore,
  WireSite,
} from './breakpoints/functionBreakpoints';
import { FunctionBreakpointSync } from './breakpoints/functionBreakpointSync';
import { FunctionSite, FunctionSites } from './breakpoints/functionSites';
import type {
  EvaluateResult,
  Frame,
  LuaSessionEvents,
  OutputCategory,
  Scope,
  SessionConnection,
  SessionSettings,
  StopInfo,
  Thread,
} from './types';
import { StopState } from './stop/stopState';
import type { ValueChange } from './stop/changeMemory';
import { changeScopeOf, markChanges } from './stop/changeMarks';
import { readStopChanges } from './stop/stopChanges';
import type { Page } from './stop/variables';

export { greetGame } from './link/sessionLink';

type ResumeCommand = 'continue' | 'stopOnStep' | 'stopOnStepIn' | 'stopOnStepOut';

/** Protocol errors shown as console lines per session; the events go on after that. */
const SHOWN_PROTOCOL_ERRORS = 20;

export interface StartOptions {
  /** Bound on the wait for the program to connect; undefined waits until stopped. */
  readonly connectTimeoutMs?: number;
  /** The program runs without the debugger: no connection is awaited, output is still kept. */
  readonly noDebug?: boolean;
}

export class LuaSession extends EventEmitter<LuaSessionEvents> {
  readonly id = randomUUID();
  private readonly machine = new StateMachine((change) => {
    this.tracer.log('session.state', () => `${change.from} → ${change.to} (${change.reason})`);
    this.emit('state', change);
  });
  private readonly tracer: Tracer;
  private readonly store: BreakpointStore;
  private readonly sync: BreakpointSync;
  private readonly functionStore: FunctionBreakpointStore;
  private readonly functionSync: FunctionBreakpointSync;
  private readonly mapper: SourceMapper;
  private readonly threadRegistry = new ThreadRegistry();
  private readonly stops = new StopState();
  /** The text of each file the program runs, as far as seen (a reload tells what it changed). */
  private readonly runningSources = new RunningSources();
  private readonly functionNames = new FunctionNames((file, text) =>
    this.runningSources.seen(file, text),
  );
  private readonly functionSites = new FunctionSites();
  private readonly link: SessionLink;
  private readonly collects: Collects;
  private exceptionFilters: readonly ExceptionFilterSpec[] = [{ filter: 'uncaught' }];
  private pauseEmulated = false;
  private protocolErrors = 0;
  private ending: Promise<void> | undefined;
  private finishing: Promise<void> | undefined;

  constructor(
    readonly settings: SessionSettings,
    workspaceFiles: Iterable<string> = [],
  ) {
    super();
    this.tracer = settings.tracer ?? NO_TRACE;
    this.link = new SessionLink(settings, {
      machine: this.machine,
      notification: (n) => this.onNotification(n),
      protocolError: (e) => this.onProtocolError(e),
      configure: (reply, connection) => this.configure(reply, connection),
      lost: () => this.onLinkLost(),
      notice: (text) => this.addOutput('important', text),
      finish: (reason, error) => this.finish(reason, error),
    });
    this.store = new BreakpointStore(settings.pathCaseSensitivity);
    this.mapper = new SourceMapper(
      {
        cwd: settings.cwd,
        caseSensitive: settings.pathCaseSensitivity,
        luaFileExtension: settings.luaFileExtension,
        docPathReplace: settings.docPathReplace,
      },
      workspaceFiles,
    );
    this.sync = new BreakpointSync({
      store: this.store,
      mapper: this.mapper,
      features: () => this.link.features,
      sendList: (info) => this.request('setBreakPoint', info),
      announce: (changed) => this.emit('breakpoints', changed),
      warn: (text) => this.emit('warning', text),
      sourceRead: (file, text) => this.runningSources.seen(file, text),
    });
    this.collects = new Collects({
      send: (list) => this.request('setCollect', { collectors: list }),
      wirePath: (local) => this.mapper.wirePath(local),
      resolve: (location) => this.mapper.resolve(location),
    });
    this.functionStore = new FunctionBreakpointStore(() => this.store.allocateId());
    this.functionSync = new FunctionBreakpointSync({
      store: this.functionStore,
      resolve: (chunk) => this.mapper.resolve(chunk),
      features: () => this.link.features,
      findSites: (names) => this.findFunctionSites(names),
      sendList: (info) => this.request('setFunctionBreakPoint', info),
      announce: (changed) => this.emit('functionBreakpoints', changed),
    });
  }

  // ---------------------------------------------------------------------------------------------
  // What consumers read

  get state(): SessionState {
    return this.machine.state;
  }

  /** The current stop, while the program is stopped. */
  get stop(): StopInfo | undefined {
    return this.machine.is('Stopped') ? this.stops.current : undefined;
  }

  get runtime(): string {
    return this.link.runtime;
  }

  get mode(): 'launch' | 'attach' | undefined {
    return this.link.connector?.mode;
  }

  get breakpoints(): Breakpoint[] {
    return this.store.all();
  }

  get functionBreakpoints(): FunctionBreakpoint[] {
    return this.functionStore.all();
  }

  threads(): Thread[] {
    return this.threadRegistry.list(this.stops.current?.frames ?? []);
  }

  // ---------------------------------------------------------------------------------------------
  // Configuration: allowed in every state; sent to the Lua side at once when connected.

  /** Replaces the breakpoints of one file; resolves with them once the Lua side has answered. */
  async setBreakpoints(path: string, specs: readonly BreakpointSpec[]): Promise<Breakpoint[]> {
    return this.sync.set(path, specs, this.link.isConnected());
  }

  /** Replaces every function breakpoint; resolves with them once the Lua side has answered. */
  async setFunctionBreakpoints(
    specs: readonly FunctionBreakpointSpec[],
  ): Promise<FunctionBreakpoint[]> {
    return this.functionSync.set(specs, this.link.isConnected());
  }

  /**
   * Replaces the exception filters; resolves with one result per filter (a condition the
   * connected runtime cannot test leaves its filter off, unverified, with the reason).
   */
  async setExceptionFilters(
    filters: readonly ExceptionFilterSpec[],
  ): Promise<ExceptionFilterResult[]> {
    this.exceptionFilters = [...filters];
    const connected = this.link.isConnected();
    const wire = exceptionFilterWire(filters, connected ? this.link.features : undefined);
    if (connected && this.link.features.has('exceptions')) {
      this.sayRefusedFilters(wire.results);
      await this.request('setExceptionBreakpoints', wire.info);
    }
    return wire.results;
  }

  /** Tells the user (Debug Console) and the agents (warning) why a filter stays off, once. */
  private sayRefusedFilters(results: readonly ExceptionFilterResult[]): void {
    const refused = results.find((r) => !r.verified);
    if (!refused?.message) return;
    this.addOutput('important', `${refused.message}\n`);
    this.emit('warning', refused.message);
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /** Connects through `connector` (Idle → Starting → Running or Stopped). */
  async start(connector: Connector, options: StartOptions = {}): Promise<void> {
    this.machine.transition('Starting', `waiting for the Lua program on ${connector.endpoint}`);
    this.link.use(connector);
    connector.onNotice = (text) => this.addOutput('important', `${text}\n`);
    const debuggee = connector.process;
    if (debuggee) {
      debuggee.on('output', (category, text) => {
        this.addOutput(category, text);
        // The runtime's console lines come this way in launch mode (a failed condition too).
        if (category === 'console') this.sync.onLog(text);
      });
      debuggee.once('exit', (exit) => this.onProcessExit(exit));
      this.emit('process', { pid: debuggee.pid, name: debuggee.interpreter });
    }
    if (options.noDebug) {
      this.machine.transition('Running', 'the program runs without debugging');
      return;
    }
    try {
      await this.link.connect(options.connectTimeoutMs);
    } catch (error) {
      const failure = toSessionError(error, 'no-connection');
      await this.finish(failure.message, failure);
      throw failure;
    }
  }

  /**
   * Ends the session. A launched program is ended (unless `terminateDebuggee` is false); an
   * attached one is detached and runs on.
   */
  stopSession(options: { terminateDebuggee?: boolean } = {}): Promise<void> {
    if (this.ending) return this.ending;
    if (this.finishing) return this.finishing;
    if (this.machine.is('Idle')) {
      this.ending = this.finish('The session was stopped before it started.');
      return this.ending;
    }
    this.ending = this.terminate(options.terminateDebuggee ?? this.mode === 'launch');
    return this.ending;
  }

  /** Ends a session that could not start (no connector could be made), with the reason. */
  abandon(error: SessionError): Promise<void> {
    return this.finish(error.message, error);
  }

  // ---------------------------------------------------------------------------------------------
  // Execution control

  continue(threadId?: number): Promise<void> {
    return this.resume('continue', 'continue', threadId);
  }

  stepOver(threadId?: number): Promise<void> {
    return this.resume('stopOnStep', 'step over', threadId);
  }

  stepIn(threadId?: number): Promise<void> {
    return this.resume('stopOnStepIn', 'step in', threadId);
  }

  stepOut(threadId?: number): Promise<void> {
    return this.resume('stopOnStepOut', 'step out', threadId);
  }

  /**
   * Asks the running program to stop; the stop itself arrives as a `stopped` event. Upstream's
   * runtime has no pause: a step-in sent while running does the same, at its next poll.
   */
  async pause(): Promise<void> {
    this.require('Running', 'not-running', 'pause');
    if (!this.link.hasConnection) {
      throw sessionErrors.noDebugger();
    }
    if (this.link.features.has('jitCompiles')) {
      await pauseCompiledCode(this.request('pause', {}, 0), this.settings.compiledPauseMs);
    } else if (this.link.features.has('pause')) {
      await this.request('pause', {}).catch((error: unknown) => {
        const failure = toSessionError(error);
        if (failure.code !== 'request-timeout') throw failure;
        throw new SessionError(
          'request-timeout',
          `The game did not answer the pause in time. ${SLOW_POLL_HINT}`,
        );
      });
    } else {
      this.pauseEmulated = true;
      await this.request('stopOnStepIn', {});
    }
  }

  /** The coroutines the runtime knows, at most `max` (stopped only: coroutineList.ts). */
  async coroutines(max: number): Promise<CoroutineList> {
    this.requireStop('list coroutines');
    if (!this.link.hasConnection) throw sessionErrors.noDebugger();
    return listCoroutines(
      {
        features: this.link.features,
        resolve: (place) => this.mapper.resolve(place),
        send: (info) => this.request('listCoroutines', info),
      },
      max,
    );
  }

  // ---------------------------------------------------------------------------------------------
  // Code changes (Running or Stopped)

  /**
   * Loads the changed file `path` (absolute, or relative to `cwd`) into the program: its
   * functions are replaced in place and module state is kept. `source` is the new text (default:
   * the file on disk). Stopped, the runtime does it at once; running, at its next safe point,
   * bounded by `requestTimeoutMs`. A reload the runtime refused (a compile error, …) resolves
   * with status `error`; what keeps it from being asked rejects with a `SessionError`.
   */
  async hotReload(path: string, source?: string): Promise<HotReloadReport> {
    if (!this.machine.is('Running', 'Stopped')) {
      throw sessionErrors.wrongState(
        'invalid-state',
        'hot reload',
        this.machine.state,
        'running or stopped',
      );
    }
    if (!this.link.hasConnection) throw sessionErrors.noDebugger();
    const report = await hotReloadFile(
      {
        cwd: this.settings.cwd,
        features: this.link.features,
        wirePath: (local) => this.mapper.wirePath(local),
        send: (info, timeoutMs) => this.request('hotReload', info, timeoutMs),
        timeoutMs: this.settings.requestTimeoutMs,
        sources: this.runningSources,
      },
      path,
      source,
    );
    // The reloaded functions may sit on other lines now: function breakpoints that bind by
    // definition site are sent again, with the sites read from the file as it is now.
    if (report.status === 'success' && this.functionStore.size > 0 && this.link.isConnected()) {
      await this.functionSync.prepare();
      await this.functionSync.send();
    }
    return report;
  }

  /**
   * Collects values at `path`:`line` (or a named function's first line) without stopping (feature
   * `collect`), continuing a stopped program once the collector is set: resolves once the hit
   * limit is reached, the timeout passed or the session ended, with every hit. Rejects with a
   * `SessionError` when the runtime cannot collect or refused the request (a malformed expression).
   */
  async collect(request: CollectRequest): Promise<CollectReport> {
    if (!this.machine.is('Running', 'Stopped')) {
      throw sessionErrors.wrongState(
        'invalid-state',
        'collect values',
        this.machine.state,
        'running or stopped',
      );
    }
    if (!this.link.isConnected()) throw sessionErrors.notConnected();
    if (!this.link.features.has(FEATURES.collect)) {
      throw new SessionError(
        'not-supported',
        `The connected runtime (${this.link.runtime || 'upstream LuaPanda'}) cannot collect ` +
          "values: use the LuaPanda.lua this extension ships (the 'collect' feature).",
      );
    }
    const resume = (): Promise<void> =>
      this.machine.is('Stopped') ? this.continue() : Promise.resolve();
    if (!('functionName' in request)) return this.collects.run(request, resume);
    const name = request.functionName;
    const found = await this.functionSites.find([name], this.mapper.files(), this.store.luaDialect);
    const sites = found.get(name) ?? [];
    if (sites.length !== 1) {
      const where = sites.map((s) => `${s.path}:${s.line}`).join(', ');
      throw new SessionError(
        'invalid-arguments',
        sites.length === 0
          ? `No function named ${name} is defined in the workspace's Lua files; name it as the ` +
              'source writes it (Entity:update, util.helper) or give a file and line.'
          : `${name} is defined ${sites.length} times (${where}); give a file and line.`,
      );
    }
    return this.collects.run({ ...request, path: sites[0].path, line: sites[0].line }, resume);
  }

  // ---------------------------------------------------------------------------------------------
  // Inspection (Stopped only)

  stackTrace(
    threadId: number,
    startFrame = 0,
    levels?: number,
  ): { frames: Frame[]; total: number } {
    const stop = this.requireStop('read the stack');
    this.checkThread(threadId);
    const first = stop.frames.findIndex((f) => f.threadId === threadId);
    const frames = first < 0 ? [] : stop.frames.slice(first);
    const end = levels !== undefined && levels > 0 ? startFrame + levels : undefined;
    return { frames: frames.slice(startFrame, end), total: frames.length };
  }

  scopes(frameId: number): Scope[] {
    this.requireStop('read scopes');
    return this.stops.variables.scopes(this.frame(frameId));
  }

  async getVariables(variablesReference: number, page: Page = {}) {
    const stop = this.requireStop('read variables');
    const container = this.stops.variables.container(variablesReference);
    const variables = await this.stops.variables.list(
      variablesReference,
      page,
      async (info) => this.request('getVariable', info),
      { paging: this.link.features.has('paging'), pagingLimit: this.settings.pagingLimit },
    );
    // The top frame's values are compared with the last stop in the same function.
    return markChanges(this.stops.changes, changeScopeOf(container, stop.frames[0]), variables);
  }

  /** What changed in the top frame since the last stop in its function (stopChanges.ts). */
  async stopChanges(): Promise<ValueChange[]> {
    const stop = this.requireStop('read what changed');
    const top = stop.frames[0];
    if (!top) return [];
    return readStopChanges({
      scopes: () => this.stops.variables.scopes(top),
      list: (ref, page) => this.getVariables(ref, page),
      paging: this.link.features.has('paging'),
      changed: () => this.stops.changes.changed(),
    });
  }

  /** Evaluates `expression` in a frame (default: the top one). `repl` may change state. */
  async evaluate(
    expression: string,
    frameId?: number,
    context: EvaluateContext = 'watch',
  ): Promise<EvaluateResult> {
    const stop = this.requireStop('evaluate');
    const frame = frameId !== undefined ? this.frame(frameId) : stop.frames[0];
    const stackId = String(frame?.luaIndex ?? 2);
    return evaluateIn(this.ask, this.stops.variables, expression, stackId, context);
  }

  /** Assigns `value` (Lua source: a literal or an expression) to `name` in a scope or table. */
  async setVariable(
    variablesReference: number,
    name: string,
    value: string,
  ): Promise<EvaluateResult> {
    this.requireStop('set a variable');
    const container = this.stops.variables.container(variablesReference);
    return assignIn(
      this.ask,
      this.stops.variables,
      container,
      name,
      value,
      this.link.features.has('setField'),
    );
  }

  /** Adds a line to the program output (used for the adapter's own messages too). */
  addOutput(category: OutputCategory, text: string): void {
    this.emit('output', { category, text, timestamp: new Date().toISOString() });
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  /** A handshake completed: the runtime learns the breakpoints and filters before it runs on. */
  private async configure(
    reply: ReplyInfo<'initSuccess'>,
    connection: SessionConnection,
  ): Promise<void> {
    this.emit('connected', { runtime: this.link.runtime, features: reply.features ?? [] });
    this.sync.connected(reply.luaVersion);
    // Send everything at once: upstream reads one frame right after the handshake and the rest
    // at its next poll, so waiting for each reply would let the first lines run unguarded.
    // The sources are read for function breakpoints' definition sites first: the lists go out
    // together, before the program runs on.
    if (this.functionStore.size > 0 && this.link.features.has('functionBreakpoints')) {
      await this.functionSync.prepare();
    }
    const sends: Promise<unknown>[] = this.store.paths().map((path) => this.sync.send(path));
    if (this.functionStore.size > 0) sends.push(this.functionSync.send());
    if (this.link.features.has('exceptions')) {
      const wire = exceptionFilterWire(this.exceptionFilters, this.link.features);
      this.sayRefusedFilters(wire.results);
      sends.push(this.request('setExceptionBreakpoints', wire.info));
    }
    if (this.link.features.has('configurationDone')) {
      sends.push(this.request('configurationDone', {}));
    } else if (sends.length === 0) {
      // Upstream reads one more frame within a second of its handshake reply, from inside its
      // handshake code, before it knows its own file: a pause (step-in) read there stops inside
      // LuaPanda.lua, with empty file names. A frame it ignores uses up that read, so every later
      // command is read by its hook.
      sends.push(connection.notify('configurationDone', {}));
    }
    await Promise.all(sends);
  }

  private readonly ask: Ask = (cmd, info) => this.request(cmd, info);

  /** Where the workspace's sources define each name (local classes and functions among them). */
  private async findFunctionSites(names: readonly string[]) {
    const found = await this.functionSites
      .find(names, this.mapper.files(), this.store.luaDialect)
      .catch(() => new Map<string, FunctionSite[]>());
    const wire = new Map<string, WireSite[]>();
    for (const [name, sites] of found) {
      wire.set(
        name,
        sites.map((site) => ({ ...site, path: this.mapper.wirePath(site.path) })),
      );
    }
    return wire;
  }

  private request<C extends RequestCommand & IdeCommand>(
    cmd: C,
    info: IdeRequestInfo<C>,
    timeoutMs?: number,
  ): Promise<ReplyInfo<C>> {
    return this.link.request(cmd, info, timeoutMs);
  }

  private async resume(cmd: ResumeCommand, verb: string, threadId?: number): Promise<void> {
    this.requireStop(verb);
    if (threadId !== undefined) this.checkThread(threadId);
    const connected = this.link.hasConnection;
    const stoppedThread = this.stops.current?.threadId ?? MAIN_THREAD_ID;
    // Leave Stopped before sending: the next stop may arrive in the same TCP read as the reply.
    this.leaveStop(`${verb} requested`);
    this.emit('continued', { threadId: threadId ?? stoppedThread, allThreadsContinued: true });
    if (!connected) return;
    await this.request(cmd, {});
  }

  private leaveStop(reason: string): void {
    this.stops.invalidate();
    if (this.machine.is('Stopped')) this.machine.transition('Running', reason);
  }

  private onNotification(notification: LuaNotification): void {
    if (this.machine.is('Terminating', 'Terminated')) return;
    switch (notification.kind) {
      case 'stop': {
        if (this.skipSameNameHit(notification)) return;
        const stop = this.stops.replace((frames) =>
          buildStop(notification, {
            mapper: this.mapper,
            names: this.functionNames,
            frames,
            threads: this.threadRegistry,
            breakpoints: this.store,
            functionBreakpointIds: (names) => this.functionStore.idsFor(names),
            pauseEmulated: this.pauseEmulated,
          }),
        );
        this.pauseEmulated = false;
        if (!this.machine.is('Stopped')) this.machine.transition('Stopped', stop.description);
        this.emit('stopped', stop);
        return;
      }
      case 'log':
        this.sync.onLog(notification.text);
        if (isRuntimeGreeting(notification.cmd, notification.text)) return;
        this.addOutput(LOG_CATEGORIES[notification.cmd], ensureNewline(notification.text));
        return;
      case 'bound':
        this.sync.onBound(notification);
        return;
      case 'functionsBound':
        this.functionSync.onBound(notification.results);
        return;
      case 'collect':
        this.collects.onHit(notification.hit);
        return;
      case 'trace':
        this.tracer.log('runtime', notification.text);
        return;
      case 'memory':
        return;
    }
  }

  /**
   * A frame the protocol layer dropped: the user must learn of it (a malformed stop frame leaves
   * a program stopped that the IDE shows running), so it is an event and a console line.
   */
  private onProtocolError(error: ProtocolError): void {
    if (this.machine.is('Terminated')) return;
    this.protocolErrors++;
    this.emit('protocolError', error);
    if (this.protocolErrors > SHOWN_PROTOCOL_ERRORS) return;
    const more =
      this.protocolErrors === SHOWN_PROTOCOL_ERRORS
        ? ' (Further protocol errors of this session are not shown.)'
        : '';
    this.addOutput('console', `LuaPanda protocol error (${error.code}): ${error.message}${more}\n`);
  }

  /** A same-name file's breakpoint fired here: not shown, the program goes on (fake hit). */
  private skipSameNameHit(stop: StopNotification): boolean {
    const fake = sameNameFakeHit(stop, this.mapper, this.store);
    if (fake) this.request('continue', fake).catch(() => undefined);
    return fake !== undefined;
  }

  /** The handshaken link dropped (the link reconnects or ends the session): the stop is gone. */
  private onLinkLost(): void {
    this.leaveStop('the connection closed');
    // What a game that comes back holds is not what it held at its last stop before.
    this.stops.changes.forget();
    this.sync.disconnected();
    this.functionSync.disconnected();
    this.collects.endAll();
  }

  private onProcessExit(exit: ExitStatus): void {
    this.emit('exited', {
      exitCode: exitNumber(exit),
      ...(exit.signal ? { signal: exit.signal } : {}),
    });
    if (this.machine.is('Terminating', 'Terminated')) return;
    // Before any connection the start itself reports the exit (as a launch error).
    if (this.machine.is('Starting') && !this.link.isHandshaken) return;
    void this.finish(`The program ${describeExit(exit)}.`);
  }

  private async terminate(terminateDebuggee: boolean): Promise<void> {
    // Only a program the session started can be ended; an attached game is detached from (the
    // protocol has no command that ends the game, and ending an engine's process is not ours).
    const killProcess = terminateDebuggee && this.link.connector?.process !== undefined;
    const waiting = this.machine.is('Starting') && !this.link.isConnected() && !killProcess;
    const reason = waiting
      ? `Stopped waiting for the Lua program on ${this.link.connector?.endpoint ?? 'its port'}.`
      : killProcess
        ? 'The program was stopped.'
        : terminateDebuggee
          ? 'Detached from the program (a program the debugger attached to is not ended by it).'
          : 'Detached from the program.';
    this.machine.transition('Terminating', reason);
    await this.link.hangUp(killProcess);
    await this.finish(reason, undefined, killProcess);
  }

  /** Releases everything and ends in Terminated (once; later calls share the first). */
  private finish(reason: string, error?: SessionError, killProcess = true): Promise<void> {
    this.finishing ??= this.release(reason, error, killProcess);
    return this.finishing;
  }

  private async release(
    reason: string,
    error: SessionError | undefined,
    killProcess: boolean,
  ): Promise<void> {
    if (!this.machine.is('Idle', 'Terminating')) this.machine.transition('Terminating', reason);
    this.stops.invalidate();
    this.collects.endAll();
    await this.link.release(killProcess);
    this.machine.transition('Terminated', reason);
    this.emit('terminated', { reason, error });
  }

  private require(state: SessionState, code: 'not-running' | 'not-stopped', verb: string): void {
    if (this.machine.is(state)) return;
    throw sessionErrors.wrongState(code, verb, this.machine.state, state.toLowerCase());
  }

  private requireStop(verb: string): StopInfo {
    this.require('Stopped', 'not-stopped', verb);
    const stop = this.stops.current;
    if (!stop) throw sessionErrors.noCurrentStop(verb);
    return stop;
  }

  private checkThread(threadId: number): void {
    if (!this.threads().some((t) => t.id === threadId)) {
      throw sessionErrors.unknownThread(
        threadId,
        this.threads().map((t) => t.id),
      );
    }
  }

  private frame(frameId: number): Frame {
    const frame = this.stops.frames.get(frameId);
    if (!frame) {
      throw sessionErrors.unknownFrame(frameId);
    }
    return frame;
  }
}

const LOG_CATEGORIES: Record<'output' | 'tip' | 'tipError' | 'debug_console', OutputCategory> = {
  output: 'log',
  tip: 'important',
  tipError: 'important',
  debug_console: 'console',
};

/**
 * Upstream LuaPanda.lua's first log line after the handshake, "debugger init success": it only
 * repeats what the handshake's answer said already, and would open every Debug Console. Our
 * runtime does not send it; a game that keeps upstream's file does, and the user does not see it.
 */
export function isRuntimeGreeting(cmd: string, text: string): boolean {
  return cmd === 'output' && /^\s*debugger init success\s*$/i.test(text);
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
