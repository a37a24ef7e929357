/**
 * Drives the out-of-process adapter (`node out/src/cli/dap.js`) with the DAP test client for the
 * adapter tests: starts a session with breakpoints and exception filters configured the way
 * VS Code does it, collects output and events, and tears everything down so that no adapter,
 * Lua process or socket outlives a test (the launched program's pid is checked to be gone).
 */
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { LuaInterpreter } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';

export const ADAPTER = path.join(REPO_ROOT, 'out', 'src', 'cli', 'dap.js');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'adapter');
export const TIMEOUT_MS = 15_000;

export type BreakpointMap = Record<string, DebugProtocol.SourceBreakpoint[]>;

export interface StartOptions {
  breakpoints?: BreakpointMap;
  /** Sent with setFunctionBreakpoints after the line breakpoints (the answer: functionBreakpointResponse). */
  functionBreakpoints?: DebugProtocol.FunctionBreakpoint[];
  exceptionFilters?: string[];
  /** Sent as `filterOptions` with the exception filters (the answer: exceptionFilterResponse). */
  exceptionFilterOptions?: DebugProtocol.ExceptionFilterOptions[];
  /** Client capabilities sent with `initialize` besides the usual ones (e.g. progress). */
  client?: Partial<DebugProtocol.InitializeRequestArguments>;
}

/** Events a test may look for after they came, in order. */
const RECORDED_EVENTS = [
  'progressStart',
  'progressUpdate',
  'progressEnd',
  'luapandaEnded',
  'luapandaWarning',
  'exited',
  'breakpoint',
] as const;

export interface AttachGameOptions extends StartOptions {
  /** Attach attributes besides `connectionPort` and `cwd` (the game's folder). */
  attributes?: Record<string, unknown>;
  /** The game's arguments after the port, which is always the first. */
  args?: string[];
  /** Folders put first on the game's `package.path` (through LUA_PATH). */
  luaPath?: string[];
}

export class DapTest {
  readonly dc: DebugClient;
  output = '';
  /** Every output event, with its category. */
  readonly outputs: { category: string; text: string }[] = [];
  /** The events of RECORDED_EVENTS, in order. */
  readonly events: DebugProtocol.Event[] = [];
  pid: number | undefined;
  breakpointResponses: Record<string, DebugProtocol.Breakpoint[]> = {};
  functionBreakpointResponse: DebugProtocol.Breakpoint[] = [];
  exceptionFilterResponse: DebugProtocol.Breakpoint[] | undefined;
  private stopped = false;
  /** Stops not yet consumed: a stop may come before the launch response. */
  private readonly stops: DebugProtocol.StoppedEvent[] = [];
  private stopWaiter: (() => void) | undefined;

  /** Settle when the adapter sends these events (recorded from the start, so none is missed). */
  readonly terminated: Promise<DebugProtocol.TerminatedEvent>;
  readonly exited: Promise<DebugProtocol.ExitedEvent>;

  constructor() {
    this.dc = new DebugClient('node', ADAPTER, 'luapanda', { stdio: 'pipe' });
    this.terminated = new Promise((resolve) => this.dc.once('terminated', resolve));
    this.exited = new Promise((resolve) => this.dc.once('exited', resolve));
    this.dc.defaultTimeout = TIMEOUT_MS;
    this.dc.on('output', (event: DebugProtocol.OutputEvent) => {
      this.output += event.body.output;
      this.outputs.push({ category: event.body.category ?? 'console', text: event.body.output });
    });
    for (const name of RECORDED_EVENTS) {
      this.dc.on(name, (event: DebugProtocol.Event) => this.events.push(event));
    }
    this.dc.on('stopped', (event: DebugProtocol.StoppedEvent) => {
      this.stops.push(event);
      this.stopWaiter?.();
    });
    this.dc.on('process', (event: DebugProtocol.ProcessEvent) => {
      this.pid = event.body.systemProcessId;
    });
  }

  async open(): Promise<this> {
    await this.dc.start();
    return this;
  }

  /** initialize → launch/attach, with breakpoints and configurationDone sent on `initialized`. */
  async start(
    request: 'launch' | 'attach',
    args: Record<string, unknown>,
    options: StartOptions = {},
  ): Promise<void> {
    const configured = this.dc.waitForEvent('initialized', TIMEOUT_MS).then(async () => {
      for (const [file, breakpoints] of Object.entries(options.breakpoints ?? {})) {
        const response = await this.dc.setBreakpointsRequest({
          source: { path: file },
          breakpoints,
        });
        this.breakpointResponses[file] = response.body.breakpoints;
      }
      if (options.functionBreakpoints) {
        const response = await this.dc.setFunctionBreakpointsRequest({
          breakpoints: options.functionBreakpoints,
        });
        this.functionBreakpointResponse = response.body.breakpoints;
      }
      const filters = await this.dc.setExceptionBreakpointsRequest({
        filters: options.exceptionFilters ?? ['uncaught'],
        ...(options.exceptionFilterOptions
          ? { filterOptions: options.exceptionFilterOptions }
          : {}),
      });
      this.exceptionFilterResponse = filters.body?.breakpoints;
      await this.dc.configurationDoneRequest();
    });
    await this.dc.initializeRequest({
      adapterID: 'luapanda',
      pathFormat: 'path',
      linesStartAt1: true,
      columnsStartAt1: true,
      ...options.client,
    });
    const started =
      request === 'launch'
        ? this.dc.launchRequest(args as never)
        : this.dc.attachRequest(args as never);
    await Promise.all([configured, started]);
  }

