/**
 * The channel without VS Code: each session is a debug adapter created in this process and
 * driven over in-memory DAP, with the start-up sequence VS Code performs (initialize, launch or
 * attach, the `initialized` event, breakpoints, exception filters, configurationDone).
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { settleWithin } from '../../common/async';
import { DebugChannel, DebugSessionPort, LaunchConfiguration, StartOptions } from '../channel';
import { DapClient, DapEndpoint } from './dapClient';
import {
  ExceptionFilterEntry,
  ExceptionFilterState,
  exceptionBreakpointsArgs,
} from '../exceptionFilters';
import { HeadlessBreakpoints } from './headlessBreakpoints';
import { resolveVariables } from '../launchConfig';
import { ChannelEventSource } from '../channelEvents';

export interface HeadlessChannelOptions {
  workspaceFolder: string;
  /** Creates an in-process adapter for a debug type, or undefined when the type is not served. */
  createAdapter: (type: string) => DapEndpoint | undefined;
  /** Longest wait for the adapter to accept a launch or attach (attach waits for the game). */
  startTimeoutMs?: number;
  /** Longest wait for a session to end after it was asked to. */
  stopTimeoutMs?: number;
}

class HeadlessSession implements DebugSessionPort {
  ended = false;
  /** The launch/attach request is pending: an end now waits for its answer, which says why. */
  starting = false;
  terminatedWhileStarting = false;
  capabilities: DebugProtocol.Capabilities = {};
  readonly exceptionFilters = new ExceptionFilterState();
  constructor(
    readonly id: string,
    readonly name: string,
    readonly type: string,
    readonly request: string,
    readonly client: DapClient,
    readonly adapter: DapEndpoint,
    readonly parentId: string | undefined,
  ) {}

  customRequest(command: string, args?: unknown, timeoutMs?: number): Promise<unknown> {
    this.exceptionFilters.noteRequest(command, args);
    return this.client.request(command, args, timeoutMs);
  }
}

export class HeadlessChannel extends ChannelEventSource implements DebugChannel {
  readonly breakpoints = new HeadlessBreakpoints();
  private readonly live = new Map<string, HeadlessSession>();
  private counter = 0;

  constructor(private readonly options: HeadlessChannelOptions) {
    super();
  }

  workspaceFolders(): string[] {
    return [this.options.workspaceFolder];
  }

  startDebugging(config: LaunchConfiguration, options: StartOptions): Promise<DebugSessionPort> {
    return this.start(config, options, undefined);
  }

  /** Starts a session; `parentId`: the attach session a further game came in on. */
  private async start(
    config: LaunchConfiguration,
    options: StartOptions,
    parentId: string | undefined,
  ): Promise<DebugSessionPort> {
    const resolved = withSecretFromEnvironment(
      resolveVariables(config, this.options.workspaceFolder),
    );
    const adapter = this.options.createAdapter(resolved.type);
    if (!adapter) {
      throw new Error(
        `The configuration "${config.name}" is of type "${config.type}", which the headless server cannot debug; ` +
          'it debugs "luapanda" configurations. Use the VS Code extension to debug other languages.',
      );
    }
    const client = new DapClient(adapter);
    // A game on an attach port: the adapter asks for a session of its own (as VS Code opens a
    // child session). It starts beside this one, with this one's exception filters and the
    // breakpoints; the attach session, which runs no program, binds none from now on.
    client.reverseRequests.set('startDebugging', async (args) => {
      const request = args as DebugProtocol.StartDebuggingRequestArguments;
      this.breakpoints.detach(session.id);
      const child = { ...request.configuration, request: request.request } as LaunchConfiguration;
      const filters = session.exceptionFilters.active;
      void this.start(
        child,
        { noDebug: false, ...(filters ? { exceptionFilters: filters } : {}) },
        session.id,
      ).catch(() => undefined);
      return undefined;
    });
    const session = new HeadlessSession(
      `session-${++this.counter}`,
      resolved.name,
      resolved.type,
      resolved.request,
      client,
      adapter,
      parentId,
    );
    this.live.set(session.id, session);
    this.emitter.emit('started', session);
    const initialized = new Promise<void>((resolve) => {
      client.on('event', (event) => {
        if (event.event === 'initialized') resolve();
        this.onAdapterEvent(session, event);
      });
    });
    session.starting = true;
    try {
      session.capabilities =
        ((await client.request('initialize', {
          clientID: 'luapanda-mcp',
          clientName: 'LuaPanda MCP (headless)',
          adapterID: resolved.type,
          locale: 'en',
          linesStartAt1: true,
          columnsStartAt1: true,
          pathFormat: 'path',
          supportsVariableType: true,
          supportsVariablePaging: true,
          // As VS Code does: the session then exists at once, and its waits show as progress.
          supportsProgressReporting: true,
          supportsStartDebuggingRequest: true,
        } satisfies DebugProtocol.InitializeRequestArguments)) as
          DebugProtocol.Capabilities | undefined) ?? {};
      session.exceptionFilters.noteCapabilities(session.capabilities);
      const command = resolved.request === 'attach' ? 'attach' : 'launch';
      const started = client.request(
        command,
        { ...resolved, noDebug: options.noDebug },
        this.options.startTimeoutMs ?? 120_000,
      );
      // Adapters may answer launch only after configurationDone; configure as soon as they are ready.
      const configured = Promise.race([initialized, started]).then(() =>
        this.configure(session, options.exceptionFilters),
      );
      await Promise.all([started, configured]);
      return session;
    } catch (error) {
      this.end(session);
      throw error;
    } finally {
      session.starting = false;
      if (session.terminatedWhileStarting) this.end(session);
    }
  }

