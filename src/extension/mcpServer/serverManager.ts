/**
 * The MCP server manager's logic, without VS Code: start, stop, restart and port changes of the
 * Streamable HTTP server, and the rules between several VS Code windows that share one port —
 * at start-up a window whose port is already served by one of our servers stays out of the way;
 * a start by hand takes the port over through the authenticated control route; when the serving
 * window goes away, a window with auto-start on takes over. The UI (status bar, panel) renders
 * `state` and calls these methods.
 */
import { EventEmitter } from 'node:events';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { delay } from '../../common/async';
import {
  HealthInfo,
  HttpServerHandle,
  PortInUseError,
  fetchHealth,
  startHttpServer,
} from '../../mcp/transport/http';
import {
  ControlRecord,
  controlRoute,
  newControlToken,
  readControlRecord,
  removeControlRecord,
  requestHandover,
  writeControlRecord,
} from './control';

export type ServerState =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'starting'; readonly port: number }
  | {
      readonly kind: 'running';
      readonly port: number;
      readonly url: string;
      readonly instanceId: string;
      readonly sessions: number;
    }
  | {
      readonly kind: 'elsewhere';
      readonly port: number;
      readonly workspace: string | null;
      readonly pid: number;
    }
  | {
      readonly kind: 'error';
      readonly port: number;
      readonly message: string;
      /** `port-in-use`: something that is not a LuaPanda MCP server holds the port. */
      readonly cause: 'port-in-use' | 'handover-refused' | 'other';
    };

export interface ManagerSettings {
  readonly port: number;
  readonly autoStart: boolean;
  readonly token?: string;
}

export interface ManagerDeps {
  /** The folder this window serves, reported by `/health` (and shown by other windows). */
  readonly workspace: string | null;
  settings(): ManagerSettings;
  /** One McpServer per MCP session. */
  createServer(): McpServer;
  /** Folder shared by every window of this user (the extension's global storage). */
  readonly controlDir: string;
  log(line: string): void;
  /** Ends every waiting tool call with `interrupted` and this reason. */
  interrupt(reason: string): void;
  /** How often a window that is not serving checks whether the serving one went away. */
  readonly watchIntervalMs?: number;
  /** How long a takeover waits for the other window to release the port. */
  readonly handoverTimeoutMs?: number;
}

/** Why a port number cannot be used, or undefined when it can. */
export function validatePort(value: string | number): string | undefined {
  const text = String(value).trim();
  if (!/^\d+$/.test(text)) return 'Enter a whole number between 1024 and 65535.';
  const port = Number(text);
  if (port < 1024 || port > 65535) return 'Choose a port between 1024 and 65535.';
  return undefined;
}

interface ManagerEvents {
  state: [ServerState];
}

export class McpServerManager {
  private current: ServerState = { kind: 'stopped' };
  private handle: HttpServerHandle | undefined;
  private record: ControlRecord | undefined;
  /** The token the running server requires. */
  private servedToken: string | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private readonly emitter = new EventEmitter<ManagerEvents>();
  /** Serialises start/stop/restart so that two clicks cannot interleave. */
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;

  constructor(private readonly deps: ManagerDeps) {}

  get state(): ServerState {
    return this.current;
  }

  onDidChangeState(listener: (state: ServerState) => void): { dispose(): void } {
    this.emitter.on('state', listener);
    return { dispose: () => this.emitter.off('state', listener) };
  }

  /** At activation: auto-start unless another window serves; with auto-start off, only look. */
  initialize(): Promise<ServerState> {
    return this.serialise(async () => {
      if (this.deps.settings().autoStart) return this.startAutomatically();
      const port = this.deps.settings().port;
      const other = await fetchHealth(port);
      if (other) return this.setState(elsewhere(port, other));
      return this.setState({ kind: 'stopped' });
    });
  }

  /** The user's start: takes the port over from another window if one serves it. */
  start(): Promise<ServerState> {
    return this.serialise(() => this.startByHand());
  }

  stop(): Promise<ServerState> {
    return this.serialise(async () => {
      this.stopWatching();
      await this.close('The MCP server was stopped in VS Code.');
      return this.setState({ kind: 'stopped' });
    });
  }

