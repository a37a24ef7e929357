/**
 * A breakpoint's condition, hit condition and log message, checked when the breakpoint is set —
 * before any session exists — so that one that can never work is reported at once, with the
 * parser's message, instead of being silently false. Conditions are parsed as the runtime
 * compiles them (`return (<condition>)`), with luaparse's Lua 5.3 grammar or, failing that, its
 * LuaJIT one (LuaJIT's `1LL` literals); what only an older Lua rejects is left to the runtime,
 * which says so when the breakpoint reaches it.
 */
import * as luaparse from 'luaparse';
import { parseHitCondition } from './hitCondition';

export interface BreakpointTexts {
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

/** Why the breakpoint can never work as written, or undefined when it can. */
export function checkBreakpoint(spec: BreakpointTexts): string | undefined {
  // A logpoint logs instead of testing a condition (its condition is not used).
  if (nonEmpty(spec.logMessage)) {
    const error = checkLogMessage(spec.logMessage);
    if (error) return error;
  } else if (nonEmpty(spec.condition)) {
    const error = expressionError(spec.condition);
    if (error) return `The condition \`${spec.condition}\` is not a valid Lua expression: ${error}`;
  }
  if (nonEmpty(spec.hitCondition)) {
    const parsed = parseHitCondition(spec.hitCondition);
    if (!parsed.ok) return parsed.message;
  }
  return undefined;
}

/** `{expr}` parts of a logpoint message (`{{` and `}}` are literal braces), as the runtime has. */
function checkLogMessage(message: string): string | undefined {
  let i = 0;
  while (i < message.length) {
    const c = message[i];
    if ((c === '{' || c === '}') && message[i + 1] === c) {
      i += 2;
      continue;
    }
    if (c !== '{') {
      i++;
      continue;
    }
    const close = message.indexOf('}', i + 1);
    if (close < 0) return `The log message has an unclosed '{' (use '{{' for a literal brace).`;
    const expression = message.slice(i + 1, close);
    const error = expressionError(expression);
    if (error) {
      return `The log message's \`{${expression}}\` is not a valid Lua expression: ${error}`;
    }
    i = close + 1;
  }
  return undefined;
}

/** The parser's message when `text` is not one Lua expression (5.3 grammar, then LuaJIT's). */
function expressionError(text: string): string | undefined {
  let first: string | undefined;
  for (const luaVersion of ['5.3', 'LuaJIT'] as const) {
    try {
      luaparse.parse(`return (${text})`, { luaVersion, comments: false });
      return undefined;
    } catch (error) {
      first ??= error instanceof Error ? error.message : String(error);
    }
  }
  // "[1:12] <expression> expected near ')'": the position is in our wrapper, not the text.
  return first?.replace(/^\[\d+:\d+\]\s*/, '');
}

function nonEmpty(text: string | undefined): text is string {
  return text !== undefined && text.trim() !== '';
}
