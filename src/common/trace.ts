/**
 * Tagged tracing of what crosses each boundary of the debugger (the wire to Lua, DAP, MCP tool
 * calls, session state), so that a bug report can carry what happened. It sits below every layer
 * (it imports nothing of ours). A `Tracer` is a list of channels, each a set of tags and a sink;
 * a tag no channel asked for costs one set lookup and builds no string (pass a function for text
 * that is costly to make).
 */
import * as fs from 'node:fs';

/** Every tag, with what it traces. A switch may name a tag or its prefix (`wire`). */
export const TRACE_TAGS = {
  'wire.send': 'each frame the IDE sends to the Lua side',
  'wire.receive': 'each frame the Lua side sends to the IDE',
  dap: 'DAP requests, responses and events of the adapter',
  'mcp.call': 'MCP tool calls and their results',
  'session.state': 'session state changes (Starting, Running, Stopped, …)',
  runtime: "the Lua runtime's own trace lines (hook mode changes, command dispatch)",
} as const;

export type TraceTag = keyof typeof TRACE_TAGS;

export const ALL_TRACE_TAGS = Object.keys(TRACE_TAGS) as TraceTag[];

/** Where trace lines go: one call per line, the tag and the text (no timestamp, no newline). */
export type TraceSink = (tag: TraceTag, text: string) => void;

interface Channel {
  readonly tags: ReadonlySet<TraceTag>;
  readonly sink: TraceSink;
}

export class Tracer {
  private readonly on: ReadonlySet<TraceTag>;

  constructor(private readonly channels: readonly Channel[] = []) {
    const on = new Set<TraceTag>();
    for (const channel of channels) for (const tag of channel.tags) on.add(tag);
    this.on = on;
  }

  /** Whether any channel traces `tag`: test it before building a costly line. */
  enabled(tag: TraceTag): boolean {
    return this.on.has(tag);
  }

  /** Whether anything at all is traced. */
  get active(): boolean {
    return this.on.size > 0;
  }

  /** Writes one line to every channel that traces `tag`; `text` is called only then. */
  log(tag: TraceTag, text: string | (() => string)): void {
    if (!this.on.has(tag)) return;
    const line = typeof text === 'function' ? text() : text;
    for (const channel of this.channels) {
      if (!channel.tags.has(tag)) continue;
      try {
        channel.sink(tag, line);
      } catch {
        // A sink that fails (a closed channel, a full disk) must not break the debugger.
      }
    }
  }

  /** This tracer plus a channel sending `tags` to `sink`. */
  with(tags: Iterable<TraceTag>, sink: TraceSink): Tracer {
    const set = new Set(tags);
    if (set.size === 0) return this;
    return new Tracer([...this.channels, { tags: set, sink }]);
  }
}

/** Traces nothing. */
export const NO_TRACE = new Tracer();

/**
 * The tags a switch names: `true`/`"all"`/`"*"`/`"1"` every tag, `false`/`""`/`"0"` none, else a
 * comma-separated list (or array) of tags or prefixes (`wire` = `wire.send` and `wire.receive`).
 * Throws with a message naming the unknown tag.
 */
export function parseTraceTags(spec: boolean | string | readonly string[] | undefined): TraceTag[] {
  if (spec === undefined || spec === false) return [];
  if (spec === true) return [...ALL_TRACE_TAGS];
  const words = (typeof spec === 'string' ? spec.split(',') : spec)
    .map((word) => word.trim())
    .filter((word) => word !== '');
  const tags = new Set<TraceTag>();
  for (const word of words) {
    const lower = word.toLowerCase();
    if (lower === '0' || lower === 'false' || lower === 'off') continue;
    if (lower === '1' || lower === 'true' || lower === 'all' || lower === '*') {
      for (const tag of ALL_TRACE_TAGS) tags.add(tag);
      continue;
    }
    const matching = ALL_TRACE_TAGS.filter((tag) => tag === lower || tag.startsWith(`${lower}.`));
    if (matching.length === 0) {
      throw new Error(
        `unknown trace tag "${word}" (known: ${ALL_TRACE_TAGS.join(', ')}, or "all")`,
      );
    }
    for (const tag of matching) tags.add(tag);
  }
  return ALL_TRACE_TAGS.filter((tag) => tags.has(tag));
}

/** A line as file and stderr sinks write it: time, tag, text. */
export function formatTraceLine(tag: TraceTag, text: string, now = new Date()): string {
  return `${now.toISOString()} [${tag}] ${text}\n`;
}

/** Writes each line to stderr (never stdout: it is the protocol of the stdio servers). */
export function stderrSink(): TraceSink {
  return (tag, text) => {
    process.stderr.write(formatTraceLine(tag, text));
  };
}

/** Appends each line to `file` synchronously, so that the last lines survive a crash. */
export function fileSink(file: string): TraceSink {
  const fd = fs.openSync(file, 'a');
  return (tag, text) => {
    fs.writeSync(fd, formatTraceLine(tag, text));
  };
}

let processTracer: Tracer | undefined;

/**
 * The process-wide tracer: `LUAPANDA_TRACE=tags` traces to stderr, or to the file
 * `LUAPANDA_TRACE_FILE` names (which alone traces every tag). Command-line switches replace it
 * with `setProcessTracer`.
 */
export function getProcessTracer(env: NodeJS.ProcessEnv = process.env): Tracer {
  if (processTracer === undefined) {
    try {
      processTracer = tracerFromSwitches(env.LUAPANDA_TRACE, env.LUAPANDA_TRACE_FILE);
    } catch (error) {
      // A mistyped variable must not stop the debugger: say why nothing is traced.
      process.stderr.write(`LuaPanda: LUAPANDA_TRACE ignored: ${(error as Error).message}\n`);
      processTracer = NO_TRACE;
    }
  }
  return processTracer;
}

export function setProcessTracer(tracer: Tracer): void {
  processTracer = tracer;
}

/**
 * A tracer from a tag switch and an optional file: the file when given, else `sink` (stderr). A
 * file without tags traces every tag. A bad switch throws (its message names the tag).
 */
export function tracerFromSwitches(
  tags: string | undefined,
  file: string | undefined,
  sink: TraceSink = stderrSink(),
): Tracer {
  const list = parseTraceTags(tags === undefined && file ? true : tags);
  if (list.length === 0) return NO_TRACE;
  return NO_TRACE.with(list, file ? fileSink(file) : sink);
}
