/**
 * The variables `stop_event_data` carries, read over DAP: the top frame's main scope (Locals) with
 * its upvalues as a scope of their own (the culprit is often a captured variable), and a one-line
 * preview of a frame's locals for the callers of an exception. Values are shortened for the stop
 * (get_variables gives them whole); expensive scopes (globals) are never read here.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { plainValueOf } from '../../adapter/changesRequest';
import type { DebugSessionPort } from '../channel';
import { count, variablesReference } from '../schemaIds';

/** A value in the stop data is cut here (get_variables shows up to MAX_VALUE_CHARS). */
export const STOP_VALUE_CHARS = 120;
export const MAX_TOP_VARIABLES = 25;
export const MAX_TOP_UPVALUES = 12;
/** Locals named in a one-line preview, and the preview's length. */
export const PREVIEW_VARIABLES = 10;
export const MAX_PREVIEW_CHARS = 160;
/** One value in a preview: enough to recognise it, so that several fit on the line. */
const PREVIEW_VALUE_CHARS = 40;

/** Upvalues that are plumbing, not the program's state: Lua 5.2+'s environment. */
const HIDDEN_UPVALUES = new Set(['_ENV']);

export const stopVariableSchema = z.object({
  name: z.string(),
  value: z.string(),
  type: z.string().optional(),
  variables_reference: variablesReference(),
  evaluate_name: z.string().optional(),
  truncated: z.boolean().optional(),
});
export type StopVariable = z.infer<typeof stopVariableSchema>;

export const scopeViewSchema = z.object({
  scope_name: z.string(),
  variables_reference: variablesReference(),
  variables: z.array(stopVariableSchema),
  total: count().optional(),
  truncated: z.boolean(),
});
export type ScopeView = z.infer<typeof scopeViewSchema>;

export const topFrameVariablesSchema = scopeViewSchema.extend({
  upvalues: scopeViewSchema.optional(),
});
export type TopFrameVariables = z.infer<typeof topFrameVariablesSchema>;

/** A value cut to `max` characters, with the full length said. */
export function shorten(value: string, max: number): { value: string; truncated?: true } {
  if (value.length <= max) return { value };
  return { value: `${value.slice(0, max)}… (${value.length} chars)`, truncated: true };
}

/**
 * A DAP variable as the stop shows it: snake_case, value shortened, no field said twice, no
 * paging counts (get_variables gives those).
 */
export function stopVariable(variable: DebugProtocol.Variable, maxChars: number): StopVariable {
  const { value, truncated } = shorten(plainValueOf(variable), maxChars);
  return {
    name: variable.name,
    value,
    ...(variable.type !== undefined ? { type: variable.type } : {}),
    variables_reference: variable.variablesReference,
    // Equal to the name for every plain local: said only when it tells something.
    ...(variable.evaluateName !== undefined && variable.evaluateName !== variable.name
      ? { evaluate_name: variable.evaluateName }
      : {}),
    ...(truncated ? { truncated } : {}),
  };
}

async function scopesOf(
  session: DebugSessionPort,
  frameId: number,
): Promise<DebugProtocol.Scope[]> {
  const body = (await session.customRequest('scopes', {
    frameId,
  })) as DebugProtocol.ScopesResponse['body'];
  return body.scopes;
}

/**
 * The frame's main scope: one named Local(s), else DAP's `locals` hint, else the first cheap one.
 * The name comes first because js-debug gives the hint to a loop's Block scope as well, which
 * holds only the loop's own variables.
 */
function localsScope(scopes: DebugProtocol.Scope[]): DebugProtocol.Scope | undefined {
  return (
    scopes.find((s) => !s.expensive && /local/i.test(s.name)) ??
    scopes.find((s) => !s.expensive && s.presentationHint === 'locals') ??
    scopes.find((s) => !s.expensive)
  );
}

/** Our adapter's Upvalues scope (js-debug calls the same thing a Closure). */
function upvaluesScope(
  scopes: DebugProtocol.Scope[],
  locals: DebugProtocol.Scope | undefined,
): DebugProtocol.Scope | undefined {
  return scopes.find((s) => s !== locals && !s.expensive && /upvalue|closure/i.test(s.name));
}

async function readScope(
  session: DebugSessionPort,
  scope: DebugProtocol.Scope,
  max: number,
  hidden: ReadonlySet<string> = new Set(),
): Promise<ScopeView> {
  // One more than shown (plus the hidden ones) says whether the list goes on.
  const { variables } = (await session.customRequest('variables', {
    variablesReference: scope.variablesReference,
    start: 0,
    count: max + 1 + hidden.size,
  })) as DebugProtocol.VariablesResponse['body'];
  const visible = variables.filter((v) => !hidden.has(v.name));
  const shown = visible.slice(0, max).map((v) => stopVariable(v, STOP_VALUE_CHARS));
  const hiddenSeen = variables.length - visible.length;
  const total =
    scope.namedVariables !== undefined
      ? scope.namedVariables + (scope.indexedVariables ?? 0) - hiddenSeen
      : undefined;
  return {
    scope_name: scope.name,
    variables_reference: scope.variablesReference,
    variables: shown,
    ...(total !== undefined ? { total } : {}),
    truncated: visible.length > max || shown.some((v) => v.truncated === true),
  };
}

/** The top frame's locals, with its upvalues (without `_ENV`) as their own scope. */
export async function topFrameVariables(
  session: DebugSessionPort,
  frameId: number,
): Promise<TopFrameVariables | undefined> {
  const scopes = await scopesOf(session, frameId);
  const locals = localsScope(scopes);
  const upvalues = upvaluesScope(scopes, locals);
  const hasLocals = locals !== undefined && locals.variablesReference !== 0;
  const hasUpvalues = upvalues !== undefined && upvalues.variablesReference !== 0;
  if (!hasLocals && !hasUpvalues) return undefined;
  const [localView, upvalueView] = await Promise.all([
    hasLocals ? readScope(session, locals, MAX_TOP_VARIABLES) : undefined,
    hasUpvalues ? readScope(session, upvalues, MAX_TOP_UPVALUES, HIDDEN_UPVALUES) : undefined,
  ]);
  const main: ScopeView = localView ?? {
    scope_name: locals?.name ?? 'Locals',
    variables_reference: 0,
    variables: [],
    truncated: false,
  };
  return upvalueView && upvalueView.variables.length > 0
    ? { ...main, upvalues: upvalueView }
    : main;
}

/**
 * `a = 1, name = "orc", t = {…}`: a frame's locals on one line, for the callers of an exception.
 * Undefined when the frame has no readable locals.
 */
export async function localsPreview(
  session: DebugSessionPort,
  frameId: number,
): Promise<string | undefined> {
  const scope = localsScope(await scopesOf(session, frameId));
  if (!scope || scope.variablesReference === 0) return undefined;
  const { variables } = (await session.customRequest('variables', {
    variablesReference: scope.variablesReference,
    start: 0,
    count: PREVIEW_VARIABLES + 1,
  })) as DebugProtocol.VariablesResponse['body'];
  if (variables.length === 0) return undefined;
  const parts = variables
    .slice(0, PREVIEW_VARIABLES)
    .map((v) => `${v.name} = ${clip(plainValueOf(v).replace(/\s+/g, ' '), PREVIEW_VALUE_CHARS)}`);
  let line = parts.join(', ');
  if (variables.length > PREVIEW_VARIABLES) line += ', …';
  return clip(line, MAX_PREVIEW_CHARS);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
