/**
 * The program's coroutines as the runtime knows them (`listCoroutines`, feature listCoroutines):
 * status, and for a suspended or resuming one where it stands (file, line, function) with that
 * line's source text as its preview. The runtime knows the coroutines created, resumed or adopted
 * while an IDE is attached (Docs/Protocol_Extensions.md says which it can miss). LuaSession calls
 * it at a stop.
 */
import { promises as fs } from 'node:fs';
import type { FeatureSet, IdeRequestInfo, ReplyInfo } from '../protocol';
import { SessionError } from './errors';

export interface CoroutineView {
  /** The coroutine's tostring, as stack frames name it. */
  readonly id: string;
  readonly status: 'running' | 'suspended' | 'normal' | 'dead';
  readonly wrap?: boolean;
  /** The workspace file where it stands, when the chunk name maps to one. */
  readonly path?: string;
  readonly chunk?: string;
  readonly line?: number;
  readonly functionName?: string;
  /** The source line where it stands, trimmed and cut. */
  readonly preview?: string;
}

export interface CoroutineList {
  readonly coroutines: readonly CoroutineView[];
  /** How many the runtime knows; more than listed when the list stopped at its cap. */
  readonly total: number;
}

export interface CoroutineListHost {
  readonly features: FeatureSet;
  resolve(place: { file: string; oPath?: string }): string | undefined;
  send(info: IdeRequestInfo<'listCoroutines'>): Promise<ReplyInfo<'listCoroutines'>>;
}

export const MAX_COROUTINES = 200;
const PREVIEW_CHARS = 120;
const MAX_FILE_BYTES = 4 * 1024 * 1024;

export async function listCoroutines(host: CoroutineListHost, max: number): Promise<CoroutineList> {
  if (!host.features.has('listCoroutines')) {
    throw new SessionError(
      'not-supported',
      'The Lua runtime in this program cannot list its coroutines (it is an older copy of ' +
        "LuaPanda.lua, or upstream's).",
    );
  }
  const cap = Math.max(0, Math.min(MAX_COROUTINES, Math.floor(max)));
  const reply = await host.send({ max: String(cap) });
  const texts = new Map<string, Promise<string[] | undefined>>();
  const coroutines = await Promise.all(
    reply.coroutines.slice(0, cap).map(async (entry): Promise<CoroutineView> => {
      const path =
        entry.file !== undefined
          ? host.resolve({ file: entry.file, oPath: entry.oPath })
          : undefined;
      const chunk = entry.oPath !== undefined && entry.oPath !== '' ? entry.oPath : entry.file;
      const line = entry.line !== undefined && entry.line > 0 ? entry.line : undefined;
      let preview: string | undefined;
      if (path !== undefined && line !== undefined) {
        if (!texts.has(path)) texts.set(path, linesOf(path));
        const text = (await texts.get(path))?.[line - 1]?.trim();
        if (text) preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
      }
      return {
        id: entry.id,
        status: entry.status,
        ...(entry.wrap ? { wrap: true } : {}),
        ...(path !== undefined ? { path } : {}),
        ...(chunk !== undefined ? { chunk } : {}),
        ...(line !== undefined ? { line } : {}),
        ...(entry.name ? { functionName: entry.name } : {}),
        ...(preview !== undefined ? { preview } : {}),
      };
    }),
  );
  return { coroutines, total: Math.max(reply.total, coroutines.length) };
}

async function linesOf(path: string): Promise<string[] | undefined> {
  try {
    const stat = await fs.stat(path);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    return (await fs.readFile(path, 'utf8')).split(/\r?\n|\r/);
  } catch {
    return undefined;
  }
}
