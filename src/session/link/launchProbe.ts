/**
 * The start-up check of a launch. Before the program runs, the very interpreter, environment,
 * working folder and search paths of the launch are asked to load luasocket and the runtime, and
 * nothing else: the program itself is not run. A failure names the interpreter, quotes the
 * `require` error and says how to fix it — at once, instead of a program that runs without the
 * debugger until the connect timeout. The check is bounded: an interpreter that does not finish
 * is killed after `CHECK_TIMEOUT_MS`, and the message says so.
 */
import { type SearchPathSpec, searchPathCode } from './debuggee';
import { describeExit } from './exitStatus';
import { InterpreterChoice, locateCommand, programEnv, spawnInterpreter } from './interpreter';
import {
  describeInterpreter,
  interpreterCheckFailed,
  interpreterCheckTimedOut,
  luasocketMissing,
  runtimeLoadFailed,
} from './setupErrors';

export const CHECK_TIMEOUT_MS = 5_000;
/** How long the output may trail the exit (a grandchild holding the pipes must not hang us). */
const OUTPUT_GRACE_MS = 500;
const EXIT_NO_SOCKET = 41;
const EXIT_NO_RUNTIME = 42;

export interface LaunchCheckSpec extends InterpreterChoice, SearchPathSpec {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | null>>;
}

export interface CheckedInterpreter {
  /** The command that passed, to be launched as it is. */
  readonly interpreter: string;
  /** `_VERSION`, plus LuaJIT's version. */
  readonly luaVersion: string;
}

/** Lua code that loads luasocket and the runtime, and reports which failed by its exit code. */
export function checkCode(spec: SearchPathSpec): string {
  return [
    ...searchPathCode(spec),
    'io.stdout:write(_VERSION, rawget(_G, "jit") and (" " .. jit.version) or "", "\\n")',
    'local ok, err = pcall(require, "socket.core")',
    `if not ok then io.stderr:write(tostring(err)) os.exit(${EXIT_NO_SOCKET}) end`,
    'ok, err = pcall(require, "LuaPanda")',
    `if not ok then io.stderr:write(tostring(err)) os.exit(${EXIT_NO_RUNTIME}) end`,
    'os.exit(0)',
  ].join('\n');
}

/** Resolves with the interpreter to launch; rejects with a `SessionError` that says what to fix. */
export async function checkInterpreter(
  spec: LaunchCheckSpec,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<CheckedInterpreter> {
  const env = programEnv(spec.env);
  const { child, interpreter } = await spawnInterpreter(spec, ['-e', checkCode(spec)], {
    cwd: spec.cwd,
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => {
      child.once('exit', (code, signal) => {
        const done = () => resolve({ code, signal });
        // 'close' follows once the pipes are drained; do not wait on it for ever.
        const grace = setTimeout(done, OUTPUT_GRACE_MS);
        child.once('close', () => {
          clearTimeout(grace);
          done();
        });
      });
    },
  );
  clearTimeout(timer);
  const luaVersion = stdout.split(/\r?\n/)[0]?.trim() ?? '';
  if (exit.code === 0 && exit.signal === null && !timedOut) return { interpreter, luaVersion };
  const located = locateCommand(interpreter, env, spec.cwd);
  const named = describeInterpreter(interpreter, located, luaVersion);
  if (timedOut) throw interpreterCheckTimedOut(named, timeoutMs);
  if (exit.code === EXIT_NO_SOCKET) throw luasocketMissing(named, luaVersion, stderr);
  if (exit.code === EXIT_NO_RUNTIME) throw runtimeLoadFailed(named, spec.runtimeDir, stderr);
  throw interpreterCheckFailed(named, describeExit(exit), stderr || stdout);
}