  async stopDebugging(port: DebugSessionPort): Promise<void> {
    const session = this.live.get(port.id);
    if (!session) return;
    const ended = new Promise<void>((resolve) => {
      const onEnded = (s: DebugSessionPort) => {
        if (s.id !== session.id) return;
        this.emitter.off('ended', onEnded);
        resolve();
      };
      this.emitter.on('ended', onEnded);
    });
    const launched = session.request !== 'attach';
    const request =
      launched && session.capabilities.supportsTerminateRequest
        ? session.client.request('terminate', {})
        : session.client.request('disconnect', { terminateDebuggee: launched });
    await settleWithin(
      request.then(() => ended),
      this.options.stopTimeoutMs ?? 5_000,
    );
    this.end(session);
  }

  activeSession(): DebugSessionPort | undefined {
    return [...this.live.values()].at(-1);
  }

  sessions(): DebugSessionPort[] {
    return [...this.live.values()];
  }

  /** Ends every session; used when the server shuts down. */
  async dispose(): Promise<void> {
    await Promise.all([...this.live.values()].map((session) => this.stopDebugging(session)));
  }

  private configured = new WeakSet<HeadlessSession>();

  private async configure(
    session: HeadlessSession,
    exceptionFilters: readonly ExceptionFilterEntry[] | undefined,
  ): Promise<void> {
    if (this.configured.has(session)) return;
    this.configured.add(session);
    await this.breakpoints.attach({
      id: session.id,
      request: (command, args) => session.client.requestInOrder(command, args),
    });
    if (session.capabilities.exceptionBreakpointFilters) {
      const filters = exceptionFilters ?? session.exceptionFilters.defaults();
      await session.customRequest('setExceptionBreakpoints', exceptionBreakpointsArgs(filters));
    }
    if (session.capabilities.supportsConfigurationDoneRequest) {
      await session.client.request('configurationDone', {});
    }
  }

  private onAdapterEvent(session: HeadlessSession, event: DebugProtocol.Event): void {
    if (session.ended) return;
    if (event.event === 'breakpoint') {
      const { body, seq } = event as DebugProtocol.BreakpointEvent;
      this.breakpoints.onAdapterEvent(session.id, body, seq);
    }
    this.emitter.emit('event', session, event);
    if (event.event !== 'terminated') return;
    // A failed start ends the session before its error response comes: keep the client for it.
    if (session.starting) session.terminatedWhileStarting = true;
    else this.end(session);
  }

  private end(session: HeadlessSession): void {
    if (session.ended) return;
    session.ended = true;
    this.live.delete(session.id);
    this.breakpoints.detach(session.id);
    session.client.dispose();
    session.adapter.dispose();
    this.emitter.emit('ended', session);
  }
}

/**
 * The headless server's own environment gives a `luapanda` configuration its pairing secret
 * (LUAPANDA_SECRET, the variable the game's runtime reads too) when launch.json names none.
 */
function withSecretFromEnvironment(config: LaunchConfiguration): LaunchConfiguration {
  const secret = process.env.LUAPANDA_SECRET;
  if (config.type !== 'luapanda' || config.connectionSecret !== undefined || !secret) return config;
  return { ...config, connectionSecret: secret };
}
