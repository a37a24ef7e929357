/**
 * The source text around a stop, for `stop_event_data.source_lines`: a few lines either side of
 * the stopped line, read from the file the frame maps to, the stopped line marked. Bounded (file
 * size, line length) and silent: a file that cannot be read gives nothing rather than an error,
 * since the stop itself is what matters.
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { lineNumber } from '../schemaIds';

/** Lines shown before and after the stopped line. */
export const SOURCE_RADIUS = 2;
/** A longer line (minified code) is cut: the stop data must stay small. */
export const MAX_SOURCE_LINE_CHARS = 160;
/** A bigger file is not read at all: it is generated or a bundle, and reading it costs time. */
export const MAX_SOURCE_FILE_BYTES = 4 * 1024 * 1024;

export const sourceLineSchema = z.object({
  line: lineNumber(),
  text: z.string(),
  current: z.boolean().optional(),
});
export type SourceLine = z.infer<typeof sourceLineSchema>;

/** Lines `line - radius` … `line + radius` of `filePath` (1-based), or undefined if unreadable. */
export async function readSourceLines(
  filePath: string | undefined,
  line: number | undefined,
  radius = SOURCE_RADIUS,
): Promise<SourceLine[] | undefined> {
  if (filePath === undefined || line === undefined || line < 1) return undefined;
  let text: string;
  try {
    const stat = await fs.stat(filePath);
    if (!stat.isFile() || stat.size > MAX_SOURCE_FILE_BYTES) return undefined;
    text = await fs.readFile(filePath, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n|\r/);
  // A trailing newline leaves an empty last piece that is not a line of the file.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  if (line > lines.length) return undefined;
  const first = Math.max(1, line - radius);
  const last = Math.min(lines.length, line + radius);
  const shown: SourceLine[] = [];
  for (let n = first; n <= last; n++) {
    const raw = (lines[n - 1] ?? '').trimEnd();
    const cut =
      raw.length > MAX_SOURCE_LINE_CHARS ? `${raw.slice(0, MAX_SOURCE_LINE_CHARS)}…` : raw;
    shown.push(n === line ? { line: n, text: cut, current: true } : { line: n, text: cut });
  }
  return shown;
}
