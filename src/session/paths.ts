/**
 * Pure path logic between the Lua side and the workspace (protocol doc section 11): chunk names
 * (`@./a/b.lua`, `@a.b.c`, `b.lua`, absolute paths) and the `file`/`oPath` of stack frames are
 * mapped to workspace files, and workspace files to the path a `setBreakPoint` carries. No file
 * system access here: both separators, drive letters, case folding and `docPathReplace` are done
 * on strings, so Windows inputs are handled (and unit-tested) on any machine.
 */

export interface PathSettings {
  /** The workspace root, where relative chunk names are looked up. */
  readonly cwd: string;
  /** `pathCaseSensitivity`: when false, paths compare case-insensitively (as the Lua side does). */
  readonly caseSensitive: boolean;
  /** `luaFileExtension` without its leading dot (`''`, `lua.txt`, `txt`, …). */
  readonly luaFileExtension: string;
  /** `docPathReplace`: `[remotePrefix, localPrefix]`, for games whose file layout differs. */
  readonly docPathReplace?: readonly [string, string];
}

/** Slashes forward, `//` and `.` segments dropped, `..` resolved, drive letter lower-cased. */
export function normalizePath(input: string): string {
  const text = input.replace(/\\/g, '/');
  const unc = text.startsWith('//');
  const rooted = text.startsWith('/');
  const out: string[] = [];
  for (const segment of text.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      const last = out[out.length - 1];
      if (last !== undefined && last !== '..' && !isDrive(last)) out.pop();
      else if (!rooted && last === undefined) out.push('..');
      continue;
    }
    out.push(out.length === 0 && isDrive(segment) ? segment.toLowerCase() : segment);
  }
  const body = out.join('/');
  if (unc) return `//${body}`;
  if (rooted) return `/${body}`;
  return out.length === 1 && isDrive(out[0]) ? `${body}/` : body;
}

function isDrive(segment: string): boolean {
  return /^[A-Za-z]:$/.test(segment);
}

export function isAbsolutePath(p: string): boolean {
  return /^([A-Za-z]:)?[\\/]/.test(p) || /^[A-Za-z]:$/.test(p);
}

export function joinPath(base: string, relative: string): string {
  if (isAbsolutePath(relative)) return normalizePath(relative);
  return normalizePath(`${base}/${relative}`);
}

export function baseName(p: string): string {
  const normal = p.replace(/\\/g, '/');
  return normal.slice(normal.lastIndexOf('/') + 1);
}

/** The form two paths are compared in. */
export function comparable(p: string, caseSensitive: boolean): string {
  const normal = normalizePath(p);
  return caseSensitive ? normal : normal.toLowerCase();
}

export function samePath(a: string, b: string, caseSensitive: boolean): boolean {
  return comparable(a, caseSensitive) === comparable(b, caseSensitive);
}

/** Replaces `from` at the start of `p` by `to`, comparing separators and case loosely. */
function replacePrefix(
  p: string,
  from: string,
  to: string,
  caseSensitive: boolean,
): string | undefined {
  if (from === '') return undefined;
  const path = normalizePath(p);
  const prefix = normalizePath(from).replace(/\/$/, '');
  const head = path.slice(0, prefix.length);
  const same = caseSensitive ? head === prefix : head.toLowerCase() === prefix.toLowerCase();
  const rest = path.slice(prefix.length);
  if (!same || (rest !== '' && !rest.startsWith('/'))) return undefined;
  return normalizePath(to).replace(/\/$/, '') + rest;
}

/** The `path` of a `setBreakPoint` for a workspace file (upstream's genUnifiedPath + 11.5). */
export function toWirePath(localPath: string, settings: PathSettings): string {
  const normal = normalizePath(localPath);
  const replace = settings.docPathReplace;
  if (replace) {
    const remote = replacePrefix(normal, replace[1], replace[0], settings.caseSensitive);
    if (remote !== undefined) return remote;
  }
  return normal;
}

/**
 * A chunk name as a path: `@` and `./` stripped, line-end characters trimmed, and a dotted module
 * name (`game.player`) turned into `game/player.lua` (or the configured extension).
 */
