/**
 * The tagged logger on its own: a tag nobody asked for costs nothing (its text is never built and
 * no sink is called), switches name tags or their prefixes, each channel gets only its tags, and
 * the file sink appends whole lines.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ALL_TRACE_TAGS,
  NO_TRACE,
  TraceTag,
  Tracer,
  fileSink,
  formatTraceLine,
  parseTraceTags,
  tracerFromSwitches,
} from '../../src/common/trace';

describe('trace: the tagged logger', () => {
  it('does nothing when off: no text is built, no sink is called', () => {
    let built = 0;
    let written = 0;
    const make = () => {
      built++;
      return 'costly';
    };
    for (const tag of ALL_TRACE_TAGS) {
      NO_TRACE.log(tag, make);
      assert.equal(NO_TRACE.enabled(tag), false);
    }
    assert.equal(NO_TRACE.active, false);
    const tracer = NO_TRACE.with(['dap'], () => written++);
    tracer.log('wire.send', make);
    tracer.log('session.state', make);
    assert.equal(built, 0, 'the text of a disabled tag is never made');
    assert.equal(written, 0);
    tracer.log('dap', make);
    assert.deepEqual([built, written], [1, 1]);
    assert.equal(
      NO_TRACE.with([], () => written++),
      NO_TRACE,
      'no tags, no channel',
    );
  });

  it('sends each line only to the channels that asked for its tag', () => {
    const seen: string[] = [];
    const tracer = NO_TRACE.with(['wire.send'], (tag, text) => seen.push(`a ${tag} ${text}`)).with(
      ['wire.send', 'dap'],
      (tag, text) => seen.push(`b ${tag} ${text}`),
    );
    tracer.log('wire.send', 'x');
    tracer.log('dap', () => 'y');
    tracer.log('mcp.call', 'z');
    assert.deepEqual(seen, ['a wire.send x', 'b wire.send x', 'b dap y']);
  });

  it('a failing sink does not stop the others, nor throw', () => {
    const seen: string[] = [];
    const tracer = new Tracer()
      .with(['dap'], () => {
        throw new Error('closed');
      })
      .with(['dap'], (_tag, text) => seen.push(text));
    tracer.log('dap', 'still here');
    assert.deepEqual(seen, ['still here']);
  });

  it('parses switches: every tag, none, lists and prefixes; an unknown tag is named', () => {
    assert.deepEqual(parseTraceTags(true), ALL_TRACE_TAGS);
    assert.deepEqual(parseTraceTags('all'), ALL_TRACE_TAGS);
    assert.deepEqual(parseTraceTags('1'), ALL_TRACE_TAGS);
    assert.deepEqual(parseTraceTags(false), []);
    assert.deepEqual(parseTraceTags(undefined), []);
    assert.deepEqual(parseTraceTags('0'), []);
    assert.deepEqual(parseTraceTags(''), []);
    assert.deepEqual(parseTraceTags('wire'), ['wire.send', 'wire.receive']);
    assert.deepEqual(parseTraceTags(' dap , Session.State '), ['dap', 'session.state']);
    assert.deepEqual(parseTraceTags(['mcp', 'runtime']), ['mcp.call', 'runtime']);
    assert.throws(() => parseTraceTags('wires'), /unknown trace tag "wires"/);
  });

  it('the file sink appends timestamped lines; a file alone traces every tag', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-trace-'));
    try {
      const file = path.join(dir, 'trace.log');
      const tracer = tracerFromSwitches(undefined, file);
      for (const tag of ALL_TRACE_TAGS) assert.ok(tracer.enabled(tag), tag);
      tracer.log('wire.receive', '{"cmd":"output"}');
      fileSink(file)('dap', 'second');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      assert.match(lines[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z \[wire\.receive\] \{"cmd":"output"\}$/);
      assert.match(lines[1], /\[dap\] second$/);
      assert.equal(lines[2], '');
      assert.equal(tracerFromSwitches('off', undefined), NO_TRACE);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('formats a line with the time, the tag and the text', () => {
    const tag: TraceTag = 'session.state';
    assert.equal(
      formatTraceLine(tag, 'Running → Stopped', new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))),
      '2026-01-02T03:04:05.006Z [session.state] Running → Stopped\n',
    );
  });
});
