/**
 * Tool results as the contract wants them: one object with a `status`, returned both as
 * `structuredContent` and as JSON text. A result over the size limit is cut — its longest list
 * halved until it fits — and marked `truncated` with a hint, never sent whole.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export { error } from './errors';

export const STATUSES = [
  'success',
  'error',
  'stopped',
  'completed',
  'timeout',
  'interrupted',
] as const;
export type Status = (typeof STATUSES)[number];

export interface ToolResult {
  status: Status;
  message?: string;
  [field: string]: unknown;
}

/*
 * Output schemas say what a client needs to read a result — its status and the fields it passes on
 * to the next call — and leave the rest open (a result carries more, as the tool descriptions say:
 * `message`, and `truncated` and `hint` when it was cut): the whole tools/list stays small (under
 * 16 KB).
 */

/** The output fields of a synchronous tool: it succeeds or fails. */
export const baseOutputShape = {
  status: z.enum(['success', 'error']),
};

/** The output fields of an asynchronous tool, which waits for a stop or the end. */
export const asyncBaseOutputShape = {
  status: z.enum(STATUSES),
};

export const MAX_RESULT_BYTES = 48 * 1024;

export function toCallToolResult(result: ToolResult, maxBytes = MAX_RESULT_BYTES): CallToolResult {
  const fitted = fitToSize(result, maxBytes);
  return {
    content: [{ type: 'text', text: JSON.stringify(fitted) }],
    structuredContent: fitted,
    ...(fitted.status === 'error' ? { isError: true } : {}),
  };
}

/** Halves the longest array (top level, or one level down) until the JSON fits. */
export function fitToSize(result: ToolResult, maxBytes: number): ToolResult {
  let current = result;
  for (
    let round = 0;
    round < 64 && Buffer.byteLength(JSON.stringify(current)) > maxBytes;
    round++
  ) {
    const target = longestArray(current);
    if (!target || target.length <= 1) break;
    current = replaceArray(
      current,
      target.path,
      target.array.slice(0, Math.floor(target.array.length / 2)),
    );
    current.truncated = true;
    current.hint =
      'The result was too large and has been cut. Ask for less: page with start/count, ' +
      'use fewer levels, or expand a narrower variables_reference.';
  }
  return current;
}

interface ArrayAt {
  path: string[];
  array: unknown[];
  length: number;
}

function longestArray(result: ToolResult): ArrayAt | undefined {
  let best: ArrayAt | undefined;
  const consider = (path: string[], value: unknown) => {
    if (Array.isArray(value) && (!best || value.length > best.length))
      best = { path, array: value, length: value.length };
  };
  for (const [key, value] of Object.entries(result)) {
    consider([key], value);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value)) consider([key, inner], innerValue);
    }
  }
  return best;
}

function replaceArray(result: ToolResult, path: string[], array: unknown[]): ToolResult {
  if (path.length === 1) return { ...result, [path[0]]: array };
  const parent = result[path[0]] as Record<string, unknown>;
  return { ...result, [path[0]]: { ...parent, [path[1]]: array, truncated: true } };
}
