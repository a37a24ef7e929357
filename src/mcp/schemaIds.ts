/**
 * The integer ids and counts of the tool schemas, with the bounds they really have, said with
 * `minimum` (never `exclusiveMinimum`, which Gemini's function declarations refuse), so that an
 * agent cannot send a negative id and a client reading a result knows what to expect.
 */
import { z } from 'zod';

/** A breakpoint id of ours: counted from 1. */
export const breakpointId = (): z.ZodNumber => z.number().int().min(1);
/** A thread or stack frame id: the debug adapter's, a non-negative integer (DAP). */
export const adapterId = (): z.ZodNumber => z.number().int().min(0);
/** A variables_reference: 0 means "nothing to expand", more opens children (get_variables). */
export const variablesReference = (): z.ZodNumber => z.number().int().min(0);
/** A count, an index, a line cursor: never negative. */
export const count = (): z.ZodNumber => z.number().int().min(0);
/** A 1-based line or column. */
export const lineNumber = (): z.ZodNumber => z.number().int().min(1);
