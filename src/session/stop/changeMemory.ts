/**
 * What changed since the last stop: per Lua function (source and definition line), the previews
 * of its locals, upvalues and `self` fields as last read at a stop, so that a stop in the same
 * function can mark the values that differ and say what they were. Bounded: the most recently
 * stopped-in functions only, a cap on names per function and on a stored preview's length.
 * Values are compared by their preview text (a table's is its shallow preview: the runtime sends
 * no identity), which the listing already carries, so nothing is walked for this.
 */

/** Functions remembered; the one stopped in longest ago is forgotten first. */
export const MAX_FUNCTIONS = 64;
/** Names remembered per function (locals, upvalues and `self` fields together). */
export const MAX_NAMES = 128;
/** A preview is remembered up to this length: longer ones compare by their start and length. */
export const MAX_PREVIEW_CHARS = 200;

/** Where a remembered value lives in its frame. */
export type ChangeScope = 'local' | 'upvalue' | 'self';

export interface ValueChange {
  readonly scope: ChangeScope;
  /** The variable's name; a field of `self` as `self.name`. */
  readonly name: string;
  readonly old: string;
  readonly new: string;
}

interface FunctionMemory {
  /** Values as of the last stop in this function that read them. */
  readonly seen: Map<string, string>;
  /** Values read at the current stop (folded into `seen` when the function is stopped in again). */
  current: Map<string, string>;
}

export class ChangeMemory {
  private readonly functions = new Map<string, FunctionMemory>();
  private memory: FunctionMemory | undefined;
  private changes = new Map<string, ValueChange>();

  /**
   * A new stop in the function `key` (undefined: nothing to compare, e.g. no frame). Values read
   * at its earlier stops become the baseline; this stop's readings start empty.
   */
  beginStop(key: string | undefined): void {
    this.changes = new Map();
    this.memory = undefined;
    if (key === undefined) return;
    let memory = this.functions.get(key);
    if (memory) {
      this.functions.delete(key);
      for (const [name, preview] of memory.current) remember(memory.seen, name, preview);
      memory.current = new Map();
    } else {
      memory = { seen: new Map(), current: new Map() };
      if (this.functions.size >= MAX_FUNCTIONS) {
        const oldest = this.functions.keys().next().value;
        if (oldest !== undefined) this.functions.delete(oldest);
      }
    }
    // Re-inserted: a Map's order is the recency the cap forgets by.
    this.functions.set(key, memory);
    this.memory = memory;
  }

  /**
   * Notes a value read at this stop; its old preview when the previous stop in the same function
   * read a different one, else undefined (never seen before, unchanged, or no function).
   */
  note(scope: ChangeScope, name: string, preview: string): string | undefined {
    const memory = this.memory;
    if (!memory) return undefined;
    const key = `${scope}:${name}`;
    const value = clip(preview);
    remember(memory.current, key, value);
    const old = memory.seen.get(key);
    if (old === undefined || old === value) return undefined;
    this.changes.set(key, {
      scope,
      name: scope === 'self' ? `self.${name}` : name,
      old,
      new: preview,
    });
    return old;
  }

  /** Forgets every function (the link dropped: a game that comes back is a new run). */
  forget(): void {
    this.functions.clear();
    this.memory = undefined;
    this.changes = new Map();
  }

  /** The changes noted at this stop so far, in the order they were read. */
  changed(): ValueChange[] {
    return [...this.changes.values()];
  }
}

function remember(map: Map<string, string>, key: string, value: string): void {
  if (map.has(key) || map.size < MAX_NAMES) map.set(key, value);
}

function clip(preview: string): string {
  return preview.length <= MAX_PREVIEW_CHARS
    ? preview
    : `${preview.slice(0, MAX_PREVIEW_CHARS)}… (${preview.length} chars)`;
}
