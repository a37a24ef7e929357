/**
 * What debugged programs printed (stdout, stderr) and what logpoints and the debugger logged, as
 * lines an agent reads with a cursor, in the order the debugger received them. Logpoint lines get
 * a category of their own (`logpoint`, without the LuaPanda prefix, which every debugger of ours
 * and upstream's put in front). Bounded: the oldest lines go first, and a reader whose cursor fell
 * behind is told how many it missed.
 */

export interface OutputLine {
  /** Position in the log; pass the last one seen (or `next_cursor`) to read on. */
  readonly cursor: number;
  readonly sessionId: string;
  /** DAP output category (`stdout`, `stderr`, `console`, `important`, …), or `logpoint`. */
  readonly category: string;
  readonly text: string;
  readonly timestamp: string;
}

export interface OutputPage {
  readonly lines: OutputLine[];
  /** Pass as `cursor` next time to read only newer lines. */
  readonly nextCursor: number;
  /** Lines older than the log keeps that the reader never saw. */
  readonly dropped: number;
  /** More lines are waiting beyond `maxLines`. */
  readonly more: boolean;
}

export const OUTPUT_LOG_CAPACITY = 5000;
/** What LuaPanda runtimes (ours and upstream's) put in front of a logpoint's line. */
export const LOGPOINT_PREFIX = '[LogPoint Output]: ';
export const LOGPOINT_CATEGORY = 'logpoint';
/** A single printed line longer than this is cut, so one line cannot fill a result. */
export const MAX_LINE_CHARS = 2000;
/**
 * How long a line without its newline must stay unchanged before a reader gets it as a line (a
 * prompt, progress dots). Sooner, it may be a line that reached us in pieces: reading then would
 * cut it in two.
 */
export const PARTIAL_LINE_QUIET_MS = 250;

interface PendingLine {
  readonly text: string;
  /** When it last grew. */
  readonly at: number;
}

export class OutputLog {
  private readonly lines: OutputLine[] = [];
  private nextCursor = 1;
  /** Text of a line not yet ended by a newline, per session and category. */
  private readonly partial = new Map<string, PendingLine>();

  constructor(
    private readonly capacity = OUTPUT_LOG_CAPACITY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds DAP output text, which may hold several lines or part of one. */
  append(sessionId: string, category: string, text: string): void {
    const key = `${sessionId}\u0000${category}`;
    const pieces = ((this.partial.get(key)?.text ?? '') + text).split(/\r?\n/);
    const rest = pieces.pop() ?? '';
    if (rest === '') this.partial.delete(key);
    else this.partial.set(key, { text: rest, at: this.now() });
    for (const piece of pieces) this.push(sessionId, category, piece);
  }

  /** A session ended: what it left without a newline is its last line. */
  endSession(sessionId: string): void {
    this.flushPartials(sessionId, Infinity);
  }

  /** Lines after `cursor` (0: from the oldest kept), at most `maxLines`. */
  read(cursor: number, maxLines: number, sessionId?: string): OutputPage {
    this.flushPartials(sessionId, this.now() - PARTIAL_LINE_QUIET_MS);
    const oldest = this.lines[0]?.cursor ?? this.nextCursor;
    const dropped = Math.max(0, oldest - cursor - 1);
    const newer = this.lines.filter(
      (line) => line.cursor > cursor && (sessionId === undefined || line.sessionId === sessionId),
    );
    const page = newer.slice(0, maxLines);
    const last = page.at(-1)?.cursor ?? Math.max(cursor, oldest - 1);
    return {
      lines: page,
      nextCursor: last,
      dropped: cursor === 0 ? 0 : dropped,
      more: newer.length > page.length,
    };
  }

  /** Takes as lines the partial lines (of a session) that have not grown since `before`. */
  private flushPartials(sessionId: string | undefined, before: number): void {
    for (const [key, { text, at }] of [...this.partial]) {
      const [owner, category] = key.split('\u0000');
      if (sessionId !== undefined && owner !== sessionId) continue;
      if (at > before) continue;
      this.partial.delete(key);
      this.push(owner, category, text);
    }
  }

  private push(sessionId: string, category: string, line: string): void {
    const logpoint = category === 'console' && line.startsWith(LOGPOINT_PREFIX);
    if (logpoint) category = LOGPOINT_CATEGORY;
    const text = logpoint ? line.slice(LOGPOINT_PREFIX.length) : line;
    const cut =
      text.length > MAX_LINE_CHARS
        ? `${text.slice(0, MAX_LINE_CHARS)}… (${text.length} chars)`
        : text;
    this.lines.push({
      cursor: this.nextCursor++,
      sessionId,
      category,
      text: cut,
      timestamp: new Date().toISOString(),
    });
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }
}
