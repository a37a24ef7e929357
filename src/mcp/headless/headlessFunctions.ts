/**
 * The function breakpoints of the headless host's breakpoint store (headlessBreakpoints.ts): the
 * state kept per breakpoint, and how a session's answer sets it.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { FunctionBreakpointInfo, FunctionBreakpointSpec } from '../channel';

export interface FunctionEntry {
  readonly spec: FunctionBreakpointSpec;
  verified: boolean;
  message?: string;
  /** Where a session bound it. */
  filePath?: string;
  line?: number;
  /** The `seq` of the adapter message that last set its state, and that adapter's session. */
  seq?: number;
  seqFrom?: string;
}

export function functionAnswer(entry: FunctionEntry, answer: DebugProtocol.Breakpoint): void {
  entry.verified = answer.verified;
  entry.message = answer.verified
    ? answer.message
    : (answer.message ?? 'The debugger could not bind the breakpoint.');
  entry.filePath = answer.source?.path;
  entry.line = answer.line;
}

export function functionInfo(id: number, entry: FunctionEntry): FunctionBreakpointInfo {
  return {
    ...entry.spec,
    id,
    verified: entry.verified,
    ...(entry.message !== undefined ? { message: entry.message } : {}),
    ...(entry.filePath !== undefined ? { filePath: entry.filePath } : {}),
    ...(entry.line !== undefined ? { line: entry.line } : {}),
  };
}
