/**
 * The DAP debug adapter for type `luapanda`: a thin translation between DAP requests/events and
 * the `LuaSession` model, which holds all session state. It runs out of process (stdio or a
 * socket, see src/cli/dap.ts) and in process (`handleMessage`/`onDidSendMessage`, as VS Code's
 * inline adapter and the MCP tools use it). It never calls `process.exit` itself in those modes.
 */
import {
  ContinuedEvent,
  Event,
  ExitedEvent,
  InitializedEvent,
  LoggingDebugSession,
  Logger,
  logger,
  OutputEvent,
  Scope,
  TerminatedEvent,
  Thread,
  BreakpointEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'node:path';
import { deferred, withTimeout } from '../common/async';
import { TraceSink, TraceTag, Tracer, getProcessTracer, parseTraceTags } from '../common/trace';
import {
  ExceptionFilterSpec,
  LuaSession,
  SessionError,
  SessionErrorCode,
  SessionSettings,
  baseName,
  dialConnector,
  exposureNotice,
  handoffConnector,
  launchConnector,
  listenConnector,
  nativeDirFor,
  reportSummary,
  scanLuaFiles,
  toSessionError,
} from '../session';
import { capabilities } from './capabilities';
import {
  ATTACH_CONNECT_TIMEOUT_S,
  AttachArguments,
  DEFAULT_ATTACH_PORT,
  DEFAULT_INTERPRETERS,
  LAUNCH_CONNECT_TIMEOUT_S,
  LaunchArguments,
  attachArgumentsSchema,
  launchArgumentsSchema,
  parseArguments,
  toSessionSettings,
} from './launchConfig';
import { ENDED_EVENT, EndedEventBody } from './endedEvent';
import { WARNING_EVENT, WarningEventBody } from './warningEvent';
import { evaluateBody } from './evaluation';
import { GameWait, GameWaitSpec } from './gameWait';
import { exceptionFilterBreakpoints, exceptionFilterRequests } from './exceptionFilterArgs';
import type { GameAction } from './gameControl';
import { claimGame, gameTitle, offeredGameId } from './gameHandoff';
import { GameHub } from './gameHub';
import { exceptionInfoBody } from './exceptionInfoBody';
import { COROUTINES_REQUEST, parseCoroutinesArguments } from './coroutinesRequest';
import { HOT_RELOAD_REQUEST, parseHotReloadArguments } from './hotReloadRequest';
import { CHANGES_REQUEST, ChangesResponseBody, withoutChangedSuffix } from './changesRequest';
import { COLLECT_REQUEST, parseCollectArguments } from './collectRequest';
import { findRuntimeDir } from './runtimeLocation';
import { assertPairedExposure } from './exposureGuard';
import {
  dapBreakpoint,
  dapFunctionBreakpoint,
  dapVariable,
  outputCategory,
  stackFrame,
  stoppedEvent,
} from './translate';

/**
 * The library's logger queues every message until `setup` is called, in process forever; we do
 * not use its trace log, so it is set up to log nothing (after each `init`, which `start` does).
 */
const { LogLevel } = Logger;

function silenceLogger(): void {
  logger.init(() => undefined, undefined, false);
  logger.setup(LogLevel.Stop, false);
}

/** What the parent of games answers for each breakpoint: its games' sessions bind them. */
const HUB_BREAKPOINT: DebugProtocol.Breakpoint = {
  verified: false,
  message: "Each game's session binds it (the games are debugged in child sessions).",
};

/** The one thread the parent of games shows: pause, continue and the steps on it act on games. */
const GAMES_THREAD_ID = 1;

function alreadyRunning(): SessionError {
  return new SessionError(
    'invalid-state',
    'This debug adapter already runs a session; start a new one.',
  );
}

/** What a request about a stop fails with once that stop has ended (see respondAboutStop). */
const STOP_ENDED_CODES: ReadonlySet<SessionErrorCode> = new Set<SessionErrorCode>([
  'not-stopped',
  'unknown-frame',
  'invalid-reference',
]);

/** How long launch/attach wait for the client's configurationDone before going on. */
const CONFIGURATION_DONE_TIMEOUT_MS = 10_000;

/** A notification's first line for a failure: its first sentence, whole words, at most ~160 characters. */
export function failureSummary(text: string): string {
  const firstLine = text.split('\n')[0].trim();
  const sentence = /^.*?[.!?](?=\s|$)/.exec(firstLine)?.[0] ?? firstLine;
  if (sentence.length <= 160) return sentence;
  const cut = sentence.slice(0, 160);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), 80))}…`;
}

/** The `trace` launch attribute as validated. */
type TraceSwitch = LaunchArguments['trace'];

export interface LuaDebugSessionOptions {
  /**
   * Whether the games on an attach port get child sessions (default true) when the client opens
   * them. Only an adapter whose child sessions run in this process can hand a connection over
   * (inline, `--server`).
   */
  readonly gamesInChildSessions?: boolean;
  /**
   * Where the lines of a `trace` launch attribute go (VS Code: a log output channel); default,
   * the client's debug console.
   */
  readonly traceSink?: TraceSink;
  /**
   * How a failure that no launch/attach response carries (the attach wait running out, a game
   * that could not be reached) reaches the user: VS Code's extension shows an error notification
   * whose button opens the whole text. Left unset, the adapter sends it as important output, which
   * VS Code shows as an information toast cut to one line.
   */
  readonly notifyFailure?: (summary: string, fullText: string) => void;
}

export class LuaDebugSession extends LoggingDebugSession {
  private session: LuaSession | undefined;
  private readonly configured = deferred();
  /** The client shows progress notifications (and sends `cancel` for them). */
  private clientShowsProgress = false;
  /** The client opens child sessions (DAP `startDebugging`): several games on one port. */
  private clientStartsSessions = false;
  /** VS Code draws nothing for a `changed` attribute: it gets the old value in the value text. */
  private oldValuesInText = false;
  /** An attach session whose games each have a child session: it owns the port, no program. */
  private hub: GameHub | undefined;
  /** A game's child session: tells its parent it has ended. */
  private leaveParent: (() => void) | undefined;
  /** While a launch/attach request is answered: a failure goes into its error response. */
  private failureInResponse = false;
  /** The attach wait shown as progress, while the game is awaited after the attach response. */
  private gameWait: GameWait | undefined;
  /** The process's tracer, plus the `trace` launch attribute's channel once launch/attach came. */
  private tracer: Tracer = getProcessTracer();

  constructor(private readonly options: LuaDebugSessionOptions = {}) {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
    silenceLogger();
  }

  override start(inStream: NodeJS.ReadableStream, outStream: NodeJS.WritableStream): void {
    super.start(inStream, outStream);
    silenceLogger();
  }

  protected override initializeRequest(
    response: DebugProtocol.InitializeResponse,
    args: DebugProtocol.InitializeRequestArguments,
  ): void {
    this.clientShowsProgress = args?.supportsProgressReporting === true;
    this.clientStartsSessions = args?.supportsStartDebuggingRequest === true;
    this.oldValuesInText = args?.clientID === 'vscode';
    response.body = capabilities();
    this.sendResponse(response);
  }

  protected override configurationDoneRequest(
    response: DebugProtocol.ConfigurationDoneResponse,
  ): void {
    this.configured.resolve();
    this.sendResponse(response);
  }

  protected override async launchRequest(
    response: DebugProtocol.LaunchResponse,
    raw: DebugProtocol.LaunchRequestArguments,
  ): Promise<void> {
    await this.respondToStart(response, async () => {
      const args: LaunchArguments = parseArguments(launchArgumentsSchema, raw);
      assertPairedExposure(args);
      const session = this.createSession(toSessionSettings(args), args.trace, raw);
      await this.waitForConfiguration();
      const cwd = session.settings.cwd;
      const runtimeDir = findRuntimeDir(args.runtimePath);
      const connector = await this.orAbandon(session, () =>
        launchConnector({
          program: path.resolve(cwd, args.program),
          args: args.args ?? [],
          cwd,
          // The launched runtime reads the pairing secret from LUAPANDA_SECRET: the one of
          // "connectionSecret", never one this process happens to inherit.
          env: { ...args.env, LUAPANDA_SECRET: session.settings.connectionSecret ?? null },
          interpreters: args.luaPath ? [args.luaPath] : DEFAULT_INTERPRETERS,
          fromLuaPath: args.luaPath !== undefined,
          runtimeDir,
          nativeDir: nativeDirFor(runtimeDir),
          packagePath: args.packagePath,
          requestTimeoutMs: session.settings.requestTimeoutMs,
          noDebug: args.noDebug,
          listenHost: args.connectionHost,
          tracer: session.settings.tracer,
        }),
      );
      // Loopback (the default) goes without saying; a port open to the network is said once.
      const { listening } = connector;
      const exposed =
        listening &&
        exposureNotice(
          listening.host,
          listening.port,
          session.settings.connectionSecret !== undefined,
        );
      if (exposed) this.sendEvent(new OutputEvent(`${exposed}\n`, 'console'));
      await session.start(connector, {
        noDebug: args.noDebug,
        connectTimeoutMs: (args.connectionTimeout ?? LAUNCH_CONNECT_TIMEOUT_S) * 1000,
      });
    });
  }

  /**
   * Attach: listen for the game (or dial it). A client that shows progress gets the response at
   * once — it then shows the session, with Stop, while a cancellable progress notification says
   * where the game is awaited; others get it once the game connected (or did not).
   */
  protected override async attachRequest(
    response: DebugProtocol.AttachResponse,
    raw: DebugProtocol.AttachRequestArguments,
  ): Promise<void> {
    const gameId = offeredGameId(raw);
    if (gameId !== undefined) {
      await this.attachOfferedGame(response, raw, gameId);
      return;
    }
    await this.respondToStart(response, async () => {
      const args: AttachArguments = parseArguments(attachArgumentsSchema, raw);
      assertPairedExposure(args);
      const childSessions = this.options.gamesInChildSessions !== false;
      if (this.clientStartsSessions && childSessions && !args.VSCodeAsClient) {
        await this.attachAsHub(args, raw);
        return;
      }
      const session = this.createSession(toSessionSettings(args), args.trace, raw);
      await this.waitForConfiguration();
      const tracer = session.settings.tracer;
      const port = args.connectionPort ?? DEFAULT_ATTACH_PORT;
      const requestTimeoutMs = session.settings.requestTimeoutMs;
      const seconds = args.connectionTimeout ?? ATTACH_CONNECT_TIMEOUT_S;
      const dialHost = args.VSCodeAsClient ? (args.connectionIP ?? '127.0.0.1') : undefined;
      const listenHost = args.connectionHost;
      const connector =
        dialHost !== undefined
          ? dialConnector({
              host: dialHost,
              port,
              requestTimeoutMs,
              connectionTimeoutS: seconds,
              tracer,
            })
          : await this.orAbandon(session, () =>
              listenConnector({
                port,
                host: listenHost,
                requestTimeoutMs,
                connectionTimeoutS: seconds,
                tracer,
              }),
            );
      await this.waitForGame(
        {
          port,
          dialHost,
          listenHost,
          seconds,
          secured: session.settings.connectionSecret !== undefined,
        },
        () => session.start(connector, { connectTimeoutMs: seconds * 1000 }),
        'The game connected.',
      );
    });
  }

  /**
   * The wait for the game of an attach (plain or as the hub of games): a console line says where
   * the game is awaited, then `start` begins the wait. A client that shows progress gets the
   * attach response at once, with a cancellable progress notification that ends with `connected`
   * or the failure's first line; others get the response once the game connected (or did not).
   */
  private async waitForGame(
    spec: GameWaitSpec,
    start: () => Promise<void>,
    connected: string,
  ): Promise<void> {
    const wait = new GameWait(spec, (event) => this.sendEvent(event));
    // The console line says where it listens: beyond this machine too, when it does.
    this.sendEvent(new OutputEvent(wait.consoleLine(), 'console'));
    const started = start();
    if (!this.clientShowsProgress) {
      await started;
      return;
    }
    this.gameWait = wait;
    wait.begin();
    // From here a failure is told by the session's end (once), not by the attach response.
    this.failureInResponse = false;
    started.then(
      () => wait.end(connected),
      (error: unknown) => wait.end(toSessionError(error).message.split('\n')[0]),
    );
  }

  /** The client cancelled a progress notification: the attach wait ends at once. */
  protected override cancelRequest(
    response: DebugProtocol.CancelResponse,
    args: DebugProtocol.CancelArguments,
  ): void {
    if (this.gameWait?.isOpen(args?.progressId)) void this.stopAll();
    this.sendResponse(response);
  }

  protected override async setBreakPointsRequest(
    response: DebugProtocol.SetBreakpointsResponse,
    args: DebugProtocol.SetBreakpointsArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      const file = args.source.path;
      if (file === undefined)
        throw new SessionError('not-supported', 'Breakpoints need a source file path.');
      if (this.hub) {
        response.body = { breakpoints: (args.breakpoints ?? []).map(() => HUB_BREAKPOINT) };
        return;
      }
      const specs = (args.breakpoints ?? []).map((bp) => ({
        line: this.convertClientLineToDebugger(bp.line),
        condition: bp.condition,
        hitCondition: bp.hitCondition,
        logMessage: bp.logMessage,
      }));
      const list = await this.requireSession().setBreakpoints(file, specs);
      response.body = { breakpoints: list.map(dapBreakpoint) };
    });
  }

  protected override async setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      if (this.hub) {
        response.body = { breakpoints: args.breakpoints.map(() => HUB_BREAKPOINT) };
        return;
      }
      const specs = args.breakpoints.map((bp) => ({
        name: bp.name,
        condition: bp.condition,
        hitCondition: bp.hitCondition,
        // (Not in DAP's FunctionBreakpoint; a client may send it as it does for source lines.)
        logMessage: (bp as { logMessage?: string }).logMessage,
      }));
      const list = await this.requireSession().setFunctionBreakpoints(specs);
      response.body = { breakpoints: list.map(dapFunctionBreakpoint) };
    });
  }

  protected override async setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      const requests = exceptionFilterRequests(args);
      const specs = requests.filter((r): r is ExceptionFilterSpec => r !== undefined);
      // The parent of games keeps none: the client sends each game's session its own.
      const results = this.hub
        ? specs.map(() => ({ verified: true }))
        : await this.requireSession().setExceptionFilters(specs);
      response.body = { breakpoints: exceptionFilterBreakpoints(requests, results) };
    });
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    // The parent of games runs no program; each game's threads are in its own session. It shows
    // one thread, for its games: VS Code's pause acts on a thread of the focused session, and
    // with none it would do nothing at all (VS Code draws a lone thread as its session's row).
    const threads = this.hub
      ? [{ id: GAMES_THREAD_ID, name: 'Games' }]
      : (this.session?.threads() ?? [{ id: 1, name: 'main' }]);
    response.body = { threads: threads.map((t) => new Thread(t.id, t.name)) };
    this.sendResponse(response);
  }

  protected override async stackTraceRequest(
    response: DebugProtocol.StackTraceResponse,
    args: DebugProtocol.StackTraceArguments,
  ): Promise<void> {
    await this.respondAboutStop(response, async () => {
      const { frames, total } = this.requireSession().stackTrace(
        args.threadId,
        args.startFrame ?? 0,
        args.levels,
      );
      response.body = { stackFrames: frames.map(stackFrame), totalFrames: total };
    });
  }

  protected override async scopesRequest(
    response: DebugProtocol.ScopesResponse,
    args: DebugProtocol.ScopesArguments,
  ): Promise<void> {
    await this.respondAboutStop(response, async () => {
      const scopes = this.requireSession().scopes(args.frameId);
      response.body = {
        scopes: scopes.map((s) => {
          const scope = new Scope(s.name, s.variablesReference, s.expensive) as DebugProtocol.Scope;
          if (s.kind === 'locals') scope.presentationHint = 'locals';
          return scope;
        }),
      };
    });
  }

  protected override async variablesRequest(
    response: DebugProtocol.VariablesResponse,
    args: DebugProtocol.VariablesArguments,
  ): Promise<void> {
    await this.respondAboutStop(response, async () => {
      // Large values are listed as index ranges (session/ranges.ts): no separate named part.
      if (args.filter === 'named') {
        response.body = { variables: [] };
        return;
      }
      const variables = await this.requireSession().getVariables(args.variablesReference, {
        start: args.start,
        count: args.count !== undefined && args.count > 0 ? args.count : undefined,
      });
      response.body = {
        variables: variables.map((v) => dapVariable(v, { oldValueInText: this.oldValuesInText })),
      };
    });
  }

  protected override async evaluateRequest(
    response: DebugProtocol.EvaluateResponse,
    args: DebugProtocol.EvaluateArguments,
  ): Promise<void> {
    try {
      response.body = await evaluateBody(this.requireSession(), args);
      this.sendResponse(response);
    } catch (error) {
      // Never a notification: the console (REPL) or the Watch view shows the failure in place.
      const failure = toSessionError(error, 'evaluate-failed');
      this.sendErrorResponse(response, {
        id: failure.id,
        format: failure.message,
        showUser: false,
      });
    }
  }

  protected override async setVariableRequest(
    response: DebugProtocol.SetVariableResponse,
    args: DebugProtocol.SetVariableArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      const result = await this.requireSession().setVariable(
        args.variablesReference,
        args.name,
        withoutChangedSuffix(args.value),
      );
      response.body = {
        value: result.value,
        type: result.type,
        variablesReference: result.variablesReference,
      };
    });
  }

  protected override async continueRequest(
    response: DebugProtocol.ContinueResponse,
    args: DebugProtocol.ContinueArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      if (this.hub) await this.actOnGames('continue');
      else await this.requireSession().continue(args.threadId);
      response.body = { allThreadsContinued: true };
    });
  }

  protected override async nextRequest(
    response: DebugProtocol.NextResponse,
    args: DebugProtocol.NextArguments,
  ): Promise<void> {
    await this.respond(response, () =>
      this.hub ? this.actOnGames('stepOver') : this.requireSession().stepOver(args.threadId),
    );
  }

  protected override async stepInRequest(
    response: DebugProtocol.StepInResponse,
    args: DebugProtocol.StepInArguments,
  ): Promise<void> {
    await this.respond(response, () =>
      this.hub ? this.actOnGames('stepIn') : this.requireSession().stepIn(args.threadId),
    );
  }

  protected override async stepOutRequest(
    response: DebugProtocol.StepOutResponse,
    args: DebugProtocol.StepOutArguments,
  ): Promise<void> {
    await this.respond(response, () =>
      this.hub ? this.actOnGames('stepOut') : this.requireSession().stepOut(args.threadId),
    );
  }

  protected override async pauseRequest(response: DebugProtocol.PauseResponse): Promise<void> {
    await this.respond(response, () =>
      this.hub ? this.actOnGames('pause') : this.requireSession().pause(),
    );
  }

  /** The parent of games does what it was asked to its games, and says which in its console. */
  private async actOnGames(action: GameAction): Promise<void> {
    if (!this.hub) return;
    const games = await this.hub.act(action);
    const verb = action === 'pause' ? 'Paused' : action === 'continue' ? 'Continued' : 'Stepped';
    this.sendEvent(
      new OutputEvent(`${verb} ${games.map((name) => `"${name}"`).join(', ')}.\n`, 'console'),
    );
  }

  protected override async exceptionInfoRequest(
    response: DebugProtocol.ExceptionInfoResponse,
  ): Promise<void> {
    await this.respond(response, async () => {
      const stop = this.requireSession().stop;
      if (stop?.reason !== 'exception') {
        throw new SessionError('not-stopped', 'The program is not stopped on an exception.');
      }
      response.body = exceptionInfoBody(stop);
    });
  }

  protected override async disconnectRequest(
    response: DebugProtocol.DisconnectResponse,
    args: DebugProtocol.DisconnectArguments,
  ): Promise<void> {
    await this.respond(response, async () => {
      await this.stopAll({ terminateDebuggee: args?.terminateDebuggee });
    });
  }

  protected override async terminateRequest(
    response: DebugProtocol.TerminateResponse,
  ): Promise<void> {
    await this.respond(response, async () => {
      await this.stopAll();
    });
  }

  /** Our custom requests (hotReloadRequest.ts, changesRequest.ts, coroutinesRequest.ts,
   * collectRequest.ts); others get the library's "unrecognized". */
  protected override async customRequest(
    command: string,
    response: DebugProtocol.Response,
    args: unknown,
  ): Promise<void> {
    if (command === CHANGES_REQUEST) {
      await this.respond(
        response,
        async () => {
          const body: ChangesResponseBody = { changes: await this.requireSession().stopChanges() };
          response.body = body;
        },
        { showUser: false },
      );
      return;
    }
    if (command === COROUTINES_REQUEST) {
      await this.respond(
        response,
        async () => {
          response.body = await this.requireSession().coroutines(parseCoroutinesArguments(args));
        },
        { showUser: false },
      );
      return;
    }
    if (command === COLLECT_REQUEST) {
      // Not shown by the client: the agent that asked reads the failure in its tool result.
      await this.respond(
        response,
        async () => {
          const parsed = parseCollectArguments(args);
          const session = this.requireSession();
          const where =
            parsed.functionName !== undefined
              ? { functionName: parsed.functionName }
              : {
                  path: path.resolve(session.settings.cwd, parsed.path ?? ''),
                  line: parsed.line ?? 1,
                };
          response.body = await session.collect({
            ...where,
            expressions: parsed.expressions,
            hitLimit: parsed.hitLimit,
            timeoutMs: Math.round(parsed.timeoutSeconds * 1000),
            ...(parsed.condition?.trim() ? { condition: parsed.condition } : {}),
          });
        },
        { showUser: false },
      );
      return;
    }
    if (command !== HOT_RELOAD_REQUEST) {
      super.customRequest(command, response, args);
      return;
    }
    // Not shown by the client: the one who asked (the editor command, an agent) says it, and the
    // Debug Console gets the summary below.
    await this.respond(
      response,
      async () => {
        const { path: file, source } = parseHotReloadArguments(args);
        try {
          const report = await this.requireSession().hotReload(file, source);
          this.sendEvent(new OutputEvent(`${reportSummary(report).join('\n')}\n`, 'console'));
          response.body = report;
        } catch (error) {
          const failure = toSessionError(error);
          const name = baseName(file);
          this.sendEvent(
            new OutputEvent(`Hot reload ${name} failed: ${failure.message}\n`, 'console'),
          );
          throw failure;
        }
      },
      { showUser: false },
    );
  }

  /** The DAP link is gone: a launched program must not outlive it. */
  override shutdown(): void {
    void this.stopAll();
    super.shutdown();
  }

  /** VS Code (inline) and the MCP tools dispose of the adapter when they are done with it. */
  override dispose(): void {
    void this.stopAll();
    super.dispose();
  }

  // ---------------------------------------------------------------------------------------------
  // Several games on one port (gameHandoff.ts)

  /**
   * Attach as the parent of games (gameHub.ts): listen, and hand every game to a child session.
   * As for a plain attach, a client that shows progress gets the response at once.
   */
  private async attachAsHub(
    args: AttachArguments,
    raw: DebugProtocol.AttachRequestArguments,
  ): Promise<void> {
    if (this.session || this.hub) throw alreadyRunning();
    this.startTrace(args.trace, raw);
    const settings = { ...toSessionSettings(args), tracer: this.tracer };
    const hub = new GameHub(settings, raw as Record<string, unknown>, {
      output: (category, text) => this.sendEvent(new OutputEvent(text, category)),
      openChild: (configuration) => this.openChildSession(configuration),
      ended: (reason, error) => this.announceEnd(reason, error),
    });
    this.hub = hub;
    // Now the client may send breakpoints (answered for the games) and configurationDone.
    this.sendEvent(new InitializedEvent());
    await this.waitForConfiguration();
    const port = args.connectionPort ?? DEFAULT_ATTACH_PORT;
    const seconds = args.connectionTimeout ?? ATTACH_CONNECT_TIMEOUT_S;
    const listenHost = args.connectionHost;
    await hub.listen({
      port,
      host: listenHost,
      requestTimeoutMs: settings.requestTimeoutMs,
      connectionTimeoutS: seconds,
      tracer: settings.tracer,
    });
    await this.waitForGame(
      { port, listenHost, seconds, secured: settings.connectionSecret !== undefined },
      () => hub.start(seconds * 1000),
      'A game connected.',
    );
  }

  /** Asks the client for a game's session; resolves with why it refused, if it did. */
  private openChildSession(configuration: Record<string, unknown>): Promise<string | undefined> {
    return new Promise((resolve) => {
      this.sendRequest(
        'startDebugging',
        { request: 'attach', configuration } satisfies DebugProtocol.StartDebuggingRequestArguments,
        10_000,
        (reply) => resolve(reply.success ? undefined : (reply.message ?? 'the client refused')),
      );
    });
  }

  /** A child session for a game its parent offered: it takes the connection over. */
  private async attachOfferedGame(
    response: DebugProtocol.AttachResponse,
    raw: DebugProtocol.AttachRequestArguments,
    id: string,
  ): Promise<void> {
    await this.respondToStart(response, async () => {
      const args: AttachArguments = parseArguments(attachArgumentsSchema, raw);
      const offer = claimGame(id);
      if (!offer) {
        throw new SessionError(
          'no-connection',
          'The game this session was opened for has gone (it disconnected, or its session opened too late).',
        );
      }
      const session = this.createSession(toSessionSettings(args), args.trace, raw);
      this.leaveParent = offer.join?.({
        name: args.name ?? gameTitle(offer.handshake, 'Lua game'),
        session,
        stop: () => session.stopSession(),
      });
      await this.waitForConfiguration();
      await session.start(handoffConnector(offer.connection, offer.handshake, offer.endpoint));
    });
  }

  // ---------------------------------------------------------------------------------------------

  private createSession(
    settings: SessionSettings,
    trace: TraceSwitch,
    request: object,
  ): LuaSession {
    if (this.session || this.hub) throw alreadyRunning();
    this.startTrace(trace, request);
    const session = new LuaSession(
      { ...settings, tracer: this.tracer },
      scanLuaFiles(settings.cwd, settings.luaFileExtension),
    );
    this.session = session;
    this.subscribe(session);
    // Now the client may send breakpoints and configurationDone.
    this.sendEvent(new InitializedEvent());
    return session;
  }

  /**
   * The `trace` attribute adds its tags, to the trace sink or the debug console; the trace then
   * starts with the request that asked for it.
   */
  private startTrace(trace: TraceSwitch, request: object): void {
    const tags = parseTraceTags(trace);
    if (tags.length === 0) return;
    const sink = this.options.traceSink ?? ((tag, text) => this.sendTraceLine(tag, text));
    this.tracer = this.tracer.with(tags, sink);
    this.tracer.log(
      'dap',
      () => `trace on (${tags.join(', ')}); arguments ${JSON.stringify(request)}`,
    );
  }

  /** A trace line in the debug console; not itself traced (it would trace itself for ever). */
  private sendTraceLine(tag: TraceTag, text: string): void {
    super.sendEvent(new OutputEvent(`[${tag}] ${text}\n`, 'console'));
  }

  protected override dispatchRequest(request: DebugProtocol.Request): void {
    this.tracer.log('dap', () => `→ ${JSON.stringify(request)}`);
    super.dispatchRequest(request);
  }

  override sendResponse(response: DebugProtocol.Response): void {
    this.tracer.log('dap', () => `← ${JSON.stringify(response)}`);
    super.sendResponse(response);
  }

  override sendEvent(event: DebugProtocol.Event): void {
    this.tracer.log('dap', () => `← ${JSON.stringify(event)}`);
    super.sendEvent(event);
  }

  private subscribe(session: LuaSession): void {
    session.on('stopped', (stop) => this.sendEvent(stoppedEvent(stop)));
    session.on('continued', (c) =>
      this.sendEvent(new ContinuedEvent(c.threadId, c.allThreadsContinued)),
    );
    session.on('output', (entry) =>
      this.sendEvent(new OutputEvent(entry.text, outputCategory(entry.category))),
    );
    session.on('breakpoints', (list) => {
      for (const bp of list) this.sendEvent(new BreakpointEvent('changed', dapBreakpoint(bp)));
    });
    session.on('functionBreakpoints', (list) => {
      for (const bp of list) {
        this.sendEvent(new BreakpointEvent('changed', dapFunctionBreakpoint(bp)));
      }
    });
    session.on('warning', (text) => {
      const body: WarningEventBody = { text };
      this.sendEvent(new Event(WARNING_EVENT, body));
    });
    session.on('process', (p) =>
      this.sendEvent(
        new Event('process', {
          name: p.name,
          systemProcessId: p.pid,
          isLocalProcess: true,
          startMethod: 'launch',
        }),
      ),
    );
    session.on('exited', (e) => this.sendEvent(new ExitedEvent(e.exitCode)));
    session.on('terminated', (t) => {
      this.leaveParent?.();
      this.announceEnd(t.reason, t.error);
    });
  }

  /**
   * Says why the session ended (a dropped link, the exit code, an error), then ends it. An error
   * is shown to the user once: by the failed launch/attach response when there is one (a dialog
   * in VS Code), else as important output (a notification).
   */
  private announceEnd(reason: string, error: SessionError | undefined): void {
    const shown = error !== undefined && !this.failureInResponse;
    const notify = shown ? this.options.notifyFailure : undefined;
    this.sendEvent(new OutputEvent(`${reason}\n`, shown && !notify ? 'important' : 'console'));
    notify?.(failureSummary(reason), reason);
    this.gameWait?.end(reason.split('\n')[0]);
    const body: EndedEventBody = {
      reason,
      ...(error ? { error: { code: error.code, id: error.id } } : {}),
    };
    this.sendEvent(new Event(ENDED_EVENT, body));
    this.sendEvent(new TerminatedEvent());
  }

  /** Ends the session: the parent of games ends its games' sessions too. */
  private stopAll(options: { terminateDebuggee?: boolean } = {}): Promise<void> {
    if (this.hub) return this.hub.stop();
    return this.session?.stopSession(options) ?? Promise.resolve();
  }

  private async waitForConfiguration(): Promise<void> {
    await withTimeout(this.configured.promise, CONFIGURATION_DONE_TIMEOUT_MS);
  }

  /** Runs `make`; if it fails, the session ends with that error before it is rethrown. */
  private async orAbandon<T>(session: LuaSession, make: () => Promise<T>): Promise<T> {
    try {
      return await make();
    } catch (error) {
      const failure = toSessionError(error, 'invalid-configuration');
      await session.abandon(failure);
      throw failure;
    }
  }

  private requireSession(): LuaSession {
    if (this.hub) {
      throw new SessionError(
        'not-supported',
        `This session listens for games on ${this.hub.endpoint} and runs no program itself: ` +
          "each game is debugged in a session of its own under it. Use a game's session.",
      );
    }
    if (!this.session) {
      throw new SessionError('not-active', 'No Lua session: launch or attach first.');
    }
    return this.session;
  }

  /**
   * Answers launch or attach: while it runs, a failure is reported by the response alone, and
   * without `showUser`. VS Code shows a failed launch or attach in a dialog (with "Open
   * launch.json") unless `showUser` is false, and shows an error with `showUser: true` as a
   * notification as well: the same message twice. Left unset, the user sees it once, in the
   * dialog; other clients show a failed launch as they always do.
   */
  private async respondToStart<R extends DebugProtocol.Response>(
    response: R,
    handler: () => Promise<void>,
  ): Promise<void> {
    this.failureInResponse = true;
    try {
      await this.respond(response, handler, {});
    } finally {
      this.failureInResponse = false;
    }
  }

  /**
   * Answers a view's request for the current stop's data (call stack, scopes, variables). When
   * the program was resumed from elsewhere (an agent, another client) while VS Code was still
   * reading the stop it had shown, its requests about that stop fail; the views show such a
   * failure in place and a `continued` event follows, so it is not a notification as well.
   */
  private respondAboutStop<R extends DebugProtocol.Response>(
    response: R,
    handler: () => Promise<void> | void,
  ): Promise<void> {
    return this.respond(response, handler, (failure) => ({
      showUser: !STOP_ENDED_CODES.has(failure.code),
    }));
  }

  /**
   * Runs a request handler; a failure becomes an error response with the session error's id,
   * shown to the user (`showUser: true`) unless `display` says otherwise (`{}`: left unset).
   */
  private async respond<R extends DebugProtocol.Response>(
    response: R,
    handler: () => Promise<void> | void,
    display: { showUser?: boolean } | ((failure: SessionError) => { showUser?: boolean }) = {
      showUser: true,
    },
  ): Promise<void> {
    try {
      await handler();
      this.sendResponse(response);
    } catch (error) {
      const failure =
        error instanceof SessionError ? error : toSessionError(error, 'invalid-configuration');
      this.sendErrorResponse(response, {
        id: failure.id,
        format: failure.message,
        ...(typeof display === 'function' ? display(failure) : display),
      });
    }
  }
}
