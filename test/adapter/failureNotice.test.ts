/**
 * A failure no launch/attach response carries — VS Code's attach wait running out — reaches the
 * user as the extension's error notification (its first sentence, the whole text a click away),
 * not as important output, which VS Code shows as an information toast cut to one line. Without a
 * notifier (other clients) it stays important output.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import { LuaDebugSession, failureSummary } from '../../src/adapter';
import { freePort } from './dapHarness';

/** Runs an attach that no game answers, as a client that shows progress (VS Code) does. */
async function attachRunsOut(
  notifyFailure?: (summary: string, fullText: string) => void,
): Promise<DebugProtocol.OutputEvent[]> {
  const adapter = new LuaDebugSession(notifyFailure ? { notifyFailure } : {});
  const outputs: DebugProtocol.OutputEvent[] = [];
  let seq = 1;
  const ended = new Promise<void>((resolve) => {
    adapter.onDidSendMessage((raw) => {
      const message = raw as DebugProtocol.ProtocolMessage;
      if (message.type !== 'event') return;
      const event = message as DebugProtocol.Event;
      if (event.event === 'output') outputs.push(event as DebugProtocol.OutputEvent);
      if (event.event === 'terminated') resolve();
    });
  });
  const send = (command: string, args: object) =>
    adapter.handleMessage({
      seq: seq++,
      type: 'request',
      command,
      arguments: args,
    } as DebugProtocol.Request);
  send('initialize', {
    adapterID: 'luapanda',
    pathFormat: 'path',
    linesStartAt1: true,
    columnsStartAt1: true,
    supportsProgressReporting: true,
  });
  send('attach', { connectionPort: await freePort(), connectionTimeout: 0.3 });
  send('configurationDone', {});
  await ended;
  adapter.dispose();
  return outputs;
}

describe('adapter: a failure no response carries', function () {
  this.timeout(15_000);

  it('goes to the notifier with its first sentence and its whole text, and to the console', async () => {
    const notices: [string, string][] = [];
    const outputs = await attachRunsOut((summary, text) => notices.push([summary, text]));
    assert.equal(notices.length, 1, JSON.stringify(notices));
    const [summary, text] = notices[0];
    assert.equal(summary, 'No game connected within 0.3 s (connectionTimeout).');
    assert.match(text, /^No game connected within 0\.3 s \(connectionTimeout\)\. .+/s);
    assert.ok(text.length > summary.length, 'the whole text says more');
    assert.ok(outputs.some((o) => o.body.category === 'console' && o.body.output.includes(text)));
    assert.ok(!outputs.some((o) => o.body.category === 'important'), 'no information toast');
  });

  it('stays important output without a notifier', async () => {
    const outputs = await attachRunsOut();
    const important = outputs.filter((o) => o.body.category === 'important');
    assert.equal(important.length, 1);
    assert.match(important[0].body.output, /No game connected within 0\.3 s/);
  });

  it('a summary is the first sentence, cut between words when long', () => {
    assert.equal(failureSummary('One thing failed. Then more.\nDetails'), 'One thing failed.');
    assert.equal(failureSummary('Within 0.3 s it failed'), 'Within 0.3 s it failed');
    const long = `${'word '.repeat(60)}end.`;
    const summary = failureSummary(long);
    assert.ok(summary.length <= 161, summary);
    assert.match(summary, /word…$/);
  });
});
