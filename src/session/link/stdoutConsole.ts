/**
 * Takes the runtime's debug-console lines (logpoints) out of a launched program's stdout. In
 * launch mode the runtime writes them into stdout between CONSOLE_MARKER and a NUL
 * (lua/luapanda/consolepipe.lua) so that they keep their place among what the program printed:
 * stdout comes through a pipe and the runtime's frames through a socket, and lines from two
 * channels read in chunks cannot be put back in order afterwards. Chunks may split a marker or a
 * line anywhere; what is not yet whole waits for the next chunk.
 */

/** Starts a console line in stdout; the line ends at the next NUL. */
export const CONSOLE_MARKER = '\u0000LuaPanda console:';
const END = '\u0000';
/** A console line longer than this without its end is taken as program output after all. */
const MAX_PENDING_CHARS = 1 << 20;

export interface StdoutPiece {
  readonly kind: 'stdout' | 'console';
  readonly text: string;
}

export class StdoutConsoleSplitter {
  private pending = '';

  /** Splits a chunk of stdout into program output and console lines, in order. */
  push(chunk: string): StdoutPiece[] {
    let text = this.pending + chunk;
    this.pending = '';
    const pieces: StdoutPiece[] = [];
    for (;;) {
      const start = text.indexOf(CONSOLE_MARKER);
      if (start < 0) {
        // Keep back a tail that may be the beginning of a marker split by the chunk.
        const keep = partialMarkerLength(text);
        this.add(pieces, 'stdout', text.slice(0, text.length - keep));
        this.pending = text.slice(text.length - keep);
        return pieces;
      }
      this.add(pieces, 'stdout', text.slice(0, start));
      const bodyStart = start + CONSOLE_MARKER.length;
      const end = text.indexOf(END, bodyStart);
      if (end < 0) {
        if (text.length - start > MAX_PENDING_CHARS) {
          this.add(pieces, 'stdout', text.slice(start));
          return pieces;
        }
        this.pending = text.slice(start);
        return pieces;
      }
      this.add(pieces, 'console', ensureNewline(text.slice(bodyStart, end)));
      text = text.slice(end + END.length);
    }
  }

  /** What is held back, as program output (the program ended). */
  flush(): StdoutPiece[] {
    const rest = this.pending;
    this.pending = '';
    return rest === '' ? [] : [{ kind: 'stdout', text: rest }];
  }

  private add(pieces: StdoutPiece[], kind: StdoutPiece['kind'], text: string): void {
    if (text !== '') pieces.push({ kind, text });
  }
}

/** Length of the longest end of `text` that is a proper beginning of the marker. */
function partialMarkerLength(text: string): number {
  const from = Math.max(0, text.length - CONSOLE_MARKER.length + 1);
  for (let i = text.indexOf(END, from); i >= 0; i = text.indexOf(END, i + 1)) {
    if (CONSOLE_MARKER.startsWith(text.slice(i))) return text.length - i;
  }
  return 0;
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
