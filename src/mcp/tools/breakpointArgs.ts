/** The arguments and result shared by set_breakpoint and set_function_breakpoint. */
import { z } from 'zod';
import { baseOutputShape } from '../results';
import { breakpointId } from '../schemaIds';

/**
 * What line and function breakpoints both take. The descriptions say what these mean: repeated
 * here, they would only cost listing bytes.
 */
export const breakpointOptions = {
  condition: z.string().min(1).optional(),
  hit_condition: z.string().min(1).optional(),
  log_message: z.string().min(1).optional(),
};

/** What setting a line or function breakpoint returns. */
export const breakpointOutput = {
  ...baseOutputShape,
  breakpoint: z.object({ id: breakpointId(), verified: z.boolean() }).optional(),
};
