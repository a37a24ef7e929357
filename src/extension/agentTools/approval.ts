/**
 * The `luapanda.mcp.codeExecution` policy for agent calls that run code in the debuggee
 * (evaluate in the REPL context, setting variables, hot reloading a file): `allow`, `deny`, or
 * `ask` — a modal dialog with "Allow", "Allow for this Session" (this debug session) and "Deny".
 */
import * as vscode from 'vscode';
import type { ApprovalAction, Approver } from '../../mcp/tools/context';
import { CodeExecutionPolicy } from '../settings';

export const ALLOW = 'Allow';
export const ALLOW_SESSION = 'Allow for this Session';
export const DENY = 'Deny';

/** What the dialog says the agent wants to do. */
const WHAT: Record<ApprovalAction, string> = {
  evaluate: 'evaluate code',
  setVariable: 'change a variable',
  reload: 'reload code',
};

export function createApprover(
  policy: () => CodeExecutionPolicy,
  log: (line: string) => void,
): Approver {
  const allowedSessions = new Set<string>();
  return async (action, detail) => {
    const current = policy();
    if (current === 'allow') return true;
    if (current === 'deny') {
      log(`refused the agent's ${action} (luapanda.mcp.codeExecution is "deny"): ${detail}`);
      return false;
    }
    const sessionId = vscode.debug.activeDebugSession?.id;
    if (sessionId !== undefined && allowedSessions.has(sessionId)) return true;
    const answer = await vscode.window.showWarningMessage(
      `An AI agent wants to ${WHAT[action]} in the program you are debugging.`,
      { modal: true, detail },
      ALLOW,
      ALLOW_SESSION,
      DENY,
    );
    if (answer === ALLOW_SESSION && sessionId !== undefined) allowedSessions.add(sessionId);
    const allowed = answer === ALLOW || answer === ALLOW_SESSION;
    log(`${allowed ? 'allowed' : 'refused'} the agent's ${action}: ${detail}`);
    return allowed;
  };
}
