/**
 * Hit conditions (`> 5`, `>= 5`, `== 5`, `< 5`, `<= 5`, `% 2`, a bare `5`), parsed when a
 * breakpoint is set so that a bad one is reported at once. The result is the canonical spelling
 * the runtime understands (Docs/Protocol_Extensions.md); `% N == 0` is accepted as `% N`.
 */

export type HitConditionResult = { ok: true; wire: string } | { ok: false; message: string };

export function parseHitCondition(text: string): HitConditionResult {
  const trimmed = text.trim();
  const modulo = /^%\s*(\d+)(\s*==\s*0)?$/.exec(trimmed);
  if (modulo) {
    const n = Number(modulo[1]);
    if (n === 0) return { ok: false, message: 'A hit condition "% N" needs N greater than 0.' };
    return { ok: true, wire: `% ${n}` };
  }
  const compare = /^(>=|<=|==|>|<)?\s*(\d+)$/.exec(trimmed);
  if (compare) return { ok: true, wire: `${compare[1] ?? '>='} ${Number(compare[2])}` };
  return {
    ok: false,
    message:
      `The hit condition "${text}" is not understood. Use a count such as "5", "> 5", ">= 5", ` +
      '"== 5", "< 5", "<= 5" or "% 2" (every 2nd hit).',
  };
}
