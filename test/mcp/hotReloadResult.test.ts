/**
 * `hot_reload_file`'s result from a report, without a program: snake_case fields, lists always
 * present, and a message that tells the agent what to do next for each outcome.
 */
import * as assert from 'node:assert/strict';
import { reportResult } from '../../src/mcp/tools/hotReload';
import { normalizeReport } from '../../src/session/hotReload';
import { reloadReply } from '../session/reloadReply';

describe('mcp/hot_reload_file results', () => {
  it('a success carries the report in snake_case, with every list', () => {
    const result = reportResult(
      normalizeReport(
        '/game/player.lua',
        reloadReply({
          status: 'success',
          chunk: '@game/player.lua',
          module: 'game.player',
          replaced: [{ name: 'Player:update', line: 12 }],
          notReplaced: [{ name: 'M.make', line: 40, reason: 'upvalues changed' }],
          active: [{ name: 'M.loop', line: 50 }],
          references: 4,
          searched: 900,
          timeMs: 2.5,
        }),
      ),
    );
    assert.deepEqual(
      { ...result, message: undefined },
      {
        status: 'success',
        message: undefined,
        chunk: '@game/player.lua',
        module: 'game.player',
        replaced: [{ name: 'Player:update', line: 12 }],
        added: [],
        not_found: [],
        not_replaced: [{ name: 'M.make', line: 40, reason: 'upvalues changed' }],
        active: [{ name: 'M.loop', line: 50 }],
        references: 4,
        time_ms: 2.5,
      },
    );
    assert.match(
      String(result.message),
      /^Hot reload player\.lua: replaced Player:update; 2\.5 ms\./,
    );
    assert.match(String(result.message), /not_replaced functions keep the old code/);
    assert.match(String(result.message), /active ones .* finish in the old code/);
    assert.match(String(result.message), /continue_debugging\), then check get_output\.$/);
  });

  it('a failure says the phase and what to do about it', () => {
    const failed = (phase: 'find' | 'compile' | 'run' | 'apply') =>
      reportResult(
        normalizeReport('/g/a.lua', reloadReply({ status: 'error', error: 'why', phase })),
      );
    assert.deepEqual(failed('compile'), {
      status: 'error',
      code: 'reload-failed',
      message:
        'Hot reload a.lua failed (compile): why — nothing changed. Fix the file and call hot_reload_file again.',
      phase: 'compile',
    });
    assert.match(String(failed('find').message), /has not loaded this file \(yet\)/);
    assert.match(String(failed('run').message), /Running the new file raised this error/);
    assert.equal(
      failed('apply').message,
      'Hot reload a.lua failed (apply): why — nothing changed.',
    );
  });
});