  restart(): Promise<ServerState> {
    return this.serialise(async () => {
      this.stopWatching();
      await this.close('The MCP server is restarting.');
      return this.startByHand();
    });
  }

  /**
   * Settings changed (port, token or auto-start). A running server moves to the new port or
   * token; a window that was not serving re-applies its auto-start rule.
   */
  settingsChanged(): Promise<ServerState> {
    return this.serialise(async () => {
      const settings = this.deps.settings();
      if (this.handle) {
        const same =
          this.handle.port === settings.port && (this.servedToken ?? '') === (settings.token ?? '');
        // Only auto-start changed: a running server stays as it is.
        if (same) return this.current;
        await this.close('The MCP server is restarting with new settings.');
        return this.startByHand();
      }
      this.stopWatching();
      if (settings.autoStart) return this.startAutomatically();
      const other = await fetchHealth(settings.port);
      return this.setState(other ? elsewhere(settings.port, other) : { kind: 'stopped' });
    });
  }

  /** The URL clients connect to, wherever it is served (this window or another). */
  url(): string {
    return `http://127.0.0.1:${this.deps.settings().port}/mcp`;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopWatching();
    await this.queue.catch(() => undefined);
    await this.close('VS Code is closing this window.');
    this.emitter.removeAllListeners();
  }

  private serialise<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private setState(state: ServerState): ServerState {
    this.current = state;
    if (state.kind === 'elsewhere' && this.deps.settings().autoStart) this.startWatching();
    this.emitter.emit('state', state);
    return state;
  }

  private async startAutomatically(): Promise<ServerState> {
    const { port } = this.deps.settings();
    const other = await fetchHealth(port);
    if (other) {
      this.deps.log(
        `MCP server: port ${port} is served by another window (pid ${other.pid}, ${other.workspace ?? 'no folder'}); not starting here.`,
      );
      return this.setState(elsewhere(port, other));
    }
    return this.listen(port);
  }

  private async startByHand(): Promise<ServerState> {
    this.stopWatching();
    if (this.handle) return this.current;
    const { port } = this.deps.settings();
    const other = await fetchHealth(port);
    if (other) {
      const handed = await this.takeOver(port, other);
      if (handed) return handed;
    }
    return this.listen(port);
  }

  /** Asks the window serving `port` to step down; a state when that failed, else undefined. */
  private async takeOver(port: number, other: HealthInfo): Promise<ServerState | undefined> {
    const record = await readControlRecord(this.deps.controlDir, port);
    if (!record || record.instanceId !== other.instanceId) {
      return this.setState({
        kind: 'error',
        port,
        cause: 'handover-refused',
        message:
          `Port ${port} is served by another LuaPanda MCP server (pid ${other.pid}, ${other.workspace ?? 'no folder'}) ` +
          'that is not a VS Code window of this user (a headless luapanda-mcp?). Stop it, or choose another port.',
      });
    }
    this.deps.log(
      `MCP server: asking the window serving ${other.workspace ?? 'no folder'} to hand over port ${port}`,
    );
    const answer = await requestHandover(record, this.deps.workspace);
    if (!answer.ok) {
      return this.setState({
        kind: 'error',
        port,
        cause: 'handover-refused',
        message: `The window serving port ${port} did not hand over (${answer.status ?? answer.message}).`,
      });
    }
    const deadline = Date.now() + (this.deps.handoverTimeoutMs ?? 5000);
    while (Date.now() < deadline) {
      if (!(await fetchHealth(port, { timeoutMs: 300 }))) return undefined;
      await delay(100);
    }
    return this.setState({
      kind: 'error',
      port,
      cause: 'handover-refused',
      message: `The window serving port ${port} agreed to hand over but still holds the port.`,
    });
  }

