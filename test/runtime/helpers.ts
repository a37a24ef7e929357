/**
 * Helpers for the runtime tests: start the bundled `dist/lua/LuaPanda.lua` in a real interpreter
 * on a fixture program, accept it with a TestIde over real TCP, and find fixture lines by their
 * `-- @marker` comments.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LuaInterpreter } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { type Scenario, scenario } from '../harness/scenario';
import { TestIde } from '../harness/testIde';
import {
  FunctionBreakpointResult,
  HandshakeSettings,
  InitSuccessReply,
  LuaStackFrame,
  IdeRequestInfo,
  WireBreakpoint,
} from '../../src/protocol';

export const BUNDLE_DIR = path.join(REPO_ROOT, 'dist', 'lua');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'runtime');

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

/** The 1-based line of `-- @marker` in a fixture. */
export function lineOf(name: string, marker: string): number {
  const lines = fs.readFileSync(fixture(name), 'utf8').split('\n');
  const index = lines.findIndex((l) => new RegExp(`--.*@${marker}\\b`).test(l));
  if (index < 0) throw new Error(`No @${marker} in ${name}`);
  return index + 1;
}

export interface Session {
  ide: TestIde;
  lua: LuaProcess;
  reply: InitSuccessReply;
  /** The answer to `functionBreakpoints`, when given. */
  functionResults?: FunctionBreakpointResult[];
}

export interface StartOptions {
  settings?: HandshakeSettings;
  args?: string[];
  /** Breakpoints to set before `configurationDone`, by fixture file name. */
  breakpoints?: Record<string, WireBreakpoint[]>;
  /** Function breakpoints to set before `configurationDone` (setFunctionBreakPoint). */
  functionBreakpoints?: IdeRequestInfo<'setFunctionBreakPoint'>['names'];
  exceptionFilters?: ('uncaught' | 'caught' | 'assert')[];
  /** With exceptionFilters: per filter, texts one of which the error message must contain. */
  exceptionConditions?: IdeRequestInfo<'setExceptionBreakpoints'>['conditions'];
  /** Script to run instead of the fixture (the fixture path is then passed as an argument). */
  script?: string;
  /** Folder holding `name` and its breakpoint files, also the working directory (default FIXTURES). */
  dir?: string;
}

const open = new Set<Session>();

/** Closes every session a test left open (use in afterEach), killing its Lua process. */
export async function closeAll(): Promise<void> {
  for (const s of [...open]) {
    s.lua.kill();
    await s.ide.close();
    open.delete(s);
  }
}

/** Starts `name` under `lua`, accepts it and completes the handshake. */
export async function startSession(
  lua: LuaInterpreter,
  name: string,
  options: StartOptions = {},
): Promise<Session> {
  const ide = await TestIde.start();
  const dir = options.dir ?? FIXTURES;
  const file = (n: string) => path.join(dir, n);
  const script = options.script ?? file(name);
  const extra = options.script ? [file(name)] : [];
  const proc = spawnLua(lua, script, {
    args: [String(ide.port), ...extra, ...(options.args ?? [])],
    luaPath: [BUNDLE_DIR],
    cwd: dir,
  });
  try {
    await ide.accept();
    const reply = await ide.handshake({
      cwd: dir,
      waitConfigurationDone: true,
      ...options.settings,
    });
    for (const [bpFile, bks] of Object.entries(options.breakpoints ?? {})) {
      await ide.connection.request('setBreakPoint', { path: file(bpFile), bks });
    }
    let functionResults: FunctionBreakpointResult[] | undefined;
    if (options.functionBreakpoints) {
      const answer = await ide.connection.request('setFunctionBreakPoint', {
        names: options.functionBreakpoints,
      });
      functionResults = answer.results;
    }
    if (options.exceptionFilters) {
      await ide.connection.request('setExceptionBreakpoints', {
        filters: options.exceptionFilters,
        ...(options.exceptionConditions ? { conditions: options.exceptionConditions } : {}),
      });
    }
    await ide.connection.request('configurationDone', {});
    const session = { ide, lua: proc, reply, functionResults };
    open.add(session);
    return session;
  } catch (error) {
    proc.kill();
    await ide.close();
    throw new Error(`${(error as Error).message}; ${proc.describe()}`);
  }
}

/**
 * The fixture helpers of this file bound to a scenario's folder (test/scenarios/`name`) instead of
 * FIXTURES: a feature's runtime test reads its programs there with the same calls.
 */
export function runtimeScenario(name: string): {
  scenario: Scenario;
  dir: string;
  fixture: (file: string) => string;
  lineOf: (file: string, marker: string) => number;
  startSession: (lua: LuaInterpreter, file: string, options?: StartOptions) => Promise<Session>;
} {
  const sc = scenario(name);
  return {
    scenario: sc,
    dir: sc.dir,
    fixture: (file) => sc.file(file),
    lineOf: (file, marker) => sc.line(file, marker),
    startSession: (lua, file, options = {}) => startSession(lua, file, { dir: sc.dir, ...options }),
  };
}

export function line(n: number): WireBreakpoint {
  return { verified: true, type: 2, line: n };
}

export function topOf(stack: LuaStackFrame[]): LuaStackFrame {
  if (stack.length === 0) throw new Error('empty stack');
  return stack[0];
}

/** Ends a session: the program must finish by itself (exit code 0 unless told otherwise). */
export async function finish(session: Session, expectCode = 0): Promise<string> {
  const exit = await session.lua.waitForExit(15_000);
  await session.ide.close();
  open.delete(session);
  if (exit.code !== expectCode) {
    throw new Error(`exit code ${exit.code} (expected ${expectCode}); ${session.lua.describe()}`);
  }
  return session.lua.stdout;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
