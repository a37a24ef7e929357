/**
 * zod building blocks for upstream's JSON dialect (protocol doc 2.4 and 15.4): Lua turns every
 * number it receives into a string, mixes `"true"` with `true`, encodes an empty table as `[]`,
 * and sends `"0"` next to `0`. These schemas accept every such spelling and hand the rest of the
 * code one clean type.
 */
import { z } from 'zod';

/** A number that may arrive as a JSON number or as a numeric string. */
export const wireNumber = z.union([z.number(), z.string().trim()]).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : Number(v);
  if (typeof v === 'string' && v === '') {
    ctx.addIssue({ code: 'custom', message: 'expected a number, got an empty string' });
    return z.NEVER;
  }
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: `expected a number, got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return n;
});

/** A boolean that may arrive as `true`, `"true"`, `1` or `"1"` (and their false forms). */
export const wireBoolean = z.union([z.boolean(), z.string(), z.number()]).transform((v, ctx) => {
  if (v === true || v === 'true' || v === 1 || v === '1') return true;
  if (v === false || v === 'false' || v === 0 || v === '0' || v === '') return false;
  ctx.addIssue({ code: 'custom', message: `expected a boolean, got ${JSON.stringify(v)}` });
  return z.NEVER;
});

/** Text that may arrive as a number or boolean (Lua `tostring`s, or the encoder did not). */
export const wireText = z
  .union([z.string(), z.number(), z.boolean()])
  .transform((v) => (typeof v === 'string' ? v : String(v)));

/** An object that Lua sends as `[]` when it is empty. */
export function wireObject<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), z.object(shape));
}

/** An array that some encoders send as `{}` when it is empty. */
export function wireArray<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (v) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0
        ? []
        : v,
    z.array(item),
  );
}

/** Any payload at all: replies whose content nobody reads (`continue`, `stopRun`, …). */
export const anyInfo = z.unknown();

/**
 * The envelope every frame shares. `callbackId` is normalised: `null` means "no id" (missing,
 * `0`, `"0"` or `""` — protocol doc 3.2/3.3), otherwise the decimal string.
 */
export const envelopeSchema = z.object({
  cmd: z.string().min(1),
  callbackId: z.union([z.string(), z.number(), z.null(), z.undefined()]).transform((v) => {
    if (v === undefined || v === null) return null;
    const s = String(v).trim();
    return s === '' || s === '0' ? null : s;
  }),
  info: z.unknown().optional(),
  stack: z.unknown().optional(),
});

export type Envelope = z.output<typeof envelopeSchema>;
