/**
 * What the tests of tracing check in a wire trace, wherever it was written (the debug console,
 * stderr, a file): every request the IDE sent has its reply traced, and the stop came back.
 */
import * as assert from 'node:assert/strict';

/** A frame as the `wire.send` and `wire.receive` trace lines show it (the frame's JSON). */
export interface WireFrame {
  cmd: string;
  callbackId?: string | number;
  info?: Record<string, unknown>;
}

export function assertRepliesAndStopTraced(sent: WireFrame[], received: WireFrame[]): void {
  for (const request of sent.filter((f) => f.callbackId !== undefined)) {
    assert.ok(
      received.some(
        (f) => f.cmd === request.cmd && String(f.callbackId) === String(request.callbackId),
      ),
      `the reply to ${request.cmd} #${request.callbackId}`,
    );
  }
  assert.ok(
    received.some((f) => f.cmd === 'stopOnBreakpoint'),
    'the stop notification',
  );
}
