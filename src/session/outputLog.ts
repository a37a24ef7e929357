/**
 * Program output kept by a session: stdout/stderr of a launched program, logpoint lines and the
 * runtime's messages, each with a sequence number so that a reader can ask for what is new
 * since its cursor. The log is bounded; the oldest entries go first.
 */
import type { OutputCategory, OutputEntry } from './types';

const MAX_ENTRIES = 10_000;

export class OutputLog {
  private readonly entries: OutputEntry[] = [];
  private nextSeq = 1;

  constructor(private readonly onEntry: (entry: OutputEntry) => void) {}

  add(category: OutputCategory, text: string): void {
    const entry = { seq: this.nextSeq++, category, text, timestamp: new Date().toISOString() };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES)
      this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    this.onEntry(entry);
  }

  /** Entries with `seq >= cursor`, and the cursor to pass next time. */
  since(cursor: number): { entries: OutputEntry[]; next: number } {
    return { entries: this.entries.filter((e) => e.seq >= cursor), next: this.nextSeq };
  }
}
