/** What a language-model tool call says: the result text the model reads, the running line. */
import * as assert from 'node:assert/strict';
import { callSummary, resultText } from '../../src/extension/agentTools/lmToolMessages';
import { toCallToolResult } from '../../src/mcp/results';

describe('extension: language-model tool messages', () => {
  it("returns an MCP result's text content, which is the result's JSON", () => {
    const result = toCallToolResult({ status: 'stopped', stop_event_data: { line: 3 } });
    assert.deepEqual(JSON.parse(resultText(result)), {
      status: 'stopped',
      stop_event_data: { line: 3 },
    });
    const failed = toCallToolResult({ status: 'error', message: 'No debug session is active.' });
    assert.equal(resultText(failed), JSON.stringify(failed.structuredContent));
  });

  it('falls back to the structured content as JSON when a result has no text', () => {
    const text = resultText({ content: [], structuredContent: { status: 'success', n: 1 } });
    assert.deepEqual(JSON.parse(text), { status: 'success', n: 1 });
    assert.deepEqual(JSON.parse(resultText({ content: [], isError: true })), { status: 'error' });
  });

  it('sums a call up with its telling arguments, long values cut', () => {
    assert.equal(
      callSummary('Set a breakpoint', {
        file_path: 'main.lua',
        line_number: 3,
        timeout_seconds: 9,
      }),
      'Set a breakpoint (file_path: main.lua, line_number: 3)',
    );
    assert.equal(callSummary('Get debug state', {}), 'Get debug state');
    const long = callSummary('Evaluate', { expression: 'x'.repeat(200) });
    assert.ok(long.length < 120 && long.endsWith('...)'), long);
  });
});
