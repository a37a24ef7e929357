/**
 * The "LuaPanda Trace" log channel: made on the first trace line only (a user who never traces
 * never sees it), each line `[tag] text`, gone with the extension.
 */
import { resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import { TRACE_CHANNEL_NAME, TraceChannel } from '../../src/extension/debug/traceChannel';

describe('extension: trace channel', () => {
  beforeEach(resetVscode);

  it('opens the channel on the first line and writes each line with its tag', () => {
    const channel = new TraceChannel();
    assert.equal(vscode.window.createOutputChannel.callCount, 0, 'nothing until a line comes');
    channel.sink('wire.send', '{"cmd":"continue"}');
    channel.sink('session.state', 'Stopped → Running (continue requested)');
    assert.equal(vscode.window.createOutputChannel.callCount, 1);
    const [name, options] = vscode.window.createOutputChannel.firstCall.args as [string, object];
    assert.equal(name, TRACE_CHANNEL_NAME);
    assert.deepEqual(options, { log: true });
    const made = vscode.window.createOutputChannel.firstCall.returnValue as {
      lines: string[];
      dispose: { callCount: number };
    };
    assert.deepEqual(made.lines, [
      '[wire.send] {"cmd":"continue"}',
      '[session.state] Stopped → Running (continue requested)',
    ]);
    channel.dispose();
    assert.equal(made.dispose.callCount, 1);
  });
});