export function chunkNameToPath(chunk: string, luaFileExtension = ''): string {
  let p = chunk.replace(/[\r\n]+$/, '').replace(/^@/, '');
  p = p.replace(/^\.[\\/]/, '');
  const extensions = ['.lua', '.lua.txt', '.lua.bytes', '.txt'];
  if (luaFileExtension !== '') extensions.unshift(`.${luaFileExtension}`);
  const lower = p.toLowerCase();
  const hasExtension = extensions.some((ext) => lower.endsWith(ext));
  if (!hasExtension && !/[\\/]/.test(p) && /^[\w.-]+$/.test(p) && p.includes('.')) {
    p = `${p.replace(/\./g, '/')}.${luaFileExtension || 'lua'}`;
  } else if (!hasExtension && /^[\w-]+$/.test(p)) {
    p = `${p}.${luaFileExtension || 'lua'}`;
  }
  return p;
}

export interface FrameLocation {
  readonly file: string;
  readonly oPath?: string;
}

/**
 * Maps stack-frame locations to workspace files. It is given the workspace's Lua files (and learns
 * more from breakpoints); lookups are cached per `file`/`oPath` pair.
 */
export class SourceMapper {
  /** comparable path → the path as the workspace spells it. */
  private readonly byPath = new Map<string, string>();
  /** comparable base name → workspace paths with that name, sorted. */
  private readonly byName = new Map<string, string[]>();
  private readonly cache = new Map<string, string | undefined>();

  constructor(
    readonly settings: PathSettings,
    files: Iterable<string> = [],
  ) {
    for (const file of files) this.addFile(file);
  }

  /** Makes a workspace file known (files that hold breakpoints are always added). */
  addFile(file: string): void {
    const key = comparable(file, this.settings.caseSensitive);
    if (this.byPath.has(key)) return;
    this.byPath.set(key, file);
    const name = this.fold(baseName(key));
    const list = this.byName.get(name) ?? [];
    list.push(file);
    list.sort();
    this.byName.set(name, list);
    this.cache.clear();
  }

  /** Every workspace file known (scanned, or holding breakpoints). */
  files(): string[] {
    return [...this.byPath.values()];
  }

  /** The path a `setBreakPoint` carries for a workspace file. */
  wirePath(localPath: string): string {
    return toWirePath(localPath, this.settings);
  }

  /** The workspace file of a frame, or undefined when nothing fits. */
  resolve(location: FrameLocation): string | undefined {
    const cacheKey = `${location.file}\u0000${location.oPath ?? ''}`;
    if (this.cache.has(cacheKey)) return this.cache.get(cacheKey);
    const found = this.lookup(location);
    this.cache.set(cacheKey, found);
    return found;
  }

  private lookup(location: FrameLocation): string | undefined {
    const candidates = [location.oPath, location.file]
      .filter((c): c is string => c !== undefined && c !== '')
      .map((c) => this.toLocal(chunkNameToPath(c, this.settings.luaFileExtension)));
    for (const p of candidates) {
      const direct = this.byPath.get(
        this.key(isAbsolutePath(p) ? p : joinPath(this.settings.cwd, p)),
      );
      if (direct) return direct;
    }
    for (const p of candidates) {
      const bySuffix = this.suffixMatch(p);
      if (bySuffix) return bySuffix;
    }
    // Outside the workspace: an absolute path is still the best answer there is.
    return candidates.find((p) => isAbsolutePath(p));
  }

  /** The workspace file whose path ends with `p` (segment-wise); same-name files pick by suffix. */
  private suffixMatch(p: string): string | undefined {
    const wanted = this.key(p).replace(/^\/+/, '');
    if (wanted === '' || wanted.startsWith('..')) return undefined;
    const named = this.byName.get(this.fold(baseName(wanted)));
    if (!named) return undefined;
    let best: string | undefined;
    let bestScore = -1;
    for (const file of named) {
      const score = commonSuffixSegments(this.key(file), wanted);
      if (score > bestScore) {
        best = file;
        bestScore = score;
      }
    }
    return best;
  }

  /** Applies `docPathReplace` backwards (remote prefix → local prefix). */
  private toLocal(p: string): string {
    const replace = this.settings.docPathReplace;
    if (!replace) return p;
    return replacePrefix(p, replace[0], replace[1], this.settings.caseSensitive) ?? p;
  }

  private key(p: string): string {
    return comparable(p, this.settings.caseSensitive);
  }

  private fold(text: string): string {
    return this.settings.caseSensitive ? text : text.toLowerCase();
  }
}

function commonSuffixSegments(a: string, b: string): number {
  const x = a.split('/');
  const y = b.split('/');
  let n = 0;
  while (n < x.length && n < y.length && x[x.length - 1 - n] === y[y.length - 1 - n]) n++;
  return n;
}
