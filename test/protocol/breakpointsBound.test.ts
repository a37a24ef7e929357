// The breakpointsBound notification (protocol extension) as the IDE side reads it.
import * as assert from 'node:assert/strict';
import { classifyFrame } from '../../src/protocol';

describe('protocol/breakpointsBound', () => {
  const read = (info: unknown) => {
    const text = JSON.stringify({ cmd: 'breakpointsBound', callbackId: '0', info });
    return classifyFrame(JSON.parse(text), text);
  };

  it('reads a loaded file and where its breakpoints bound (numbers as strings too)', () => {
    assert.deepEqual(read({ path: '/g/a.lua', lines: [{ line: '25', bound: 26 }] }), {
      kind: 'notification',
      notification: {
        kind: 'bound',
        cmd: 'breakpointsBound',
        path: '/g/a.lua',
        lines: [{ line: 25, bound: 26 }],
      },
    });
    // Lua encodes an empty list as [] or {}.
    const empty = read({ path: '/g/a.lua', lines: {} });
    assert.ok(empty.kind === 'notification' && empty.notification.kind === 'bound');
    assert.deepEqual(empty.notification.lines, []);
  });

  it('refuses a malformed one without throwing', () => {
    const bad = read({ lines: [] });
    assert.equal(bad.kind, 'error');
  });
});
