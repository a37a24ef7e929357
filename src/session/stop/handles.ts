/**
 * A handle table: small positive integers standing for objects that live until the program moves
 * (stack frames, scopes, expandable values). Numbers are never reused, so a handle from an
 * earlier stop is reported as invalid instead of silently meaning something else.
 */
export class HandleTable<T> {
  private next = 1;
  private readonly entries = new Map<number, T>();
  private readonly byKey = new Map<string, number>();

  /** A handle for `value`; the same `key` within one generation gives the same handle. */
  create(value: T, key?: string): number {
    if (key !== undefined) {
      const existing = this.byKey.get(key);
      if (existing !== undefined) return existing;
    }
    const handle = this.next++;
    this.entries.set(handle, value);
    if (key !== undefined) this.byKey.set(key, handle);
    return handle;
  }

  /** A handle for a value that has to know its own handle. */
  allocate(make: (handle: number) => T): T {
    const handle = this.next++;
    const value = make(handle);
    this.entries.set(handle, value);
    return value;
  }

  get(handle: number): T | undefined {
    return this.entries.get(handle);
  }

  /** Forgets every handle (the program moved); numbers keep growing. */
  invalidate(): void {
    this.entries.clear();
    this.byKey.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
