// Unit tests of the 1-based index ranges a large value is listed in (session/ranges.ts and the
// variable store that hands them out).
import * as assert from 'node:assert/strict';
import type { LuaVariable } from '../../src/protocol';
import { rangesOf } from '../../src/session/stop/ranges';
import { FetchVariables, VariableStore } from '../../src/session/stop/variables';

/** A runtime: the children of ref 7 are `[1]`..`[n]` (upstream: `1`..`n`), values 1..n. */
function pagingRuntime(n: number, upstream = false): { fetch: FetchVariables; asked: string[] } {
  const asked: string[] = [];
  const fetch: FetchVariables = async (info) => {
    asked.push(`${info.varRef} ${info.start ?? '-'} ${info.count ?? '-'}`);
    const start = info.start ?? 0;
    const count = Math.min(info.count ?? n, n - start);
    return Array.from({ length: Math.max(0, count) }, (_, i) => ({
      name: upstream ? String(start + i + 1) : `[${start + i + 1}]`,
      type: 'number',
      value: String(start + i + 1),
      variablesReference: 0,
    }));
  };
  return { fetch, asked };
}

const big = (childCount: number, ref = 7): LuaVariable => ({
  name: 'list',
  type: 'table',
  value: '{1, 2, 3, …}',
  variablesReference: ref,
  childCount,
});

const options = { paging: true, pagingLimit: 1000 };

describe('session/ranges', () => {
  it('labels ranges with the 1-based positions they hold', () => {
    assert.deepEqual(
      rangesOf(0, 200).map((r) => [r.label, r.start, r.count]),
      [
        ['[1..100]', 0, 100],
        ['[101..200]', 100, 100],
      ],
    );
    assert.deepEqual(
      rangesOf(0, 250).map((r) => r.label),
      ['[1..100]', '[101..200]', '[201..250]'],
    );
  });

  it('nests ranges so that no level lists more than 100 entries', () => {
    const top = rangesOf(0, 100001);
    assert.equal(top.length, 11);
    assert.deepEqual(
      top.slice(0, 2).map((r) => r.label),
      ['[1..10000]', '[10001..20000]'],
    );
    assert.equal(top[10].label, '[100001..100001]');
    assert.deepEqual(
      rangesOf(10000, 10000)
        .slice(0, 2)
        .map((r) => r.label),
      ['[10001..10100]', '[10101..10200]'],
    );
  });

  it('lists a large value as ranges whose children match their labels', async () => {
    const store = new VariableStore();
    const { fetch, asked } = pagingRuntime(200);
    const handle = store.wrap(big(200), '2').variablesReference;
    const ranges = await store.list(handle, {}, fetch, options);
    assert.deepEqual(
      ranges.map((r) => [r.name, r.presentationHint]),
      [
        ['[1..100]', 'virtual'],
        ['[101..200]', 'virtual'],
      ],
    );
    assert.deepEqual(asked, [], 'the ranges need no request');
    const second = await store.list(ranges[1].variablesReference, {}, fetch, options);
    assert.equal(second.length, 100);
    assert.deepEqual([second[0].name, second[0].value], ['[101]', '101']);
    assert.deepEqual([second[99].name, second[99].value], ['[200]', '200']);
    assert.deepEqual(asked, ['7 100 100']);
    // An explicit page (what the MCP tools ask) reads the children themselves.
    const page = await store.list(handle, { start: 150, count: 2 }, fetch, options);
    assert.deepEqual(
      page.map((v) => v.name),
      ['[151]', '[152]'],
    );
    const inRange = await store.list(
      ranges[1].variablesReference,
      { start: 0, count: 500 },
      fetch,
      options,
    );
    assert.equal(inRange.length, 100, 'a page of a range stays inside the range');
    // A small value is listed as it is.
    const small = store.wrap(big(3, 8), '2').variablesReference;
    assert.equal((await store.list(small, {}, pagingRuntime(3).fetch, options)).length, 3);
  });

  it('groups a runtime without paging (upstream) the same way', async () => {
    const store = new VariableStore();
    const { fetch, asked } = pagingRuntime(150, true);
    const handle = store.wrap({ ...big(150), childCount: undefined }, '2').variablesReference;
    const noPaging = { paging: false, pagingLimit: 1000 };
    const ranges = await store.list(handle, {}, fetch, noPaging);
    assert.deepEqual(
      ranges.map((r) => r.name),
      ['[1..100]', '[101..150]'],
    );
    const second = await store.list(ranges[1].variablesReference, {}, fetch, noPaging);
    assert.deepEqual([second[0].name, second.length], ['[101]', 50]);
    assert.equal(asked.length, 1, 'the whole list is fetched once');
  });
});
