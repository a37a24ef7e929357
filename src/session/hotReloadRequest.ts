/**
 * What a hot reload asks of the Lua side, and what its failures say: the file's text (the
 * caller's, or read from disk), the `hotReload` request under the path breakpoints use, and the
 * errors a user can act on — a runtime without the feature, a file that cannot be read, a program
 * that did not reach a safe point in time. LuaSession calls it; the report is hotReload.ts's.
 */
import { promises as fs } from 'node:fs';
import type { FeatureSet, IdeRequestInfo, ReplyInfo } from '../protocol';
import { SessionError, toSessionError } from './errors';
import { HotReloadReport, normalizeReport } from './hotReload';
import { nameReport } from './hotReloadNames';
import type { RunningSources } from './runningSources';
import { isAbsolutePath, joinPath } from './paths';
import { SLOW_POLL_HINT } from './link/attachHint';

export interface HotReloadHost {
  readonly cwd: string;
  readonly features: FeatureSet;
  /** The path a `setBreakPoint` carries for a workspace file. */
  wirePath(localPath: string): string;
  /** Sends the request, bounded by `timeoutMs`; rejects with a `SessionError`. */
  send(info: IdeRequestInfo<'hotReload'>, timeoutMs: number): Promise<ReplyInfo<'hotReload'>>;
  readonly timeoutMs: number;
  /** The texts the program runs: what a reload's functions are compared with, then updated. */
  readonly sources: RunningSources;
}

export const RUNTIME_CANNOT_RELOAD =
  'The Lua runtime in this program cannot hot reload (it is an older copy of LuaPanda.lua, or ' +
  "upstream's): copy the current LuaPanda.lua into the game (Command Palette → LuaPanda: Copy " +
  'LuaPanda.lua into the Workspace) and restart it.';

export async function hotReloadFile(
  host: HotReloadHost,
  path: string,
  source?: string,
): Promise<HotReloadReport> {
  if (!host.features.has('hotReload')) {
    throw new SessionError('not-supported', RUNTIME_CANNOT_RELOAD);
  }
  const local = isAbsolutePath(path) ? path : joinPath(host.cwd, path);
  const text = withoutBom(source ?? (await readSource(local)));
  try {
    const reply = await host.send({ path: host.wirePath(local), source: text }, host.timeoutMs);
    const report = nameReport(normalizeReport(local, reply), text, host.sources.textOf(local));
    if (report.status === 'success') host.sources.loaded(local, text);
    return report;
  } catch (error) {
    const failure = toSessionError(error);
    if (failure.code !== 'request-timeout') throw failure;
    // A running program reads commands at its safe points only (a hook, a GC step, tick()).
    throw new SessionError(
      'request-timeout',
      `Hot reload of ${local}: the program did not reach a safe point in ` +
        `${seconds(host.timeoutMs)} s (it may be blocked, or waiting for its next poll). ` +
        `${SLOW_POLL_HINT} The reload is still queued and happens when it does, without a ` +
        'report; pause the program and reload again to see one.',
    );
  }
}

async function readSource(path: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SessionError(
      'source-unreadable',
      code === 'ENOENT'
        ? `Cannot hot reload ${path}: there is no such file.`
        : `Cannot hot reload ${path}: it could not be read (${(error as Error).message}).`,
    );
  }
}

/** Lua skips a UTF-8 byte-order mark when it loads a file, but not in a string it compiles. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