  /** The recorded events named `name`, once at least one came (bounded). */
  async eventsNamed(name: (typeof RECORDED_EVENTS)[number]): Promise<DebugProtocol.Event[]> {
    const deadline = Date.now() + TIMEOUT_MS;
    while (!this.events.some((e) => e.event === name)) {
      if (Date.now() > deadline) throw new Error(`No ${name} event; output: ${this.output}`);
      await this.dc.waitForEvent(name, TIMEOUT_MS).catch(() => undefined);
    }
    return this.events.filter((e) => e.event === name);
  }

  /**
   * Attach on a free port, then start the game `file` (its first argument is the port) once the
   * adapter listens; resolves with the game when the attach request has succeeded.
   */
  async attachGame(
    lua: LuaInterpreter,
    file: string,
    options: AttachGameOptions = {},
  ): Promise<LuaProcess> {
    const port = await freePort();
    const cwd = path.dirname(file);
    const waiting = this.waitForOutput(/Waiting for a Lua program/);
    const attached = this.start(
      'attach',
      { connectionPort: port, cwd, ...options.attributes },
      {
        breakpoints: options.breakpoints,
        functionBreakpoints: options.functionBreakpoints,
        exceptionFilters: options.exceptionFilters,
        client: options.client,
      },
    );
    await waiting;
    const game = spawnLua(lua, file, {
      args: [String(port), ...(options.args ?? [])],
      cwd,
      luaPath: options.luaPath,
    });
    await attached;
    return game;
  }

  launch(
    interpreter: string,
    program: string,
    extra: Record<string, unknown> = {},
    options: StartOptions = {},
  ) {
    const cwd = path.dirname(program);
    return this.start('launch', { program, cwd, luaPath: interpreter, ...extra }, options);
  }

  /** Waits for the next stop and checks where it is. */
  async stoppedAt(reason: string, file?: string, line?: number): Promise<StopState> {
    const event = await this.nextStop();
    assert.equal(event.body.reason, reason, `stop reason (${event.body.description ?? ''})`);
    const trace = await this.dc.stackTraceRequest({ threadId: event.body.threadId ?? 1 });
    const top = trace.body.stackFrames[0];
    if (file !== undefined) assert.equal(top.source?.path, file, 'stop file');
    if (line !== undefined) assert.equal(top.line, line, 'stop line');
    return { event: event.body, frames: trace.body.stackFrames, top };
  }

  /** The next stop event, whether it came already or comes within the timeout. */
  nextStop(): Promise<DebugProtocol.StoppedEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stopWaiter = undefined;
        reject(new Error(`No stop within ${TIMEOUT_MS} ms; output: ${this.output.slice(-800)}`));
      }, TIMEOUT_MS);
      const attempt = () => {
        const event = this.stops.shift();
        if (!event) return;
        clearTimeout(timer);
        this.stopWaiter = undefined;
        resolve(event);
      };
      this.stopWaiter = attempt;
      attempt();
    });
  }

  /** Resolves when the session has ended (bounded). */
  async ended(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.terminated,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`No terminated event; output: ${this.output.slice(-800)}`)),
          TIMEOUT_MS,
        );
      }),
    ]);
    clearTimeout(timer);
  }

  async locals(frameId: number): Promise<Record<string, string>> {
    const scopes = await this.dc.scopesRequest({ frameId });
    const variables = await this.dc.variablesRequest({
      variablesReference: scopes.body.scopes[0].variablesReference,
    });
    return Object.fromEntries(variables.body.variables.map((v) => [v.name, v.value]));
  }

  async waitForOutput(pattern: RegExp): Promise<void> {
    const deadline = Date.now() + TIMEOUT_MS;
    while (!pattern.test(this.output)) {
      if (Date.now() > deadline)
        throw new Error(`No output matching ${pattern}; got: ${this.output}`);
      await this.dc.waitForEvent('output', TIMEOUT_MS).catch(() => undefined);
    }
  }

  /**
   * Kills the adapter process as a crashing IDE goes: no disconnect request, the game's link just
   * drops. (DebugClient keeps its process private; its own stop() sends a disconnect first.)
   */
  killAdapter(): void {
    const adapter = (
      this.dc as unknown as { _adapterProcess?: { kill(signal: string): boolean } | null }
    )._adapterProcess;
    adapter?.kill('SIGKILL');
    this.stopped = true; // nothing left for close() to end: the game is the test's to end
  }

  /** Ends the session and the adapter; checks that the launched program is gone. */
  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.dc.disconnectRequest({ terminateDebuggee: true }).catch(() => undefined);
    await this.dc.stop();
    if (this.pid !== undefined) await assertProcessGone(this.pid);
  }
}

export interface StopState {
  event: DebugProtocol.StoppedEvent['body'];
  frames: DebugProtocol.StackFrame[];
  top: DebugProtocol.StackFrame;
}

export async function assertProcessGone(pid: number): Promise<void> {
  for (let i = 0; i < 60; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`The launched Lua program (pid ${pid}) is still running`);
}

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The 1-based line of `file` that holds `@marker`. */
export function markerLine(file: string, marker: string): number {
  const index = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(`@${marker}`));
  if (index < 0) throw new Error(`no @${marker} in ${file}`);
  return index + 1;
}

/**
 * Sends a request and resolves with its whole response, failed or not: DebugClient's own
 * requests reject a failure with its message only, without `body.error.showUser`. Bounded.
 */
export function rawRequest(
  dc: DebugClient,
  command: string,
  args: object,
): Promise<DebugProtocol.Response> {
  // `doSend` is private in the library's typings; it is the one way to read a failed response.
  const client = dc as unknown as {
    doSend(command: string, args: object, done: (response: DebugProtocol.Response) => void): void;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no response to '${command}' within ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
    client.doSend(command, args, (response) => {
      clearTimeout(timer);
      resolve(response);
    });
  });
}

export function fixture(...parts: string[]): string {
  return path.join(FIXTURES, ...parts);
}
