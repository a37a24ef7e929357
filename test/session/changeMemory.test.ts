// The change memory and its bounds, without a program: values compare with the last stop in the
// same function only, a value never seen is not a change, reading a value twice at one stop gives
// the same answer, and the caps on functions, names and preview length hold.
import * as assert from 'node:assert/strict';
import {
  ChangeMemory,
  MAX_FUNCTIONS,
  MAX_NAMES,
  MAX_PREVIEW_CHARS,
} from '../../src/session/stop/changeMemory';
import { functionKey } from '../../src/session/stop/changeMarks';
import type { Frame } from '../../src/session/types';

describe('session: change memory', () => {
  it('compares with the last stop in the same function, not with the stop before', () => {
    const memory = new ChangeMemory();
    memory.beginStop('f');
    assert.equal(memory.note('local', 'x', '1'), undefined, 'first stop: nothing to compare');
    memory.beginStop('g');
    assert.equal(memory.note('local', 'x', '100'), undefined);
    memory.beginStop('f');
    assert.equal(memory.note('local', 'x', '2'), '1');
    assert.equal(memory.note('local', 'x', '2'), '1', 'read twice at one stop: the same answer');
    assert.equal(memory.note('local', 'y', '5'), undefined, 'never seen: not a change');
    assert.deepEqual(memory.changed(), [{ scope: 'local', name: 'x', old: '1', new: '2' }]);
    memory.beginStop('f');
    assert.equal(memory.note('local', 'x', '2'), undefined, 'unchanged since the last stop');
    assert.deepEqual(memory.changed(), []);
  });

  it('keeps a value read at an older stop when the last stop did not read it', () => {
    const memory = new ChangeMemory();
    memory.beginStop('f');
    memory.note('upvalue', 'n', '1');
    memory.note('self', 'hp', '10');
    memory.beginStop('f');
    memory.note('upvalue', 'n', '2');
    memory.beginStop('f');
    assert.equal(memory.note('self', 'hp', '7'), '10');
    assert.equal(memory.note('local', 'n', '2'), undefined, 'scopes are apart');
    assert.deepEqual(memory.changed(), [{ scope: 'self', name: 'self.hp', old: '10', new: '7' }]);
  });

  it('forgets everything when told (the link dropped)', () => {
    const memory = new ChangeMemory();
    memory.beginStop('f');
    memory.note('local', 'x', '1');
    memory.forget();
    memory.beginStop('f');
    assert.equal(memory.note('local', 'x', '2'), undefined);
  });

  it('notes nothing without a function', () => {
    const memory = new ChangeMemory();
    memory.beginStop(undefined);
    assert.equal(memory.note('local', 'x', '1'), undefined);
    memory.beginStop(undefined);
    assert.equal(memory.note('local', 'x', '2'), undefined);
  });

  it('forgets the function stopped in longest ago past the cap', () => {
    const memory = new ChangeMemory();
    memory.beginStop('first');
    memory.note('local', 'x', '1');
    for (let i = 0; i < MAX_FUNCTIONS - 1; i++) memory.beginStop(`f${i}`);
    memory.beginStop('first');
    assert.equal(memory.note('local', 'x', '2'), '1', 'still within the cap');
    for (let i = 0; i < MAX_FUNCTIONS; i++) memory.beginStop(`g${i}`);
    memory.beginStop('first');
    assert.equal(memory.note('local', 'x', '3'), undefined, 'forgotten');
  });

  it('remembers a bounded number of names and clips long previews', () => {
    const memory = new ChangeMemory();
    memory.beginStop('f');
    for (let i = 0; i <= MAX_NAMES; i++) memory.note('local', `v${i}`, '1');
    const long = 'x'.repeat(MAX_PREVIEW_CHARS * 5);
    memory.note('local', 'v0', long);
    memory.beginStop('f');
    assert.equal(memory.note('local', `v${MAX_NAMES - 1}`, '2'), '1');
    assert.equal(memory.note('local', `v${MAX_NAMES}`, '2'), undefined, 'past the cap');
    const old = memory.note('local', 'v0', 'short');
    assert.ok(old !== undefined && old.length < MAX_PREVIEW_CHARS + 30, String(old?.length));
    assert.equal(memory.note('local', 'v0', 'short'), old);
    memory.beginStop('f');
    assert.equal(memory.note('local', 'v0', 'short'), undefined);
    memory.beginStop('f');
    assert.equal(memory.note('local', 'v0', long), 'short');
    memory.beginStop('f');
    assert.equal(memory.note('local', 'v0', long), undefined, 'a long preview equals itself');
  });

  it('keys a function by its chunk and definition line, upstream frames by their name', () => {
    const frame = (over: Partial<Frame>): Frame => ({
      id: 1,
      name: 'Player:tick',
      chunk: 'game/player.lua',
      line: 20,
      threadId: 1,
      luaIndex: 2,
      ...over,
    });
    assert.equal(functionKey(frame({ defined: 12 })), 'game/player.lua:12');
    assert.equal(
      functionKey(frame({ defined: 12, name: 'other name', line: 30 })),
      functionKey(frame({ defined: 12 })),
      'the same function whatever the call site calls it',
    );
    assert.notEqual(functionKey(frame({ defined: 40 })), functionKey(frame({ defined: 12 })));
    assert.equal(functionKey(frame({})), 'game/player.lua:Player:tick');
    assert.equal(functionKey(undefined), undefined);
  });
});
