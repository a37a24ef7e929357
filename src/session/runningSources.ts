/**
 * The text of each Lua file as the program runs it, as far as this session saw it: the first text
 * it read of a file (for breakpoints, which are mostly set before the program loads the file, and
 * for a stop's frame names), then each text a hot reload loaded. A reload compares its new text
 * with this one to tell the functions it changed from those it only re-bound (hotReloadNames.ts).
 */
import * as path from 'node:path';

export class RunningSources {
  private readonly texts = new Map<string, string>();

  /**
   * A text read from disk. Kept only while nothing is known of the file: once the program loaded
   * it, a later save on disk is not what it runs until a reload says so.
   */
  seen(file: string, text: string): void {
    const key = keyOf(file);
    if (!this.texts.has(key)) this.texts.set(key, text);
  }

  /** The text a hot reload loaded into the program. */
  loaded(file: string, text: string): void {
    this.texts.set(keyOf(file), text);
  }

  /** The text the program runs, when this session saw it. */
  textOf(file: string): string | undefined {
    return this.texts.get(keyOf(file));
  }
}

function keyOf(file: string): string {
  return path.normalize(file);
}
