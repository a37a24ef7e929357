/**
 * The result of `collect_values` as an agent reads it: one row per hit (hit number, each
 * expression's preview, the first frames) and a summary per expression (first and last value,
 * min/max of numbers, the first hit whose value differs from the one before).
 */
import * as path from 'node:path';
import type { CollectReport, CollectedValue } from '../session';

export interface ExpressionSummary {
  expression: string;
  first?: string;
  last?: string;
  min?: number;
  max?: number;
  /** The first hit whose value differs from the hit before it. */
  first_change?: number;
  /** Hits whose value differs from the hit before. */
  changes: number;
  /** Hits where the expression failed. */
  errors?: number;
}

/** A value as a table cell: its preview, or `error: …`. */
function cell(value: CollectedValue | undefined): string {
  if (value === undefined) return '';
  return 'error' in value ? `error: ${value.error}` : value.value;
}

/** The frames of a hit on one line: `update game.lua:12 < main chunk game.lua:40`. */
function framesText(
  frames: CollectReport['hits'][number]['frames'],
  shortName: (file: string) => string,
): string {
  return frames.map((f) => `${f.name} ${shortName(f.file)}:${f.line}`).join(' < ');
}

function summarize(report: CollectReport, index: number, expression: string): ExpressionSummary {
  const cells = report.hits.map((h) => h.values[index]);
  const shown = cells.map(cell);
  const numbers = cells
    .filter((v): v is { value: string; type: string } => v !== undefined && 'type' in v)
    .filter((v) => v.type === 'number')
    .map((v) => Number(v.value))
    .filter((n) => !Number.isNaN(n));
  let changes = 0;
  let firstChange: number | undefined;
  for (let i = 1; i < shown.length; i++) {
    if (shown[i] === shown[i - 1]) continue;
    changes++;
    firstChange ??= report.hits[i].hit;
  }
  const errors = cells.filter((v) => v !== undefined && 'error' in v).length;
  return {
    expression,
    ...(shown.length > 0 ? { first: shown[0], last: shown[shown.length - 1] } : {}),
    ...(numbers.length > 0 ? { min: Math.min(...numbers), max: Math.max(...numbers) } : {}),
    ...(firstChange !== undefined ? { first_change: firstChange } : {}),
    changes,
    ...(errors > 0 ? { errors } : {}),
  };
}

/** The table: `columns` names each row's cells; `hits` holds the rows; `summary` per expression. */
export function collectTable(
  report: CollectReport,
  expressions: readonly string[],
  workspace: string | undefined,
): { columns: string[]; hits: (number | string)[][]; summary: ExpressionSummary[] } {
  const shortName = (file: string): string => {
    if (!workspace || !path.isAbsolute(file)) return file;
    const relative = path.relative(workspace, file);
    return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
  };
  return {
    columns: ['hit', ...expressions, 'frames'],
    hits: report.hits.map((h) => [
      h.hit,
      ...expressions.map((_, i) => cell(h.values[i])),
      framesText(h.frames, shortName),
    ]),
    summary: expressions.map((e, i) => summarize(report, i, e)),
  };
}
