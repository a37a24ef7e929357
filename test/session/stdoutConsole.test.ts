/**
 * The splitter that takes the runtime's console lines (logpoints) out of a launched program's
 * stdout: markers and lines split anywhere between chunks, NULs of the program's own, a marker
 * that never ends, and the end of the stream.
 */
import * as assert from 'node:assert/strict';
import { CONSOLE_MARKER, StdoutConsoleSplitter } from '../../src/session/link/stdoutConsole';

const line = (text: string) => `${CONSOLE_MARKER}${text}\u0000`;

/** Every piece of `chunks` after splitting, neighbours of one kind joined. */
function split(chunks: string[]): [string, string][] {
  const splitter = new StdoutConsoleSplitter();
  const pieces = [...chunks.flatMap((c) => splitter.push(c)), ...splitter.flush()];
  const joined: [string, string][] = [];
  for (const p of pieces) {
    const last = joined.at(-1);
    if (last && last[0] === p.kind) last[1] += p.text;
    else joined.push([p.kind, p.text]);
  }
  return joined;
}

describe('session/stdoutConsole', () => {
  it('takes console lines out of stdout, in place', () => {
    assert.deepEqual(split([`print 1\n${line('log 1')}print 2\n`]), [
      ['stdout', 'print 1\n'],
      ['console', 'log 1\n'],
      ['stdout', 'print 2\n'],
    ]);
  });

  it('keeps the order whichever way the chunks split the stream', () => {
    const stream = `a\n${line('[LogPoint Output]: x = 1')}b\u0000c\n${line('two\nlines')}end\n`;
    const expected = split([stream]);
    assert.deepEqual(expected, [
      ['stdout', 'a\n'],
      ['console', '[LogPoint Output]: x = 1\n'],
      ['stdout', 'b\u0000c\n'],
      ['console', 'two\nlines\n'],
      ['stdout', 'end\n'],
    ]);
    for (let cut = 1; cut < stream.length; cut++) {
      assert.deepEqual(split([stream.slice(0, cut), stream.slice(cut)]), expected, `cut at ${cut}`);
    }
    assert.deepEqual(split([...stream]), expected, 'one character at a time');
  });

  it('gives back as program output a marker left open when the stream ends', () => {
    assert.deepEqual(split(['x', `${CONSOLE_MARKER}never ended`]), [
      ['stdout', `x${CONSOLE_MARKER}never ended`],
    ]);
  });
});
