/**
 * The Lua sources breakpoints are set in, read for the line analysis (breakpointLines.ts): each
 * file is read again only when its size or modification time changed, and a file that cannot be
 * read gives the reason instead (the breakpoint is then set on its line as it is).
 */
import { promises as fs } from 'node:fs';
import { LineBinding, SourceLines } from './breakpointLines';
import type { LuaDialect } from './luaDialect';

/** A file's analysis, or why there is none. */
export type SourceInfo = { readonly lines: SourceLines } | { readonly unreadable: string };

export class SourceFiles {
  private readonly cache = new Map<string, { stamp: string; info: SourceInfo }>();

  /** `onRead` hears each text read (the session keeps the first as the one the program runs). */
  constructor(private readonly onRead?: (path: string, text: string) => void) {}

  async read(path: string): Promise<SourceInfo> {
    let stamp: string;
    try {
      const stat = await fs.stat(path);
      stamp = `${stat.size}:${stat.mtimeMs}`;
      const cached = this.cache.get(path);
      if (cached?.stamp === stamp) return cached.info;
      const text = await fs.readFile(path, 'utf8');
      this.onRead?.(path, text);
      const info = { lines: new SourceLines(text) };
      this.cache.set(path, { stamp, info });
      return info;
    } catch (error) {
      this.cache.delete(path);
      const code = (error as NodeJS.ErrnoException).code;
      return {
        unreadable:
          code === 'ENOENT'
            ? 'the file does not exist here'
            : `it could not be read: ${(error as Error).message}`,
      };
    }
  }
}

/** Where a breakpoint on `line` binds in `source` (a file that cannot be read: as it is). */
export function bindingIn(source: SourceInfo, line: number, dialect?: LuaDialect): LineBinding {
  if ('unreadable' in source) {
    return {
      kind: 'unchecked',
      message:
        `The file could not be read (${source.unreadable}), so line ${line} is not checked ` +
        'for code; the breakpoint is set on it as it is.',
    };
  }
  return source.lines.bind(line, dialect);
}
