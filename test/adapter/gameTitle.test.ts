/**
 * The name a game's child session is shown under in VS Code's Call Stack: short enough to stay
 * readable beside the state badge and the inline buttons (the game's name, else its program
 * without `.lua`); the program file and process id go to the attach session's console line.
 */
import * as assert from 'node:assert/strict';
import { gameDetails, gameTitle } from '../../src/adapter/gameHandoff';
import type { ReplyInfo } from '../../src/protocol';

const handshake = (extra: Partial<ReplyInfo<'initSuccess'>>): ReplyInfo<'initSuccess'> =>
  ({ ...extra }) as ReplyInfo<'initSuccess'>;

describe('adapter/gameHandoff: a game session title', () => {
  it("is the game's own name, else its program without .lua — never the process id", () => {
    assert.equal(
      gameTitle(handshake({ gameName: 'Orc Arena', program: 'main.lua' }), 'x'),
      'Orc Arena',
    );
    assert.equal(gameTitle(handshake({ program: 'game.lua', processId: 4242 }), 'x'), 'game');
    assert.equal(gameTitle(handshake({ program: 'boot' }), 'x'), 'boot');
    assert.equal(gameTitle(handshake({ processId: 7 }), 'Lua game 1'), 'Lua game 1');
  });

  it('gives the program and process id apart, for the console line', () => {
    assert.equal(
      gameDetails(handshake({ program: 'game.lua', processId: 4242 })),
      'game.lua, pid 4242',
    );
    assert.equal(gameDetails(handshake({ processId: 7 })), 'pid 7');
    assert.equal(gameDetails(handshake({})), undefined);
  });
});
