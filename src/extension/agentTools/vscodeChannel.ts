/**
 * The MCP tools' debug channel over VS Code's own debug API, so the tools drive exactly the
 * sessions the human sees — Lua through our inline adapter, and any other debugger the user has.
 * A debug adapter tracker for every type watches each session's DAP traffic (events for the
 * session monitor, setBreakpoints answers for breakpoint ids). Child sessions (js-debug starts one
 * per process) are folded into their root session: the agent sees one session, whose requests go
 * to the child that last stopped.
 */
import { randomUUID } from 'node:crypto';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as vscode from 'vscode';
import { withTimeout } from '../../common/async';
import { offeredGameId } from '../../adapter/gameHandoff';
import {
  DebugChannel,
  DebugSessionPort,
  LaunchConfiguration,
  StartOptions,
} from '../../mcp/channel';
import { VscodeBreakpoints } from './vscodeBreakpoints';
import { ChannelEventSource } from '../../mcp/channelEvents';
import {
  ExceptionFilterEntry,
  ExceptionFilterState,
  exceptionBreakpointsArgs,
} from '../../mcp/exceptionFilters';

/** Marks the configurations the channel starts, so it can find the session VS Code creates. */
const START_MARKER = '__luapandaMcpStart';

/** Requests that address a stopped thread: sent to the child session that last stopped. */
const THREAD_REQUESTS = new Set([
  'threads',
  'stackTrace',
  'scopes',
  'variables',
  'evaluate',
  'setVariable',
  'setExpression',
  'continue',
  'next',
  'stepIn',
  'stepOut',
  'pause',
  'exceptionInfo',
]);

class VscodeSessionPort implements DebugSessionPort {
  /** Descendant sessions (js-debug's per-process children), oldest first. */
  readonly children: vscode.DebugSession[] = [];
  /** The session (this or a child) that stopped last: thread requests go there. */
  focus: vscode.DebugSession;
  ended = false;
  readonly exceptionFilters = new ExceptionFilterState();
  /** The exception filters an agent started it with: its games' sessions get them too. */
  startFilters: readonly ExceptionFilterEntry[] | undefined;

  constructor(
    readonly session: vscode.DebugSession,
    /** The root of the attach session a further game came in on, for a game's own session. */
    readonly parentId?: string,
  ) {
    this.focus = session;
  }
  get id(): string {
    return this.session.id;
  }
  get name(): string {
    return this.session.name;
  }
  get type(): string {
    return this.session.type;
  }
  customRequest(command: string, args?: unknown): Promise<unknown> {
    const target = THREAD_REQUESTS.has(command) ? this.target() : this.session;
    return Promise.resolve(target.customRequest(command, args));
  }
  private target(): vscode.DebugSession {
    if (this.focus !== this.session) return this.focus;
    // Before any stop, the newest child does the work (js-debug's root has no threads).
    return this.children.at(-1) ?? this.session;
  }
}

