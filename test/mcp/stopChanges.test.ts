// The stop data's `changed` list under the byte budget, without a program: long previews of what
// changed are cut early, and the list itself keeps at least its first three entries; the values
// the tools show never carry the Variables view's `(was …)`.
import * as assert from 'node:assert/strict';
import { STOP_BUDGET_BYTES, byteSize, fitStopEventData } from '../../src/mcp/stop/stopBudget';
import { CHANGE_VALUE_CHARS, MAX_CHANGES } from '../../src/mcp/stop/stopChanges';
import { viewVariable, type StopEventData } from '../../src/mcp/stop/stopEventData';
import { stopVariable } from '../../src/mcp/stop/stopScopes';
import {
  CHANGED_ATTRIBUTE,
  changedValueText,
  plainValueOf,
} from '../../src/adapter/changesRequest';

function stopData(changes: number, valueChars: number, locals: number): StopEventData {
  const value = 'v'.repeat(valueChars);
  return {
    timestamp: '2026-01-01T00:00:00.000Z',
    session_id: 's',
    reason: 'breakpoint',
    thread_id: 1,
    call_stack: [{ frame_id: 1, function_name: 'tick', line_number: 3, column_number: 1 }],
    top_frame_variables: {
      scope_name: 'Locals',
      variables_reference: 1,
      truncated: false,
      variables: Array.from({ length: locals }, (_, i) => ({
        name: `local${i}`,
        value: 'x'.repeat(120),
        variables_reference: 0,
      })),
    },
    changed: Array.from({ length: changes }, (_, i) => ({
      name: `name${i}`,
      old: value,
      new: value,
    })),
    source_lines: [{ line: 3, text: 'return damage', current: true }],
  };
}

describe('MCP stop data: the changed list within the budget', () => {
  it('is left whole when the stop data fits', () => {
    const data = stopData(4, 10, 3);
    assert.deepEqual(fitStopEventData(data), data);
  });

  it('cuts long previews and keeps at least the first three changes', () => {
    const data = stopData(MAX_CHANGES, CHANGE_VALUE_CHARS, 60);
    assert.ok(byteSize(data) > STOP_BUDGET_BYTES);
    const fitted = fitStopEventData(data, 3000);
    assert.ok(byteSize(fitted) <= 3000, String(byteSize(fitted)));
    const changed = fitted.changed ?? [];
    assert.ok(changed.length >= 3, JSON.stringify(changed));
    assert.ok(changed.every((c) => c.old.length <= 31 && c.new.length <= 31));
    assert.equal(changed[0].name, 'name0', 'the first changes are kept');
  });
});

describe("MCP values without the Variables view's (was …)", () => {
  // Inside VS Code the agent reads the view's own variables, which carry the old value in their
  // text for the human; the tools give the value alone (the stop's `changed` says the rest).
  const changed = {
    name: 'hp',
    value: changedValueText('4', '8'),
    variablesReference: 0,
    presentationHint: { attributes: [CHANGED_ATTRIBUTE] },
  };

  it('stop data and get_variables strip it from a changed value only', () => {
    assert.equal(stopVariable(changed, 100).value, '4');
    assert.equal(viewVariable(changed).value, '4');
    const unmarked = {
      name: 's',
      value: changedValueText('"text"', '"old"'),
      variablesReference: 0,
    };
    assert.equal(
      viewVariable(unmarked).value,
      unmarked.value,
      'a value not marked changed is kept',
    );
    assert.equal(plainValueOf({ value: '12', presentationHint: {} }), '12');
  });
});
