// Unit tests of the breakpoint set: stable ids, verification, the wire list, hit conditions
// (their grammar: breakpointRules.test.ts).
import * as assert from 'node:assert/strict';
import { BreakpointStore, NOT_CONNECTED_MESSAGE } from '../../src/session/breakpoints/breakpoints';

describe('session/breakpoints', () => {
  it('keeps the id of a breakpoint whose line stays, and gives new lines new ids', () => {
    const store = new BreakpointStore(false);
    const first = store.setFile('C:\\g\\a.lua', [{ line: 3 }, { line: 7 }]);
    const second = store.setFile('c:/g/A.lua', [{ line: 7 }, { line: 9 }]);
    assert.equal(second[0].id, first[1].id);
    assert.ok(second[1].id > first[1].id);
    assert.equal(store.all().length, 2);
    assert.deepEqual(store.idsAt('C:\\G\\a.lua', [9]), [second[1].id]);
  });

  it('is unverified, with a reason, until the Lua side answers', () => {
    const store = new BreakpointStore(true);
    const [bp] = store.setFile('/g/a.lua', [{ line: 3 }]);
    assert.equal(bp.verified, false);
    assert.equal(bp.message, NOT_CONNECTED_MESSAGE);
    const changed = store.applyResults('/g/a.lua', true, undefined);
    assert.equal(changed.length, 1);
    assert.equal(store.forFile('/g/a.lua')[0].verified, true);
  });

  it('uses the runtime verdicts when it sends them', () => {
    const store = new BreakpointStore(true);
    // Integer division parses here (5.3 grammar); a 5.1 runtime's compiler rejects it.
    store.setFile('/g/a.lua', [{ line: 3 }, { line: 4, condition: 'x // 2 == 1' }]);
    store.applyResults('/g/a.lua', true, [
      { verified: true },
      { verified: false, message: "[string] unexpected symbol near '/'" },
    ]);
    const [ok, bad] = store.forFile('/g/a.lua');
    assert.equal(ok.verified, true);
    assert.equal(bad.verified, false);
    assert.match(bad.message ?? '', /unexpected symbol/);
  });

  it('builds the wire list: logpoints win over conditions, hit conditions canonical', () => {
    const store = new BreakpointStore(true);
    store.setFile('/g/a.lua', [
      { line: 1 },
      { line: 2, condition: 'x > 1' },
      { line: 3, logMessage: 'x is {x}', condition: 'x > 1' },
      { line: 4, hitCondition: '% 2 == 0' },
    ]);
    assert.deepEqual(store.wireList('/g/a.lua', true), [
      { verified: true, type: 2, line: 1 },
      { verified: true, type: 0, line: 2, condition: 'x > 1' },
      { verified: true, type: 1, line: 3, logMessage: 'x is {x}' },
      { verified: true, type: 2, line: 4, hitCondition: '% 2' },
    ]);
  });

  it('leaves out hit-conditional breakpoints for a runtime without hit conditions', () => {
    const store = new BreakpointStore(true);
    store.setFile('/g/a.lua', [{ line: 1 }, { line: 2, hitCondition: '3' }]);
    assert.equal(store.wireList('/g/a.lua', false).length, 1);
    store.applyResults('/g/a.lua', false, undefined);
    const [, hit] = store.forFile('/g/a.lua');
    assert.equal(hit.verified, false);
    assert.match(hit.message ?? '', /hit conditions/);
  });

  it('rejects a hit condition it cannot parse when it is set', () => {
    const store = new BreakpointStore(true);
    const [bp] = store.setFile('/g/a.lua', [{ line: 1, hitCondition: 'sometimes' }]);
    assert.equal(bp.verified, false);
    assert.match(bp.message ?? '', /not understood/);
    assert.equal(store.wireList('/g/a.lua', true).length, 0);
    store.applyResults('/g/a.lua', true, []);
    assert.match(store.forFile('/g/a.lua')[0].message ?? '', /not understood/);
  });

  it('removing all breakpoints of a file forgets the file', () => {
    const store = new BreakpointStore(true);
    store.setFile('/g/a.lua', [{ line: 1 }]);
    store.setFile('/g/a.lua', []);
    assert.deepEqual(store.paths(), []);
  });
});
