/**
 * Frame names as the programmer wrote them. The runtime tells where a frame's function is defined
 * (`defined`: its first line) and, when a loaded module holds it, `module.field`; this reads the
 * source file once (luaparse), finds the function defined there and names it the way its
 * definition does: `Entity:update`, `Entity.new`, `love.update`, `tick` for `local function tick`,
 * `function <file.lua:12>` for an anonymous one. Lua's own call-site name is the last resort.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as luaparse from 'luaparse';
import { rewriteGlobalDeclarations } from '../lines/globalDeclarations';

/** How a function is defined, and the name its definition gives it. */
export interface Definition {
  readonly kind: 'method' | 'field' | 'named' | 'anonymous';
  readonly text: string;
  readonly firstLine: number;
  readonly lastLine: number;
}

interface FileIndex {
  readonly mtimeMs: number;
  readonly size: number;
  readonly definitions: Definition[];
}

type Node = luaparse.Node;

/**
 * Lua 5.4's `<const>`/`<close>` attributes and 5.5's `global` declarations, which luaparse does
 * not know: rewritten, lines and offsets kept (`global function f` is then `function f`).
 */
function withoutAttributes(source: string): string {
  return rewriteGlobalDeclarations(source).replace(/<\s*(const|close)\s*>/g, (m) =>
    ' '.repeat(m.length),
  );
}

function textOf(source: string, node: Node): string {
  const range = (node as { range?: [number, number] }).range;
  return range ? source.slice(range[0], range[1]).replace(/\s+/g, '') : '?';
}

/** The definitions of every function of a chunk, in source order. */
export function definitionsOf(source: string): Definition[] {
  const ast = luaparse.parse(withoutAttributes(source), {
    locations: true,
    ranges: true,
    luaVersion: 'LuaJIT',
    comments: false,
    // A chunk that is not valid for luaparse is read no further (names fall back).
  });
  const out: Definition[] = [];
  const add = (fn: luaparse.FunctionDeclaration, kind: Definition['kind'], text: string) => {
    out.push({ kind, text, firstLine: fn.loc?.start.line ?? 0, lastLine: fn.loc?.end.line ?? 0 });
  };
  const visit = (
    node: Node | null | undefined,
    nameHint?: { kind: Definition['kind']; text: string },
  ) => {
    if (!node || typeof node !== 'object') return;
    if (node.type === 'FunctionDeclaration') {
      const id = node.identifier;
      if (id && id.type === 'MemberExpression') {
        add(node, id.indexer === ':' ? 'method' : 'field', textOf(source, id));
      } else if (id && id.type === 'Identifier') {
        add(node, 'named', id.name);
      } else if (nameHint) {
        add(node, nameHint.kind, nameHint.text);
      } else {
        add(node, 'anonymous', '');
      }
      for (const statement of node.body) visit(statement);
      return;
    }
    if (node.type === 'LocalStatement' || node.type === 'AssignmentStatement') {
      node.init.forEach((value, i) => {
        const target = node.variables[i];
        let hint: { kind: Definition['kind']; text: string } | undefined;
        if (target?.type === 'Identifier') hint = { kind: 'named', text: target.name };
        else if (target?.type === 'MemberExpression')
          hint = { kind: 'field', text: textOf(source, target) };
        visit(value, hint);
      });
      return;
    }
    if (node.type === 'TableConstructorExpression') {
      // `local handlers = { fn = function … }`: the field is named `handlers.fn`.
      for (const field of node.fields) {
        if (field.type === 'TableKeyString') {
          const text = nameHint ? `${nameHint.text}.${field.key.name}` : field.key.name;
          visit(field.value, { kind: nameHint ? 'field' : 'named', text });
        } else {
          visit(field.value);
          if (field.type === 'TableKey') visit(field.key);
        }
      }
      return;
    }
    for (const value of Object.values(node as unknown as Record<string, unknown>)) {
      if (Array.isArray(value)) {
        for (const item of value)
          if (item && typeof item === 'object' && 'type' in item) visit(item as Node);
      } else if (value && typeof value === 'object' && 'type' in value) {
        visit(value as Node);
      }
    }
  };
  for (const statement of ast.body) visit(statement);
  return out;
}

/** Definitions per file, read again when the file changes; unreadable files give none. */
export class FunctionNames {
  private readonly files = new Map<string, FileIndex | null>();

  /** `onRead` hears each text read (the session keeps the first as the one the program runs). */
  constructor(private readonly onRead?: (file: string, text: string) => void) {}

  /** The definition of the function defined at `line` of `file`, if the source says. */
  definitionAt(file: string, line: number): Definition | undefined {
    const index = this.indexOf(file);
    return index?.definitions.find((d) => d.firstLine === line);
  }

  /**
   * The name a frame shows: the definition's, as written (`Entity:update`, `M.helper`, `tick`);
   * for a function defined without a name, the loaded module's field that holds it
   * (`util.helper`), else `function <file.lua:12>`; where the source cannot be read, the module's
   * name, else Lua's call-site name.
   */
  frameName(
    file: string | undefined,
    defined: number | undefined,
    moduleName: string | undefined,
    callSiteName: string | undefined,
  ): string | undefined {
    const definition =
      file !== undefined && defined !== undefined ? this.definitionAt(file, defined) : undefined;
    if (definition && definition.kind !== 'anonymous') return definition.text;
    if (moduleName !== undefined) return moduleName;
    if (definition && file !== undefined) return `function <${path.basename(file)}:${defined}>`;
    return callSiteName;
  }

  private indexOf(file: string): FileIndex | undefined {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      return undefined;
    }
    const cached = this.files.get(file);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached;
    if (cached === null && stat.size > MAX_SOURCE_BYTES) return undefined;
    let definitions: Definition[] = [];
    if (stat.size <= MAX_SOURCE_BYTES) {
      try {
        const text = fs.readFileSync(file, 'utf8');
        this.onRead?.(file, text);
        definitions = definitionsOf(text);
      } catch {
        definitions = []; // not Lua luaparse can read: names fall back to Lua's
      }
    }
    const index = { mtimeMs: stat.mtimeMs, size: stat.size, definitions };
    this.files.set(file, index);
    return index;
  }
}

/** Sources larger than this are not parsed for names (a generated file, a data dump). */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
