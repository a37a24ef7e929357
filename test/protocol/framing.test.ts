/** Framing: what goes on the wire, and how incoming bytes become frames or typed errors. */
import * as assert from 'node:assert/strict';
import { DecodedFrame, FrameDecoder, ProtocolError, encodeFrame } from '../../src/protocol';

function collect(maxFrameBytes?: number) {
  const frames: DecodedFrame[] = [];
  const errors: ProtocolError[] = [];
  const decoder = new FrameDecoder({
    maxFrameBytes,
    onFrame: (f) => frames.push(f),
    onError: (e) => errors.push(e),
  });
  return { decoder, frames, errors, json: () => frames.map((f) => f.json) };
}

describe('framing', () => {
  describe('encodeFrame', () => {
    it('writes JSON, a space, the delimiter and a newline, as upstream does', () => {
      assert.equal(
        encodeFrame({ callbackId: '12', cmd: 'continue', info: {} }),
        '{"callbackId":"12","cmd":"continue","info":{}} |*|\n',
      );
    });

    it('escapes every "|" so a string can never end the frame early on the Lua side', () => {
      const frame = encodeFrame({ cmd: 'setBreakPoint', info: { condition: 's == "|*|"' } });
      assert.equal(frame.indexOf('|*|'), frame.length - 4);
      assert.ok(frame.includes('\\u007c*\\u007c'));
      assert.deepEqual(JSON.parse(frame.slice(0, -5)), {
        cmd: 'setBreakPoint',
        info: { condition: 's == "|*|"' },
      });
    });

    it('keeps a frame on one line whatever the strings hold', () => {
      const frame = encodeFrame({ cmd: 'x', info: { text: 'a\nb\r\nc\u2028' } });
      assert.equal(frame.split('\n').length, 2);
    });

    it('refuses values that are not JSON', () => {
      assert.throws(() => encodeFrame(undefined), TypeError);
    });
  });

  describe('FrameDecoder', () => {
    it('decodes Lua-style and IDE-style frames, several per chunk', () => {
      const { decoder, json, errors } = collect();
      decoder.write('{"cmd":"a","info":[]}|*|\n{"cmd":"b","info":{}} |*|\n');
      assert.deepEqual(json(), [
        { cmd: 'a', info: [] },
        { cmd: 'b', info: {} },
      ]);
      assert.deepEqual(errors, []);
    });

    it('reassembles a frame split inside a multi-byte UTF-8 character', () => {
      const { decoder, json } = collect();
      const bytes = Buffer.from('{"cmd":"output","info":{"logInfo":"日本🎉"}}|*|\n', 'utf8');
      const cut = bytes.indexOf(Buffer.from('本', 'utf8')) + 1; // inside the 3-byte sequence
      decoder.write(bytes.subarray(0, cut));
      assert.deepEqual(json(), []);
      decoder.write(bytes.subarray(cut));
      assert.deepEqual(json(), [{ cmd: 'output', info: { logInfo: '日本🎉' } }]);
    });

    it('treats a "|*|" inside a JSON string as data (upstream Lua sends it raw)', () => {
      const { decoder, json } = collect();
      decoder.write('{"cmd":"output","info":{"logInfo":"a|*|b"}}|*|\n');
      assert.deepEqual(json(), [{ cmd: 'output', info: { logInfo: 'a|*|b' } }]);
    });

    it('tolerates CRLF line ends and blank lines', () => {
      const { decoder, json, errors } = collect();
      decoder.write('\r\n{"cmd":"a"}|*|\r\n\n  \n{"cmd":"b"}|*|  \n');
      assert.deepEqual(json(), [{ cmd: 'a' }, { cmd: 'b' }]);
      assert.deepEqual(errors, []);
    });

    it('accepts raw control characters that upstream Lua leaves unescaped', () => {
      const { decoder, json } = collect();
      decoder.write('{"cmd":"output","info":{"logInfo":"bell\u0007 and nul\u0000"}}|*|\n');
      assert.deepEqual(json(), [{ cmd: 'output', info: { logInfo: 'bell\u0007 and nul\u0000' } }]);
    });

    it('reports invalid JSON and a missing delimiter, and goes on with the next frame', () => {
      const { decoder, json, errors } = collect();
      decoder.write('{"cmd":|*|\n{"cmd":"no-delimiter"}\n{"cmd":"ok"}|*|\n');
      assert.deepEqual(
        errors.map((e) => e.code),
        ['invalid-json', 'missing-delimiter'],
      );
      assert.deepEqual(json(), [{ cmd: 'ok' }]);
    });

    it('reports an oversized frame once, as soon as it exceeds the limit, and recovers', () => {
      const { decoder, json, errors } = collect(100);
      decoder.write('{"cmd":"big","info":"' + 'x'.repeat(60));
      assert.equal(errors.length, 0);
      decoder.write('x'.repeat(60));
      assert.deepEqual(
        errors.map((e) => e.code),
        ['frame-too-large'],
      );
      decoder.write('x'.repeat(500) + '"}|*|\n{"cmd":"small"}|*|\n');
      assert.equal(errors.length, 1);
      assert.deepEqual(json(), [{ cmd: 'small' }]);
    });

    it('reports an oversized frame that arrives whole in one chunk', () => {
      const { decoder, json, errors } = collect(50);
      decoder.write(`{"cmd":"big","info":"${'é'.repeat(40)}"}|*|\n{"cmd":"next"}|*|\n`);
      assert.deepEqual(
        errors.map((e) => e.code),
        ['frame-too-large'],
      );
      assert.deepEqual(json(), [{ cmd: 'next' }]);
    });

    it('counts the limit in bytes, not characters', () => {
      const { decoder, errors } = collect(40);
      // 20 characters, 60 bytes.
      decoder.write(`${'日'.repeat(20)}|*|\n`);
      assert.deepEqual(
        errors.map((e) => e.code),
        ['frame-too-large'],
      );
    });

    it('reports a frame cut off by the end of the stream', () => {
      const { decoder, errors, json } = collect();
      decoder.write('{"cmd":"ok"}|*|\n{"cmd":"half","inf');
      decoder.end();
      assert.deepEqual(json(), [{ cmd: 'ok' }]);
      assert.deepEqual(
        errors.map((e) => e.code),
        ['truncated-frame'],
      );
      decoder.write('{"cmd":"after-end"}|*|\n');
      assert.equal(json().length, 1);
    });

    it('ends quietly when the stream ends on a frame boundary', () => {
      const { decoder, errors } = collect();
      decoder.write('{"cmd":"ok"}|*|\n');
      decoder.end();
      assert.deepEqual(errors, []);
    });

    it('keeps excerpts of bad frames short', () => {
      const { decoder, errors } = collect();
      decoder.write(`${'{'.repeat(10_000)}|*|\n`);
      assert.equal(errors[0].code, 'invalid-json');
      assert.ok((errors[0].excerpt ?? '').length < 300);
    });
  });
});
