/**
 * Property tests of the framing: any message survives encoding and any chunking of its bytes
 * (cuts inside multi-byte characters included), and no input at all makes the decoder throw.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodedFrame, FrameDecoder, ProtocolError, encodeFrame } from '../../src/protocol';

/** Strings rich in what breaks framings: the delimiter, quotes, escapes, newlines, astral chars. */
const trickyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    '|*|',
    ' |*|\n',
    '"',
    '\\',
    '\n',
    '\r\n',
    '\u0000',
    '🎉',
    '日本語',
    '\u2028',
    '文件名',
  ),
  fc
    .array(fc.constantFrom('|', '*', '"', '\\', 'a', 'é', '\n', '🎉'), { maxLength: 20 })
    .map((a) => a.join('')),
);

const message = fc.record(
  {
    cmd: trickyString.filter((s) => s.length > 0),
    callbackId: fc.oneof(fc.constant('0'), fc.integer({ min: 10, max: 999_999_999 }).map(String)),
    info: fc.dictionary(
      trickyString,
      fc.oneof(trickyString, fc.integer(), fc.boolean(), fc.constant(null)),
      {
        maxKeys: 5,
        noNullPrototype: true,
      },
    ),
  },
  { noNullPrototype: true },
);

/** Cuts `bytes` at the given (sorted, deduplicated) offsets. */
function chunk(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    pieces.push(bytes.subarray(from, p));
    from = p;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

function decodeAll(pieces: Buffer[], maxFrameBytes?: number) {
  const frames: DecodedFrame[] = [];
  const errors: ProtocolError[] = [];
  const decoder = new FrameDecoder({
    maxFrameBytes,
    onFrame: (f) => frames.push(f),
    onError: (e) => errors.push(e),
  });
  for (const piece of pieces) decoder.write(piece);
  decoder.end();
  return { frames, errors };
}

describe('framing properties', () => {
  it('round-trips any messages under any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (messages, cuts) => {
          const bytes = Buffer.from(messages.map(encodeFrame).join(''), 'utf8');
          const { frames, errors } = decodeAll(chunk(bytes, cuts));
          assert.deepEqual(errors, []);
          assert.deepEqual(
            frames.map((f) => f.json),
            messages,
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips Lua-style frames (no space before the delimiter) too', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (messages, cuts) => {
          const text = messages.map((m) => `${JSON.stringify(m)}|*|\n`).join('');
          const { frames, errors } = decodeAll(chunk(Buffer.from(text, 'utf8'), cuts));
          assert.deepEqual(errors, []);
          assert.deepEqual(
            frames.map((f) => f.json),
            messages,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary bytes, and recovers for the next well-formed frame', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 10 }),
        fc.integer({ min: 32, max: 4096 }),
        (garbage, limit) => {
          const tail = Buffer.from('\n{"cmd":"after"}|*|\n', 'utf8');
          const { frames } = decodeAll([...garbage.map((g) => Buffer.from(g)), tail], limit);
          assert.deepEqual(frames.at(-1)?.json, { cmd: 'after' });
        },
      ),
      { numRuns: 500 },
    );
  });
});
