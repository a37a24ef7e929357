/**
 * The headless breakpoint store against an adapter whose events overtake its answers: an event is
 * delivered at once while the answer's caller resumes later, so the store orders them by the
 * adapter's message numbers (`seq`), and an event about a breakpoint whose answer is not read yet
 * is kept until it is.
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { HeadlessBreakpoints } from '../../src/mcp/headless/headlessBreakpoints';

const FILE = path.join(os.tmpdir(), 'no-such-dir-for-headless-breakpoints', 'game.lua');

/** A target that answers `setBreakpoints` with `answer` numbered `seq`, after `before` ran. */
function target(
  answer: DebugProtocol.Breakpoint[],
  seq: number,
  before: () => void = () => undefined,
) {
  return {
    id: 'session',
    async request() {
      before();
      return { body: { breakpoints: answer }, seq };
    },
  };
}

const event = (verified: boolean, message?: string): DebugProtocol.BreakpointEvent['body'] => ({
  reason: 'changed',
  breakpoint: { id: 7, verified, line: 5, ...(message ? { message } : {}) },
});

describe('headless breakpoints: events and answers in the adapter order', () => {
  it('a newer event that came before the answer was read wins over the answer', async () => {
    const store = new HeadlessBreakpoints();
    const bp = await store.add({ filePath: FILE, line: 5 });
    await store.attach(
      target([{ id: 7, verified: false, message: 'Not loaded yet' }], 3, () =>
        store.onAdapterEvent('session', event(true), 9),
      ),
    );
    const shown = store.list().find((b) => b.id === bp.id);
    assert.deepEqual([shown?.verified, shown?.message], [true, undefined]);
    assert.equal(store.idForAdapterBreakpoint('session', 7), bp.id);
  });

  it('an older event does not undo the answer', async () => {
    const store = new HeadlessBreakpoints();
    const bp = await store.add({ filePath: FILE, line: 5 });
    await store.attach(
      target([{ id: 7, verified: true, line: 5 }], 9, () =>
        store.onAdapterEvent('session', event(false, 'stale'), 3),
      ),
    );
    const shown = store.list().find((b) => b.id === bp.id);
    assert.deepEqual([shown?.verified, shown?.message], [true, undefined]);
    // Later events apply as usual.
    store.onAdapterEvent('session', event(false, 'the link dropped'), 12);
    assert.equal(store.list()[0].message, 'the link dropped');
  });

  it('reports where a session bound a moved breakpoint', async () => {
    const store = new HeadlessBreakpoints();
    await store.add({ filePath: FILE, line: 4 });
    await store.attach(
      target([{ id: 7, verified: true, line: 6, message: 'Moved from line 4 (blank)' }], 2),
    );
    const [shown] = store.list();
    assert.deepEqual(
      [shown.line, shown.boundLine, shown.verified, shown.message],
      [4, 6, true, 'Moved from line 4 (blank)'],
    );
  });
});
