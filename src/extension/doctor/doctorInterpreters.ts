/**
 * The Doctor's interpreter check: the very check a launch runs before the program (the
 * interpreter loads luasocket and the runtime, with the configuration's own luaPath, env, cwd and
 * runtimePath), for each launch configuration of the workspace and for the usual interpreter
 * names. Asynchronous and bounded, so the extension host never blocks on an interpreter. A
 * configuration is judged where it runs, in VS Code: `${file}` is the active editor's file.
 */
import * as path from 'node:path';
import { DEFAULT_INTERPRETERS } from '../../adapter/launchConfig';
import { LaunchConfiguration } from '../../mcp/channel';
import { VscodeOnlyVariableError, resolveVariables } from '../../mcp/launchConfig';
import { SessionError, checkInterpreter, nativeDirFor } from '../../session';

export interface InterpreterFact {
  readonly name: string;
  /** `unchecked`: what the check needs is known only when VS Code starts the session. */
  readonly verdict: 'ok' | 'failed' | 'unchecked';
  readonly detail: string;
}

/** The attributes the check reads; the others (`program`, `args`…) may use any variable. */
const CHECKED_ATTRIBUTES = ['luaPath', 'cwd', 'env', 'runtimePath'] as const;

/** Names checked besides the configurations' own interpreters. */
const USUAL_NAMES = ['lua5.4', 'lua5.1', 'luajit', 'lua'];

export async function checkInterpreters(
  configs: readonly LaunchConfiguration[],
  workspace: string | undefined,
  runtimeDir: string,
  editorFile?: string,
): Promise<InterpreterFact[]> {
  const checks: Promise<InterpreterFact>[] = [];
  for (const config of configs.filter((c) => c.request === 'launch')) {
    checks.push(checkConfiguration(config, workspace, runtimeDir, editorFile));
  }
  for (const name of USUAL_NAMES) {
    checks.push(
      check(name, { interpreters: [name], cwd: workspace ?? process.cwd(), env: {} }, runtimeDir),
    );
  }
  return Promise.all(checks);
}

async function checkConfiguration(
  config: LaunchConfiguration,
  workspace: string | undefined,
  runtimeDir: string,
  editorFile: string | undefined,
): Promise<InterpreterFact> {
  const checked: LaunchConfiguration = { name: config.name, type: config.type, request: 'launch' };
  for (const key of CHECKED_ATTRIBUTES) if (key in config) checked[key] = config[key];
  let resolved: LaunchConfiguration;
  try {
    resolved = workspace ? resolveVariables(checked, workspace, { file: editorFile }) : checked;
  } catch (e) {
    const verdict = e instanceof VscodeOnlyVariableError ? 'unchecked' : 'failed';
    return { name: `"${config.name}"`, verdict, detail: (e as Error).message };
  }
  const luaPath = typeof resolved.luaPath === 'string' ? resolved.luaPath : undefined;
  const cwd = typeof resolved.cwd === 'string' && resolved.cwd !== '' ? resolved.cwd : workspace;
  const env = isEnv(resolved.env) ? resolved.env : {};
  const runtime = typeof resolved.runtimePath === 'string' ? resolved.runtimePath : runtimeDir;
  const interpreters = luaPath ? [luaPath] : DEFAULT_INTERPRETERS;
  return check(
    `"${config.name}" (${interpreters.join(' or ')})`,
    { interpreters, fromLuaPath: luaPath !== undefined, cwd: path.resolve(cwd ?? '.'), env },
    runtime,
  );
}

async function check(
  name: string,
  spec: {
    interpreters: readonly string[];
    fromLuaPath?: boolean;
    cwd: string;
    env: Record<string, string | null>;
  },
  runtimeDir: string,
): Promise<InterpreterFact> {
  try {
    const checked = await checkInterpreter({
      ...spec,
      runtimeDir,
      nativeDir: nativeDirFor(runtimeDir),
    });
    return { name, verdict: 'ok', detail: `${checked.luaVersion} with luasocket and the runtime` };
  } catch (e) {
    if (e instanceof SessionError && e.code === 'interpreter-not-found') {
      return { name, verdict: 'failed', detail: 'not found' };
    }
    // The quoted search paths of `require` (tab-indented lines) are too long for a report.
    const lines = (e as Error).message.split('\n').filter((line) => !line.startsWith('\t'));
    return { name, verdict: 'failed', detail: lines.join(' ') };
  }
}

function isEnv(value: unknown): value is Record<string, string | null> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((v) => typeof v === 'string' || v === null)
  );
}
