/**
 * The MCP side's record of a session's exception filters: DAP arguments built from the tools'
 * entries (names, and names with a condition), the entries read back from any client's request,
 * and the checks against what a debugger offers (a condition only where it takes one).
 */
import * as assert from 'node:assert/strict';
import { capabilities } from '../../src/adapter/capabilities';
import { ExceptionFilterState, exceptionBreakpointsArgs } from '../../src/mcp/exceptionFilters';

describe('exception filter state (MCP)', () => {
  it('puts names in filters and conditions in filterOptions, and reads both back', () => {
    const entries = ['uncaught', { filter: 'caught', condition: 'index' }];
    const args = exceptionBreakpointsArgs(entries);
    assert.deepEqual(args, {
      filters: ['uncaught'],
      filterOptions: [{ filterId: 'caught', condition: 'index' }],
    });
    assert.deepEqual(exceptionBreakpointsArgs(['assert']), { filters: ['assert'] });
    const state = new ExceptionFilterState();
    state.noteRequest('setExceptionBreakpoints', args);
    assert.deepEqual(state.active, entries);
    // A filter option without a condition is the plain name.
    state.noteRequest('setExceptionBreakpoints', {
      filters: [],
      filterOptions: [{ filterId: 'x' }],
    });
    assert.deepEqual(state.active, ['x']);
  });

  it('lets a condition through only where the debugger takes one', () => {
    const lua = new ExceptionFilterState();
    lua.noteCapabilities(capabilities());
    const entries = [{ filter: 'caught', condition: 'nil' }, 'assert'];
    assert.deepEqual(lua.unknown(entries), []);
    assert.deepEqual(lua.refusedConditions(entries), []);
    const other = new ExceptionFilterState();
    other.noteCapabilities({
      exceptionBreakpointFilters: [{ filter: 'caught', label: 'Caught' }],
    });
    assert.deepEqual(other.refusedConditions(entries), ['caught']);
    assert.deepEqual(other.unknown(entries), ['assert']);
    // Unknown until the debugger has answered initialize: nothing refused yet.
    assert.deepEqual(new ExceptionFilterState().refusedConditions(entries), []);
  });
});
