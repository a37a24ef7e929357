/**
 * Pure conversions from the session model's shapes to DAP's: stops, frames, breakpoints,
 * variables and output categories. No state lives here.
 */
import {
  Breakpoint as DapBreakpoint,
  Source,
  StackFrame,
  StoppedEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'node:path';
import { CHANGED_ATTRIBUTE, changedValueText } from './changesRequest';
import type {
  Breakpoint,
  Frame,
  FunctionBreakpoint,
  OutputCategory,
  StopInfo,
  Variable,
} from '../session';

export function stoppedEvent(stop: StopInfo): DebugProtocol.StoppedEvent {
  const event = new StoppedEvent(
    stop.reason,
    stop.threadId,
    stop.exceptionText,
  ) as DebugProtocol.StoppedEvent;
  event.body.description = stop.description;
  event.body.allThreadsStopped = true;
  if (stop.hitBreakpointIds.length > 0) event.body.hitBreakpointIds = [...stop.hitBreakpointIds];
  return event;
}

export function sourceOf(frame: Frame): Source {
  if (frame.path !== undefined)
    return new Source(path.basename(frame.path.replace(/\\/g, '/')), frame.path);
  // A chunk that maps to no file: shown by name, not loadable.
  const source = new Source(frame.chunk) as DebugProtocol.Source;
  source.presentationHint = 'deemphasize';
  return source as Source;
}

export function stackFrame(frame: Frame): StackFrame {
  return new StackFrame(frame.id, frame.name, sourceOf(frame), frame.line, 1);
}

export function dapBreakpoint(bp: Breakpoint): DebugProtocol.Breakpoint {
  const out = new DapBreakpoint(bp.verified, bp.line) as DebugProtocol.Breakpoint;
  out.id = bp.id;
  out.source = new Source(path.basename(bp.path.replace(/\\/g, '/')), bp.path);
  if (bp.message !== undefined) out.message = bp.message;
  return out;
}

/** A function breakpoint: where it bound (its function's first line), or why not yet. */
export function dapFunctionBreakpoint(bp: FunctionBreakpoint): DebugProtocol.Breakpoint {
  const out: DebugProtocol.Breakpoint = { id: bp.id, verified: bp.verified };
  if (bp.path !== undefined)
    out.source = new Source(path.basename(bp.path.replace(/\\/g, '/')), bp.path);
  if (bp.line !== undefined) out.line = bp.line;
  if (bp.message !== undefined) out.message = bp.message;
  return out;
}

/**
 * A session variable for DAP. A value that changed since the last stop in its function carries the
 * presentation attribute `changed`; with `oldValueInText` (VS Code, which draws no marker for
 * attributes) its old value is also shown after the new one. Other clients get the value alone,
 * which tools compare and reuse, and the old one from `luapanda/changes`.
 */
export function dapVariable(
  variable: Variable,
  options: { oldValueInText?: boolean } = {},
): DebugProtocol.Variable {
  const out: DebugProtocol.Variable = {
    name: variable.name,
    value: variable.value,
    type: variable.type,
    variablesReference: variable.variablesReference,
  };
  if (variable.evaluateName !== undefined) out.evaluateName = variable.evaluateName;
  // No indexedVariables: VS Code would group the children into ranges labelled from 0; the
  // session lists a large value as its own 1-based ranges instead (session/ranges.ts).
  if (variable.presentationHint) out.presentationHint = { kind: variable.presentationHint };
  if (variable.previous !== undefined) {
    if (options.oldValueInText) out.value = changedValueText(variable.value, variable.previous);
    out.presentationHint = { ...out.presentationHint, attributes: [CHANGED_ATTRIBUTE] };
  }
  return out;
}

const CATEGORIES: Record<OutputCategory, string> = {
  stdout: 'stdout',
  stderr: 'stderr',
  console: 'console',
  log: 'console',
  important: 'important',
};

export function outputCategory(category: OutputCategory): string {
  return CATEGORIES[category];
}
