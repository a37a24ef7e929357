// Conditions, hit conditions and logpoint messages checked when a breakpoint is set.
import * as assert from 'node:assert/strict';
import { checkBreakpoint } from '../../src/session/breakpoints/breakpointChecks';

describe('session/breakpointChecks', () => {
  it('accepts valid conditions, hit conditions and log messages', () => {
    assert.equal(checkBreakpoint({ condition: 'hp < 10 and not dead' }), undefined);
    assert.equal(checkBreakpoint({ condition: 'x // 2 == 1' }), undefined);
    assert.equal(checkBreakpoint({ condition: 'id == 1LL' }), undefined); // LuaJIT literal
    assert.equal(checkBreakpoint({ condition: '   ' }), undefined);
    assert.equal(checkBreakpoint({ hitCondition: '>= 3' }), undefined);
    assert.equal(checkBreakpoint({ logMessage: 'hp={hp} {{literal}} {t.name}' }), undefined);
  });

  it("gives the parser's message for a condition that is not an expression", () => {
    assert.equal(
      checkBreakpoint({ condition: 'hp <' }),
      "The condition `hp <` is not a valid Lua expression: <expression> expected near ')'",
    );
    assert.match(checkBreakpoint({ condition: 'a, b' }) ?? '', /not a valid Lua expression/);
    assert.match(checkBreakpoint({ condition: 'x = 1' }) ?? '', /not a valid Lua expression/);
  });

  it('checks hit conditions with the grammar of hitCondition.ts', () => {
    assert.match(checkBreakpoint({ hitCondition: 'often' }) ?? '', /is not understood/);
    assert.match(checkBreakpoint({ hitCondition: '% 0' }) ?? '', /greater than 0/);
  });

  it('checks the {expressions} of a log message, not its condition', () => {
    assert.match(
      checkBreakpoint({ logMessage: 'value {x +}' }) ?? '',
      /^The log message's `\{x \+\}` is not a valid Lua expression/,
    );
    assert.match(checkBreakpoint({ logMessage: 'open {x' }) ?? '', /unclosed '\{'/);
    assert.equal(checkBreakpoint({ logMessage: 'ok', condition: 'not valid (' }), undefined);
    assert.match(checkBreakpoint({ logMessage: 'ok', hitCondition: 'x' }) ?? '', /not understood/);
  });
});
