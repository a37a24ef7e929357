/**
 * A Lua program started by the debugger: the interpreter is spawned directly (no shell, so it
 * works the same on Windows) with `-e` code that preloads the bundled runtime and connects it
 * back to us, so the user's files are never edited. Output is streamed as it comes; the program
 * is checked for syntax errors before it connects, so such an error is reported as one.
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as path from 'node:path';
import { withTimeout } from '../../common/async';
import { ExitStatus } from './exitStatus';
import { InterpreterChoice, programEnv, spawnInterpreter } from './interpreter';
import { nativeCpathCode } from './nativeBuilds';
import { CONSOLE_MARKER, StdoutConsoleSplitter } from './stdoutConsole';
import type { OutputCategory } from '../types';

export interface DebuggeeSpec extends InterpreterChoice {
  /** The Lua file to run. */
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Variables added to (string) or removed from (null) the environment. */
  readonly env: Readonly<Record<string, string | null>>;
  /** The folder of the runtime's `LuaPanda.lua`. */
  readonly runtimeDir: string;
  /**
   * The folder of the native accelerator builds for this platform (`<abi>/luapanda_native*.so`),
   * put first on `package.cpath`; without it the runtime uses its pure-Lua hook.
   */
  readonly nativeDir?: string;
  /** Extra `package.path` entries, searched after the runtime's folder. */
  readonly packagePath?: readonly string[];
  readonly port: number;
  /** The address the program connects to (default 127.0.0.1). */
  readonly host?: string;
  /** Run the program without the debugger (no runtime, no connection). */
  readonly noDebug?: boolean;
}

export interface DebuggeeEvents {
  output: [OutputCategory, string];
  exit: [ExitStatus];
}

/** Marks the stderr line that reports a syntax error found by the preload check. */
export const SYNTAX_ERROR_MARKER = '[luapanda] syntax error: ';
const STDERR_TAIL = 4000;

/** Every program started and not yet ended, so a dying host can take them along. */
const live = new Set<ChildProcess>();

/** Ends every program this process started (synchronous: safe in an 'exit' handler). */
export function killAllDebuggees(): void {
  for (const child of live) child.kill('SIGKILL');
}

export class DebuggeeProcess extends EventEmitter<DebuggeeEvents> {
  private stderrText = '';
  private exitInfo: ExitStatus | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly interpreter: string,
  ) {
    super();
    // Logpoint lines come in stdout too, in their place (stdoutConsole.ts).
    const splitter = new StdoutConsoleSplitter();
    const emitPieces = (pieces: ReturnType<StdoutConsoleSplitter['push']>) => {
      for (const piece of pieces) this.emit('output', piece.kind, piece.text);
    };
    child.stdout
      ?.setEncoding('utf8')
      .on('data', (text: string) => emitPieces(splitter.push(text)))
      .on('end', () => emitPieces(splitter.flush()));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.stderrText = (this.stderrText + text).slice(-STDERR_TAIL);
      this.emit('output', 'stderr', text);
    });
    live.add(child);
    child.once('close', (code, signal) => {
      live.delete(child);
      this.exitInfo = { code, signal };
      this.emit('exit', this.exitInfo);
    });
  }

  /** Starts the program with the first interpreter that exists. */
  static async start(spec: DebuggeeSpec): Promise<DebuggeeProcess> {
    const { child, interpreter } = await spawnInterpreter(spec, ['-e', preloadCode(spec)], {
      cwd: spec.cwd,
      env: programEnv(spec.env),
    });
    return new DebuggeeProcess(child, interpreter);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** How the program ended, once it has. */
  get exitStatus(): ExitStatus | undefined {
    return this.exitInfo;
  }

  /** The end of what the program wrote to stderr. */
  get stderrTail(): string {
    return this.stderrText;
  }

  /** The syntax error the preload check reported, if that is why the program ended. */
  get syntaxError(): string | undefined {
    const at = this.stderrText.indexOf(SYNTAX_ERROR_MARKER);
    if (at < 0) return undefined;
    return this.stderrText.slice(at + SYNTAX_ERROR_MARKER.length).split(/\r?\n/)[0];
  }

  /** Ends the program (and resolves once it is gone, bounded). */
  async kill(): Promise<void> {
    if (this.exitInfo) return;
    const gone = new Promise<void>((resolve) => this.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await withTimeout(gone, 3000, { unref: true });
  }
}

/** A Lua string literal for any text (bytes above 127 pass through; Lua strings are bytes). */
export function luaString(text: string): string {
  let body = '';
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (c === '\\' || c === '"') body += `\\${c}`;
    else if (code < 32 || code === 127) body += `\\${String(code).padStart(3, '0')}`;
    else body += c;
  }
  return `"${body}"`;
}

/**
 * The `-e` code that runs the program: make the runtime (and the native accelerator build for
 * the interpreter's ABI) findable, line-buffer stdout as a terminal
 * would (output arrives line by line as it is printed, each line whole; unbuffered, a line came in
 * pieces, and with glibc a program's own `setvbuf("line")` then kept a one-byte buffer), refuse a program that does not compile, have logpoint lines written
 * into stdout (where this side reads them in order with the program's output), connect, then run the
 * program through the runtime's `runFile` (so uncaught errors stop with the stack intact) as a
 * tail call, which leaves no frame of this code on the program's stack. A runtime without
 * `runFile` (upstream's) gets the chunk called directly, with `arg` set as `lua` sets it.
 */
export function preloadCode(spec: DebuggeeSpec): string {
  const program = luaString(spec.program);
  const args = spec.args.map(luaString);
  const setup = [
    ...searchPathCode(spec),
    'io.stdout:setvbuf("line")',
    `local chunk, err = loadfile(${program})`,
    `if not chunk then io.stderr:write(${luaString(SYNTAX_ERROR_MARKER)}, tostring(err), "\\n") os.exit(3) end`,
    `arg = { [0] = ${program}${args.map((a) => `, ${a}`).join('')} }`,
  ];
  if (spec.noDebug) return [...setup, `return chunk(${args.join(', ')})`].join('\n');
  return [
    ...setup,
    'local LuaPanda = require("LuaPanda")',
    `if LuaPanda.consoleThroughStdout then LuaPanda.consoleThroughStdout(${luaString(CONSOLE_MARKER)}) end`,
    `LuaPanda.start(${luaString(spec.host ?? '127.0.0.1')}, ${spec.port})`,
    `if LuaPanda.runFile then return LuaPanda.runFile(${[program, ...args].join(', ')}) end`,
    `return chunk(${args.join(', ')})`,
  ].join('\n');
}

/** What decides where `require` looks: the launch and its start-up check share it. */
export type SearchPathSpec = Pick<
  DebuggeeSpec,
  'runtimeDir' | 'nativeDir' | 'packagePath' | 'noDebug'
>;

/**
 * Lua statements that put the runtime's folder and `packagePath` first on `package.path`, and the
 * native accelerator build of the interpreter's ABI first on `package.cpath`.
 */
export function searchPathCode(spec: SearchPathSpec): string[] {
  const luaPaths = [
    ...(spec.noDebug ? [] : [path.join(spec.runtimeDir, '?.lua')]),
    ...(spec.packagePath ?? []),
    '',
  ];
  return [
    `package.path = ${luaString(luaPaths.join(';'))} .. package.path`,
    ...(spec.noDebug || !spec.nativeDir ? [] : [nativeCpathCode(spec.nativeDir, luaString)]),
  ];
}
