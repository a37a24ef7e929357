/**
 * `get_output`'s result: the lines of a page as runs of consecutive lines of one category and
 * session, each line only `{cursor, text}`, with what the lines share said once (the session when
 * there is one, the time of the first and last line). The runs keep the order the lines came in,
 * so print output and logpoint lines read as they happened.
 */
import { z } from 'zod';
import type { OutputLine, OutputPage } from './outputLog';
import { count } from './schemaIds';

export const outputGroupSchema = z.object({
  category: z.string(),
  session_id: z.string().optional(),
  lines: z.array(z.object({ cursor: count(), text: z.string() })),
});
export type OutputGroup = z.infer<typeof outputGroupSchema>;

export interface OutputView {
  session_id?: string;
  first_timestamp?: string;
  last_timestamp?: string;
  groups: OutputGroup[];
  next_cursor: number;
  dropped: number;
  more: boolean;
}

export function viewOutput(page: OutputPage): OutputView {
  const lines = page.lines;
  const sessions = new Set(lines.map((l) => l.sessionId));
  const oneSession = sessions.size === 1 ? lines[0].sessionId : undefined;
  const groups: OutputGroup[] = [];
  let previous: OutputLine | undefined;
  for (const line of lines) {
    const last = groups.at(-1);
    if (
      last &&
      previous &&
      previous.category === line.category &&
      previous.sessionId === line.sessionId
    ) {
      last.lines.push({ cursor: line.cursor, text: line.text });
    } else {
      groups.push({
        category: line.category,
        ...(oneSession === undefined ? { session_id: line.sessionId } : {}),
        lines: [{ cursor: line.cursor, text: line.text }],
      });
    }
    previous = line;
  }
  return {
    ...(oneSession !== undefined ? { session_id: oneSession } : {}),
    ...(lines.length > 0
      ? { first_timestamp: lines[0].timestamp, last_timestamp: lines[lines.length - 1].timestamp }
      : {}),
    groups,
    next_cursor: page.nextCursor,
    dropped: page.dropped,
    more: page.more,
  };
}
