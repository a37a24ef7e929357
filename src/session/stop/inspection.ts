/**
 * Evaluation and assignment in a stopped frame, on top of the session's request function and
 * variable store: watch/hover are read-only (`getWatchedVariable`), the REPL may change state
 * (`runREPLExpression`), and `setVariable` targets a scope or, with feature `setField`, a table.
 * The value of an expression with several results is the runtime's `5, 8`; a REPL statement
 * with none has the empty value.
 */
import type { IdeCommand, IdeRequestInfo, ReplyInfo, RequestCommand } from '../../protocol';
import { SessionError } from '../errors';
import type { EvaluateResult } from '../types';
import type { Container, VariableStore } from './variables';

export type EvaluateContext = 'watch' | 'hover' | 'repl' | 'clipboard';

/** Sends one request to the Lua side (bounded; rejects with a `SessionError`). */
export type Ask = <C extends RequestCommand & IdeCommand>(
  cmd: C,
  info: IdeRequestInfo<C>,
) => Promise<ReplyInfo<C>>;

export async function evaluateIn(
  ask: Ask,
  variables: VariableStore,
  expression: string,
  stackId: string,
  context: EvaluateContext,
): Promise<EvaluateResult> {
  const reply =
    context === 'repl'
      ? await ask('runREPLExpression', { Expression: expression, stackId })
      : await ask('getWatchedVariable', { varName: expression, stackId });
  if (context === 'repl') variables.forgetValues();
  const result = reply[0];
  if (!result) {
    throw new SessionError('evaluate-failed', `"${expression}" has no value in this frame.`);
  }
  if (result.isSuccess === false) {
    // The Lua error as Lua words it (`(eval):1: attempt to index a nil value…`); callers that
    // show it with the expression add their own prefix, once.
    throw new SessionError('evaluate-failed', result.value);
  }
  const variable = variables.wrap(result, stackId);
  return {
    value: variable.value,
    type: variable.type,
    variablesReference: variable.variablesReference,
    childCount: variable.childCount,
  };
}

export async function assignIn(
  ask: Ask,
  variables: VariableStore,
  container: Container,
  name: string,
  value: string,
  canSetFields: boolean,
): Promise<EvaluateResult> {
  if (container.kind !== 'scope' && !canSetFields) {
    throw new SessionError(
      'not-supported',
      'This Lua runtime cannot assign table fields (upstream LuaPanda.lua would assign a ' +
        'variable of the same name instead). Assign it from the debug console: t.field = value.',
    );
  }
  const target = variables.luaTarget(container);
  const reply = await ask('setVariable', { ...target, varName: name, newValue: value });
  variables.forgetValues();
  if (!reply.success) {
    throw new SessionError(
      'set-variable-failed',
      `Could not set ${name}: ${reply.tip ?? 'the Lua side refused the assignment'}.`,
    );
  }
  const shown = reply.value ?? value;
  const type = reply.type ?? '';
  const ref = reply.variablesReference ?? 0;
  const wrapped =
    ref > 0
      ? variables.wrap({ name, value: shown, type, variablesReference: ref }, target.stackId)
      : undefined;
  return { value: shown, type, variablesReference: wrapped?.variablesReference ?? 0 };
}
