/**
 * Keeps `stop_event_data` small enough for an agent to read at every step: under a byte budget,
 * by giving up first what the agent can fetch again most easily (long values and long previews of
 * what changed, then upvalues, then callers' previews, then locals past the first few, then deep
 * frames, then changes past the first three, then the source text),
 * each cut marked `truncated` (or `call_stack_truncated`) so that it knows to ask for more.
 */
import type { StopEventData } from './stopEventData';
import type { ScopeView, StopVariable } from './stopScopes';
import { shrinkOnce } from './autopsy';
import { withChangesCut, withChangesHalved } from './stopChanges';

/** The stop data's share of a stop result; the result's envelope and warnings come on top. */
export const STOP_BUDGET_BYTES = 7 * 1024;

type Reducer = (data: StopEventData) => StopEventData | undefined;

export function fitStopEventData(data: StopEventData, maxBytes = STOP_BUDGET_BYTES): StopEventData {
  let current = data;
  for (let round = 0; round < 200 && byteSize(current) > maxBytes; round++) {
    const next = firstApplicable(current);
    if (!next) break;
    current = next;
  }
  return current;
}

export function byteSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

function firstApplicable(data: StopEventData): StopEventData | undefined {
  for (const reduce of REDUCERS) {
    const next = reduce(data);
    if (next) return next;
  }
  return undefined;
}

// In order: each applies until it can cut no more, then the next. Floors keep a little of each
// kind (upvalues hold the culprit as often as locals do) before anything goes altogether.
const REDUCERS: Reducer[] = [
  (data) => withValuesCut(data, 60),
  (data) => withChangesCut(data, 30),
  (data) => withScopes(data, undefined, (up) => halve(up, 4)),
  dropCallerPreviews,
  (data) => withScopes(data, (locals) => halve(locals, 8), undefined),
  (data) => halveStack(data, 5),
  (data) => withValuesCut(data, 30),
  shrinkAutopsy,
  (data) =>
    withScopes(
      data,
      (locals) => halve(locals, 3),
      (up) => halve(up, 0),
    ),
  (data) => withChangesHalved(data, 3),
  dropSourceLines,
  (data) => halveStack(data, 1),
  (data) => withScopes(data, (locals) => halve(locals, 0), undefined),
];

/** `scope` with half its variables (never fewer than `floor`), or undefined when at the floor. */
function halve(scope: ScopeView, floor: number): ScopeView | undefined {
  const count = scope.variables.length;
  if (count <= floor) return undefined;
  const keep = Math.max(floor, Math.floor(count / 2));
  return { ...scope, variables: scope.variables.slice(0, keep), truncated: true };
}

/** Applies a change to the locals and/or the upvalues; undefined when neither changed. */
function withScopes(
  data: StopEventData,
  locals: ((scope: ScopeView) => ScopeView | undefined) | undefined,
  upvalues: ((scope: ScopeView) => ScopeView | undefined) | undefined,
): StopEventData | undefined {
  const top = data.top_frame_variables;
  if (!top) return undefined;
  const { upvalues: up, ...main } = top;
  const newMain = locals ? locals(main) : undefined;
  const newUp = up && upvalues ? upvalues(up) : undefined;
  if (!newMain && !newUp) {
    // Upvalues cut to nothing go altogether.
    if (upvalues && up && up.variables.length === 0) {
      return { ...data, top_frame_variables: { ...main, truncated: true } };
    }
    return undefined;
  }
  const keptUp = newUp ?? up;
  return {
    ...data,
    top_frame_variables: { ...(newMain ?? main), ...(keptUp ? { upvalues: keptUp } : {}) },
  };
}

function withValuesCut(data: StopEventData, max: number): StopEventData | undefined {
  const top = data.top_frame_variables;
  if (!top) return undefined;
  let changed = false;
  const cut = (scope: ScopeView): ScopeView => {
    let cutHere = false;
    const variables = scope.variables.map((v): StopVariable => {
      const shorter = recut(v.value, max);
      if (shorter === undefined) return v;
      cutHere = true;
      return { ...v, value: shorter, truncated: true };
    });
    if (!cutHere) return scope;
    changed = true;
    return { ...scope, variables, truncated: true };
  };
  const main = cut(top);
  const upvalues = top.upvalues ? cut(top.upvalues) : undefined;
  if (!changed) return undefined;
  return { ...data, top_frame_variables: { ...main, ...(upvalues ? { upvalues } : {}) } };
}

/** A value cut to `max` characters, saying its original length; undefined if short enough. */
function recut(value: string, max: number): string | undefined {
  const said = /… \((\d+) chars\)$/.exec(value);
  const body = said ? value.slice(0, said.index) : value;
  if (body.length <= max) return undefined;
  const length = said ? Number(said[1]) : value.length;
  return `${body.slice(0, max)}… (${length} chars)`;
}

function dropCallerPreviews(data: StopEventData): StopEventData | undefined {
  if (!data.call_stack.some((f, i) => i > 0 && f.locals_preview !== undefined)) return undefined;
  return {
    ...data,
    call_stack: data.call_stack.map((frame, i) => {
      if (i === 0 || frame.locals_preview === undefined) return frame;
      const rest = { ...frame };
      delete rest.locals_preview;
      return rest;
    }),
  };
}

/** One cut of the error autopsy (autopsy.ts), which marks what it cut. */
function shrinkAutopsy(data: StopEventData): StopEventData | undefined {
  const next = data.error_autopsy && shrinkOnce(data.error_autopsy);
  return next ? { ...data, error_autopsy: next } : undefined;
}

function dropSourceLines(data: StopEventData): StopEventData | undefined {
  if (!data.source_lines) return undefined;
  const rest = { ...data };
  delete rest.source_lines;
  return rest;
}

function halveStack(data: StopEventData, floor: number): StopEventData | undefined {
  const count = data.call_stack.length;
  if (count <= floor) return undefined;
  return {
    ...data,
    call_stack: data.call_stack.slice(0, Math.max(floor, Math.ceil(count / 2))),
    call_stack_truncated: true,
  };
}
