/**
 * Index ranges for tables too large to list at once: the Variables view shows `[1..100]`,
 * `[101..200]`… (1-based, as Lua counts) and each range opens into its part of the listing.
 * VS Code would build such ranges itself from `indexedVariables`, but labelled from 0
 * (`[0..99]` holding the elements 1…100), so the session builds them instead.
 */

/** At most this many children are listed at one level; more are grouped into ranges. */
export const RANGE_SIZE = 100;

export interface Range {
  /** 0-based offset of the first child of the range in the full listing. */
  readonly start: number;
  readonly count: number;
  /** `[101..200]`: the 1-based positions the range holds. */
  readonly label: string;
}

/**
 * The ranges that split `count` children starting at `start`: 100 per range, or 100 × 100 per
 * range when there are more than 100 × 100 of them, and so on, so that no level lists more
 * than about 100 entries.
 */
export function rangesOf(start: number, count: number): Range[] {
  let size = RANGE_SIZE;
  while (count > size * RANGE_SIZE) size *= RANGE_SIZE;
  const ranges: Range[] = [];
  for (let offset = 0; offset < count; offset += size) {
    const first = start + offset;
    const n = Math.min(size, count - offset);
    ranges.push({ start: first, count: n, label: `[${first + 1}..${first + n}]` });
  }
  return ranges;
}
