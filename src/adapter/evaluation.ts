/**
 * The DAP `evaluate` request over the session, with what each context needs shown: a watch or a
 * hover that fails answers with the Lua error as its value (VS Code shows a failed request as a
 * notification when it is to be shown to the user, and otherwise only where the expression is;
 * an answer keeps it where the expression is, in every client), marked `failedEvaluation` so
 * that a tool reading the answer knows it is no value. Hovering a Lua keyword (`local`, `end`)
 * gives no hover at all. REPL failures stay failures: the console prints them once.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { EvaluateContext, LuaSession, SessionError } from '../session';
import { isLuaKeyword } from '../session/stop/luaKeys';

/** Marks an evaluate answer whose `result` is an error message, not a value. */
export const FAILED_EVALUATION = 'failedEvaluation';

const CONTEXTS: readonly EvaluateContext[] = ['watch', 'hover', 'repl', 'clipboard'];

export function evaluateContext(context: string | undefined): EvaluateContext {
  return CONTEXTS.find((c) => c === context) ?? 'repl';
}

export async function evaluateBody(
  session: LuaSession,
  args: DebugProtocol.EvaluateArguments,
): Promise<DebugProtocol.EvaluateResponse['body']> {
  const context = evaluateContext(args.context);
  const expression = args.expression.trim();
  if (context === 'hover' && isLuaKeyword(expression)) {
    throw new SessionError('evaluate-failed', `${expression} is a Lua keyword, not a value.`);
  }
  try {
    const result = await session.evaluate(args.expression, args.frameId, context);
    return {
      result: result.value,
      type: result.type,
      variablesReference: result.variablesReference,
    };
  } catch (error) {
    if (!(error instanceof SessionError && error.code === 'evaluate-failed')) throw error;
    if (context !== 'watch' && context !== 'hover') throw error;
    return {
      result: error.message,
      variablesReference: 0,
      presentationHint: { attributes: [FAILED_EVALUATION] },
    };
  }
}