  private async listen(port: number): Promise<ServerState> {
    if (this.disposed) return this.current;
    this.setState({ kind: 'starting', port });
    const settings = this.deps.settings();
    const controlToken = newControlToken();
    let handle: HttpServerHandle;
    try {
      handle = await startHttpServer({
        createServer: () => this.deps.createServer(),
        port,
        token: settings.token || undefined,
        workspace: this.deps.workspace ?? undefined,
        log: (line) => this.deps.log(line),
        onSessionsChanged: () => this.sessionsChanged(),
        routes: controlRoute(controlToken, (request) => void this.handOver(request.workspace)),
      });
    } catch (e) {
      if (e instanceof PortInUseError) {
        // Someone took the port between our probe and our listen: maybe another window.
        const other = await fetchHealth(port);
        if (other) return this.setState(elsewhere(port, other));
        return this.setState({
          kind: 'error',
          port,
          cause: 'port-in-use',
          message: `Port ${port} is in use by another program (not a LuaPanda MCP server). Choose another port, or stop that program and start again.`,
        });
      }
      return this.setState({ kind: 'error', port, cause: 'other', message: (e as Error).message });
    }
    this.handle = handle;
    this.servedToken = settings.token || undefined;
    this.record = {
      port: handle.port,
      instanceId: handle.instanceId,
      token: controlToken,
      pid: process.pid,
      workspace: this.deps.workspace,
    };
    try {
      await writeControlRecord(this.deps.controlDir, this.record);
    } catch (e) {
      this.deps.log(`MCP server: could not write the control record: ${(e as Error).message}`);
    }
    this.deps.log(`MCP server: listening on ${handle.urls.join(' and ')}`);
    return this.setState({
      kind: 'running',
      port: handle.port,
      url: handle.url,
      instanceId: handle.instanceId,
      sessions: handle.sessionCount(),
    });
  }

  private handOver(workspace: string | null): void {
    void this.serialise(async () => {
      if (!this.handle) return this.current;
      const port = this.handle.port;
      this.deps.log(
        `MCP server: handing port ${port} over to the window of ${workspace ?? 'no folder'}`,
      );
      await this.close('The MCP server was handed over to another VS Code window.');
      return this.setState({ kind: 'elsewhere', port, workspace, pid: 0 });
    });
  }

  private sessionsChanged(): void {
    const state = this.current;
    if (state.kind === 'running' && this.handle) {
      this.setState({ ...state, sessions: this.handle.sessionCount() });
    }
  }

  private async close(reason: string): Promise<void> {
    const handle = this.handle;
    const record = this.record;
    this.handle = undefined;
    this.record = undefined;
    if (!handle) return;
    this.deps.interrupt(reason);
    await handle.close();
    if (record) {
      await removeControlRecord(this.deps.controlDir, record.port, record.instanceId).catch(
        () => undefined,
      );
    }
    this.deps.log(`MCP server: stopped (${reason})`);
  }

  private startWatching(): void {
    if (this.watchTimer || this.disposed) return;
    const every = this.deps.watchIntervalMs ?? 3000;
    const tick = (): void => {
      // Jitter, so that several waiting windows do not all try at the same instant.
      this.watchTimer = setTimeout(
        () => void this.watchOnce().finally(next),
        every * (0.75 + Math.random() / 2),
      );
    };
    const next = (): void => {
      if (this.watchTimer && this.current.kind === 'elsewhere') tick();
      else this.watchTimer = undefined;
    };
    tick();
  }

  private stopWatching(): void {
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = undefined;
  }

  private async watchOnce(): Promise<void> {
    if (this.current.kind !== 'elsewhere' || !this.deps.settings().autoStart) return;
    const port = this.current.port;
    const other = await fetchHealth(port);
    if (other) {
      if (
        other.instanceId &&
        (other.workspace !== this.current.workspace || other.pid !== this.current.pid)
      ) {
        this.current = elsewhere(port, other);
        this.emitter.emit('state', this.current);
      }
      return;
    }
    this.deps.log(`MCP server: the window serving port ${port} is gone; taking over`);
    await this.serialise(() =>
      this.current.kind === 'elsewhere' ? this.startAutomatically() : Promise.resolve(this.current),
    );
  }
}

function elsewhere(port: number, other: HealthInfo): ServerState {
  return { kind: 'elsewhere', port, workspace: other.workspace, pid: other.pid };
}
