/**
 * Hit conditions (`> 5`, `>= 5`, `== 5`, `< 5`, `<= 5`, `% 2`, a bare `5`), parsed when a
 * breakpoint is set so that a bad one is reported at once. The result is the canonical spelling
 * the runtime understands (Docs/Protocol_Extensions.md); `= N` is accepted as `== N` and
 * `% N == 0` as `% N`. The runtime reads the same grammar (lua/luapanda/bprules.lua): the
 * cases of test/scenarios/breakpointRules/hitConditions.json run against both.
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
  const compare = /^(>=|<=|==|=|>|<)?\s*(\d+)$/.exec(trimmed);
  if (compare) {
    const op = compare[1] === '=' ? '==' : (compare[1] ?? '>=');
    return { ok: true, wire: `${op} ${Number(compare[2])}` };
  }
  return {
    ok: false,
    message:
      `The hit condition "${text}" is not understood. Use a count such as "5", "> 5", ">= 5", ` +
      '"== 5", "< 5", "<= 5" or "% 2" (every 2nd hit).',
  };
}
