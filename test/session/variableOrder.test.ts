// Unit tests of the tidying of unpaged variable lists (upstream's LuaPanda.lua).
import * as assert from 'node:assert/strict';
import { ListingKind, tidyListing } from '../../src/session/stop/variableOrder';

const names = (kind: ListingKind, list: string[]) =>
  tidyListing(
    kind,
    list.map((name) => ({ name, type: 'nil', value: 'nil', variablesReference: 0 })),
  ).map((v) => v.name);

describe('session/variableOrder', () => {
  it('orders table fields: numbers, strings, booleans, the rest, the metatable last', () => {
    assert.deepEqual(
      names('children', ['_Metatable_', 'true', '"b"', 'table: 0x1', '10', '"a"', '2', '-1.5']),
      ['[-1.5]', '[2]', '[10]', 'a', 'b', '[true]', '[table: 0x1]', '_Metatable_'],
    );
  });

  it('names fields as Lua writes keys: bare identifiers, quoted and escaped strings otherwise', () => {
    assert.deepEqual(names('children', ['"name"', '"a b"', '"end"', '"1"', '"x\ny"', '"q\\"']), [
      '["1"]',
      '["a b"]',
      '["end"]',
      'name',
      '["q\\\\"]',
      '["x\\ny"]',
    ]);
  });

  it('orders globals by name and keeps locals and upvalues in their own order', () => {
    assert.deepEqual(names('globals', ['score', 'LuaPanda', '_G']), ['LuaPanda', '_G', 'score']);
    assert.deepEqual(names('upvalues', ['z', 'a']), ['z', 'a']);
    assert.deepEqual(
      names('locals', ['b', '(*temporary)', 'a', '(temporary)', '(for index)', '(C temporary)']),
      ['b', 'a'],
    );
  });
});
