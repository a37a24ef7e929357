/**
 * Records the DAP events the adapter sends during a scenario, in order, as text with stable fields
 * only (ids named in order of appearance, paths relative to test/scenarios, no pids or ports), and
 * places the stop state a test takes at each stop under its `stopped` line: together they make a
 * scenario's golden transcript. Breakpoint changes and the program's own output are listed after
 * the sequence, not in it: their place among the stops varies from run to run (see `record`).
 */
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'node:path';
import { ENDED_EVENT, endedEventBodySchema } from '../../src/adapter/endedEvent';
import { WARNING_EVENT, warningEventBodySchema } from '../../src/adapter/warningEvent';
import { NOT_CONNECTED_MESSAGE } from '../../src/session/breakpoints/breakpointView';
import { SCENARIOS_DIR } from '../harness/scenario';

/** Names numeric ids (`bp#1`, `thread#2`…) in the order they first appear. */
export class Ids {
  private readonly map = new Map<number, string>();
  constructor(private readonly prefix: string) {}
  name(id: number): string {
    if (id === 0) return '0';
    let named = this.map.get(id);
    if (!named) {
      named = `${this.prefix}${this.map.size + 1}`;
      this.map.set(id, named);
    }
    return named;
  }
}

/** A path as the goldens show it: relative to test/scenarios, with `/`. */
export function scenarioPath(file: string | undefined): string {
  if (file === undefined) return '(no file)';
  return path.relative(SCENARIOS_DIR, file).split(path.sep).join('/');
}

/** The events a scenario's sequence holds (DebugClient emits each under its own name). */
const EVENTS = [
  'initialized',
  'process',
  'stopped',
  'continued',
  'thread',
  'output',
  'breakpoint',
  'exited',
  'terminated',
  ENDED_EVENT,
  WARNING_EVENT,
] as const;

/** Text that varies from run to run in the adapter's own messages. */
function stable(text: string): string {
  return text
    .split(SCENARIOS_DIR + path.sep)
    .join('')
    .replace(/\b(port|pid) \d+/g, '$1 …')
    .replace(/\n$/, '')
    .replace(/\n/g, '\\n');
}

export class EventRecord {
  /** The events of the sequence, in the order they came. */
  private readonly sequence: DebugProtocol.Event[] = [];
  /** Breakpoint changes, kept apart (see `record`). */
  private readonly breakpointChanges: DebugProtocol.BreakpointEvent[] = [];
  /** Program output by category, kept apart (see `record`). */
  private readonly programOutput = new Map<string, string>();
  private readonly stopStates = new Map<number, string>();
  private stops = 0;

  /** Starts recording: call before the launch or attach request. */
  constructor(dc: DebugClient) {
    for (const name of EVENTS) {
      dc.on(name, (event: DebugProtocol.Event) => this.record(event));
    }
  }

  /** Keeps `state` (a stop transcript) as the state of the latest stop. */
  stopState(state: string): void {
    if (this.stops === 0) throw new Error('a stop state before any stopped event');
    this.stopStates.set(this.stops, state);
  }

  /**
   * The sequence so far with each stop's state under its stopped line; then each breakpoint's
   * changes in order, and the program's output. Ids are named as the text first shows them.
   */
  text(): string {
    const names = { threads: new Ids('thread#'), breakpoints: new Ids('bp#') };
    const out = ['events:'];
    let stop = 0;
    for (const event of this.sequence) {
      out.push(`  ${describe(event, names, event.event === 'stopped' ? ++stop : 0)}`);
      const state = event.event === 'stopped' ? this.stopStates.get(stop) : undefined;
      if (state) out.push(...indent(state, '    '));
    }
    const byBreakpoint = new Map<number | undefined, DebugProtocol.BreakpointEvent[]>();
    for (const change of this.breakpointChanges) {
      const id = change.body.breakpoint.id;
      byBreakpoint.set(id, [...(byBreakpoint.get(id) ?? []), change]);
    }
    if (byBreakpoint.size > 0) out.push('breakpoint changes, by breakpoint:');
    const ordered = [...byBreakpoint].sort(([a], [b]) => (a ?? 0) - (b ?? 0));
    for (const [, changes] of ordered) {
      for (const change of changes) out.push(`  ${describeBreakpoint(change, names)}`);
    }
    for (const [category, text] of [...this.programOutput].sort(([a], [b]) => a.localeCompare(b))) {
      out.push(`program ${category}:`, ...indent(text, '  '));
    }
    return `${out.join('\n')}\n`;
  }