export class VscodeDebugChannel
  extends ChannelEventSource
  implements DebugChannel, vscode.Disposable
{
  readonly breakpoints: VscodeBreakpoints;
  /** Root sessions by VS Code session id. */
  private readonly roots = new Map<string, VscodeSessionPort>();
  /** Every known session id (roots and children) → its root port. */
  private readonly rootOf = new Map<string, VscodeSessionPort>();
  /** Launch or attach failures seen by the tracker, by start marker. */
  private readonly startFailures = new Map<string, string>();
  /** Exception filters a tool asked for at start, by start marker. */
  private readonly startFilters = new Map<string, readonly ExceptionFilterEntry[]>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    super();
    this.breakpoints = new VscodeBreakpoints((sessionId) => this.familyOf(sessionId));
    this.subscriptions.push(
      this.breakpoints,
      vscode.debug.registerDebugAdapterTrackerFactory('*', {
        createDebugAdapterTracker: (session) => this.track(session),
      }),
      vscode.debug.onDidTerminateDebugSession((session) => this.onTerminated(session)),
    );
  }

  workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  }

  async startDebugging(
    config: LaunchConfiguration,
    options: StartOptions,
  ): Promise<DebugSessionPort> {
    const marker = randomUUID();
    if (options.exceptionFilters) this.startFilters.set(marker, options.exceptionFilters);
    const folder = vscode.workspace.workspaceFolders?.[0];
    let onStarted: ((port: DebugSessionPort) => void) | undefined;
    const found = new Promise<VscodeSessionPort>((resolve) => {
      onStarted = (port: DebugSessionPort): void => {
        const candidate = port as VscodeSessionPort;
        if (candidate.session.configuration[START_MARKER] === marker) resolve(candidate);
      };
      this.emitter.on('started', onStarted);
    });
    try {
      const ok = await vscode.debug.startDebugging(
        folder,
        { ...config, [START_MARKER]: marker },
        { noDebug: options.noDebug },
      );
      const failure = this.startFailures.get(marker);
      if (!ok) {
        throw new Error(
          failure ??
            `VS Code could not start "${config.name}" (type "${config.type}"): is the debugger extension installed and the configuration valid?`,
        );
      }
      const port = await withTimeout(found, 5000);
      if (!port) {
        throw new Error(`VS Code started "${config.name}" but its session did not appear.`);
      }
      return port;
    } finally {
      this.startFailures.delete(marker);
      this.startFilters.delete(marker);
      if (onStarted) this.emitter.off('started', onStarted);
    }
  }

  async stopDebugging(port: DebugSessionPort): Promise<void> {
    const root = this.roots.get(port.id);
    if (!root || root.ended) return;
    const ended = new Promise<void>((resolve) => {
      const onEnded = (p: DebugSessionPort): void => {
        if (p.id !== root.id) return;
        this.emitter.off('ended', onEnded);
        resolve();
      };
      this.emitter.on('ended', onEnded);
    });
    await vscode.debug.stopDebugging(root.session);
    await withTimeout(ended, 5000);
  }

  activeSession(): DebugSessionPort | undefined {
    const active = vscode.debug.activeDebugSession;
    const root = active ? this.rootOf.get(active.id) : undefined;
    if (root && !root.ended) return root;
    return [...this.roots.values()].filter((r) => !r.ended).at(-1);
  }

  sessions(): DebugSessionPort[] {
    return [...this.roots.values()].filter((r) => !r.ended);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.emitter.removeAllListeners();
  }

  /** The VS Code sessions of one agent-visible session, last-stopped first. */
  private familyOf(sessionId: string): string[] {
    const root = this.rootOf.get(sessionId) ?? this.roots.get(sessionId);
    if (!root) return [sessionId];
    const ids = [root.focus.id, root.id, ...root.children.map((c) => c.id).reverse()];
    return [...new Set(ids)];
  }

  private register(session: vscode.DebugSession): VscodeSessionPort {
    const known = this.rootOf.get(session.id);
    if (known) return known;
    // A child session is usually part of its parent's program (js-debug's targets); one our
    // adapter opened for a further game on an attach port is a program of its own.
    const ownGame = offeredGameId(session.configuration) !== undefined;
    const parentRoot =
      session.parentSession && !ownGame ? this.rootOf.get(session.parentSession.id) : undefined;
    if (parentRoot) {
      parentRoot.children.push(session);
      this.rootOf.set(session.id, parentRoot);
      return parentRoot;
    }
    const attachRoot =
      ownGame && session.parentSession ? this.rootOf.get(session.parentSession.id) : undefined;
    const port = new VscodeSessionPort(session, attachRoot?.id);
    this.roots.set(session.id, port);
    this.rootOf.set(session.id, port);
    this.emitter.emit('started', port);
    return port;
  }

  private track(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    const root = this.register(session);
    const marker = session.configuration[START_MARKER] as string | undefined;
    const pending = new Map<number, DebugProtocol.Request>();
    // The agent's exception filters for this start (or for the attach session a game came in
    // on), applied once VS Code has configured it.
    let startFilters =
      marker !== undefined
        ? this.startFilters.get(marker)
        : root.parentId !== undefined
          ? this.roots.get(root.parentId)?.startFilters
          : undefined;
    if (marker !== undefined) this.startFilters.delete(marker);
    if (root.session === session) root.startFilters = startFilters;
    return {
      onWillReceiveMessage: (message: DebugProtocol.ProtocolMessage) => {
        if (message.type !== 'request') return;
        const request = message as DebugProtocol.Request;
        root.exceptionFilters.noteRequest(request.command, request.arguments);
        if (
          request.command === 'setBreakpoints' ||
          request.command === 'launch' ||
          request.command === 'attach' ||
          request.command === 'initialize'
        ) {
          pending.set(request.seq, request);
        }
        if (request.command === 'configurationDone' && startFilters) {
          // VS Code has just sent the Breakpoints view's filters; the agent's replace them right
          // after, before the program runs (the adapter holds it until configurationDone, and
          // a Lua program connects later still).
          const filters = startFilters;
          startFilters = undefined;
          Promise.resolve(
            session.customRequest('setExceptionBreakpoints', exceptionBreakpointsArgs(filters)),
          ).catch(() => undefined);
        }
      },
      onDidSendMessage: (message: DebugProtocol.ProtocolMessage) => {
        if (message.type === 'response') {
          const response = message as DebugProtocol.Response;
          const request = pending.get(response.request_seq);
          if (!request) return;
          pending.delete(response.request_seq);
          if (request.command === 'initialize') {
            if (response.success)
              root.exceptionFilters.noteCapabilities(
                (response as DebugProtocol.InitializeResponse).body,
              );
          } else if (request.command === 'setBreakpoints') {
            this.breakpoints.onSetBreakpoints(
              session.id,
              request.arguments as DebugProtocol.SetBreakpointsArguments,
              response as DebugProtocol.SetBreakpointsResponse,
            );
          } else if (request.command === 'setFunctionBreakpoints') {
            this.breakpoints.onSetFunctionBreakpoints(
              session.id,
              request.arguments as DebugProtocol.SetFunctionBreakpointsArguments,
              response as DebugProtocol.SetFunctionBreakpointsResponse,
            );
          } else if (!response.success && marker) {
            this.startFailures.set(marker, response.message ?? `${request.command} failed`);
          }
          return;
        }
        if (message.type !== 'event') return;
        const event = message as DebugProtocol.Event;
        const isRoot = root.session.id === session.id;
        if (event.event === 'stopped') root.focus = session;
        if (event.event === 'breakpoint') {
          this.breakpoints.onBreakpointEvent(
            session.id,
            (event as DebugProtocol.BreakpointEvent).body,
          );
        }
        // A child's end is not the end of the agent's session.
        if (!isRoot && (event.event === 'terminated' || event.event === 'exited')) return;
        if (!root.ended) this.emitter.emit('event', root, event);
      },
    };
  }

  private onTerminated(session: vscode.DebugSession): void {
    const root = this.rootOf.get(session.id);
    this.breakpoints.forgetSession(session.id);
    if (!root) return;
    if (root.id !== session.id) {
      const index = root.children.indexOf(session);
      if (index >= 0) root.children.splice(index, 1);
      if (root.focus === session) root.focus = root.session;
      this.rootOf.delete(session.id);
      return;
    }
    root.ended = true;
    this.roots.delete(root.id);
    this.rootOf.delete(root.id);
    for (const child of root.children) this.rootOf.delete(child.id);
    this.emitter.emit('ended', root);
  }
}