  private record(event: DebugProtocol.Event): void {
    if (event.event === 'stopped') this.stops += 1;
    if (event.event === 'breakpoint') {
      const change = event as DebugProtocol.BreakpointEvent;
      // Left out: the "not connected" state when the link drops as the program ends. Whether it
      // is sent at all depends on whether the socket's close is seen before the process exit.
      if (change.body.breakpoint.message?.startsWith(NOT_CONNECTED_MESSAGE)) return;
      // Kept apart: a breakpoint binds when the reply to its list and the runtime's
      // `breakpointsBound` are handled, which may be before or after a stop that came in the same
      // TCP read. One breakpoint's own changes keep their order.
      this.breakpointChanges.push(change);
      return;
    }
    if (event.event === 'output') {
      const body = (event as DebugProtocol.OutputEvent).body;
      const category = body.category ?? 'console';
      // Kept apart: the program's own output comes through a pipe while stops come through the
      // socket, so its place among the events varies; it keeps its order within its category.
      if (category === 'stdout' || category === 'stderr') {
        this.programOutput.set(category, (this.programOutput.get(category) ?? '') + body.output);
        return;
      }
    }
    this.sequence.push(event);
  }
}

function indent(text: string, prefix: string): string[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${prefix}${l}`);
}

interface Names {
  threads: Ids;
  breakpoints: Ids;
}

function describeBreakpoint(change: DebugProtocol.BreakpointEvent, names: Names): string {
  const bp = change.body.breakpoint;
  const id = bp.id === undefined ? 'bp' : names.breakpoints.name(bp.id);
  const where = bp.source ? ` ${scenarioPath(bp.source.path)}:${bp.line ?? '?'}` : '';
  const message = bp.message ? ` "${stable(bp.message)}"` : '';
  return `${change.body.reason}: ${id}${where} ${bp.verified ? 'verified' : 'unverified'}${message}`;
}

/** One event of the sequence as a line; `stop` numbers a stopped event. */
function describe(event: DebugProtocol.Event, names: Names, stop: number): string {
  const body = (event.body ?? {}) as Record<string, unknown>;
  switch (event.event) {
    case 'stopped': {
      const e = body as DebugProtocol.StoppedEvent['body'];
      const parts = [`stopped #${stop}: ${e.reason}`];
      if (e.description) parts.push(`"${e.description}"`);
      if (e.text) parts.push(`text "${stable(e.text)}"`);
      if (e.threadId !== undefined) parts.push(names.threads.name(e.threadId));
      if (e.allThreadsStopped) parts.push('all threads');
      if (e.hitBreakpointIds?.length) {
        parts.push(`hit ${e.hitBreakpointIds.map((id) => names.breakpoints.name(id)).join(' ')}`);
      }
      return parts.join(', ');
    }
    case 'continued': {
      const e = body as DebugProtocol.ContinuedEvent['body'];
      return `continued: ${names.threads.name(e.threadId)}${e.allThreadsContinued ? ', all threads' : ''}`;
    }
    case 'thread': {
      const e = body as DebugProtocol.ThreadEvent['body'];
      return `thread ${e.reason}: ${names.threads.name(e.threadId)}`;
    }
    case 'output': {
      const e = body as DebugProtocol.OutputEvent['body'];
      return `output ${e.category ?? 'console'}: ${stable(e.output)}`;
    }
    case 'process':
      // The name is the interpreter's and the pid varies: how it started is what stays.
      return `process: ${String(body.startMethod ?? '?')}`;
    case 'exited':
      return `exited: ${String(body.exitCode)}`;
    case ENDED_EVENT: {
      const e = endedEventBodySchema.parse(body);
      return `${ENDED_EVENT}: ${stable(e.reason)}${e.error ? ` (${e.error.code})` : ''}`;
    }
    case WARNING_EVENT:
      return `${WARNING_EVENT}: ${stable(warningEventBodySchema.parse(body).text)}`;
    default:
      return event.event;
  }
}
