/**
 * The error autopsy's pure parts: what counts as the user's code (POSIX and Windows paths,
 * library folders, no workspace), and the cuts that keep an autopsy within its budget and inside
 * the whole stop data's, each marked.
 */
import * as assert from 'node:assert/strict';
import { AUTOPSY_CUT, type Autopsy, fitAutopsy } from '../../src/mcp/stop/autopsy';
import { fitStopEventData, byteSize } from '../../src/mcp/stop/stopBudget';
import type { StopEventData } from '../../src/mcp/stop/stopEventData';
import { isUserCode } from '../../src/mcp/stop/userCode';

function bigAutopsy(): Autopsy {
  const frame = (line: number) => ({
    frame_id: line,
    function_name: `f${line}`,
    file_path: '/game/src/main.lua',
    line,
    locals: Array.from({ length: 10 }, (_, i) => ({ name: `v${i}`, value: 'x'.repeat(80) })),
    source_lines: Array.from({ length: 5 }, (_, i) => ({ line: line + i, text: 'y'.repeat(150) })),
  });
  return {
    message: 'boom',
    caught: false,
    raised_at: { frame_id: 1, function_name: 'f1', file_path: '/game/src/main.lua', line: 1 },
    user_frames: [frame(10), frame(20), frame(30)],
  };
}

describe('MCP error autopsy parts', () => {
  it('user code: inside a workspace folder, outside library folders', () => {
    const ws = ['/home/dev/game'];
    assert.equal(isUserCode('/home/dev/game/src/player.lua', ws), true);
    assert.equal(isUserCode('/home/dev/game/lua_modules/share/lua/5.4/json.lua', ws), false);
    assert.equal(isUserCode('/home/dev/game/vendor/middleclass.lua', ws), false);
    assert.equal(isUserCode('/usr/share/lua/5.4/inspect.lua', ws), false);
    assert.equal(isUserCode('/home/dev/gameplay/x.lua', ws), false, 'a sibling, not a child');
    assert.equal(isUserCode(undefined, ws), false, 'a C function');
    assert.equal(isUserCode('=[C]', ws), false);
    // A file named like a library folder is still the user's.
    assert.equal(isUserCode('/home/dev/game/vendor.lua', ws), true);
  });

  it('user code: Windows paths, any case, either separator', () => {
    const ws = ['C:\\Users\\Dev\\Game'];
    assert.equal(isUserCode('c:/users/dev/game/scripts/ai.lua', ws), true);
    assert.equal(isUserCode('C:\\Users\\Dev\\Game\\Third_Party\\lib.lua', ws), false);
    assert.equal(isUserCode('D:\\Game\\scripts\\ai.lua', ws), false);
  });

  it('user code without workspace folders: any file outside a library folder', () => {
    assert.equal(isUserCode('/srv/game/main.lua', []), true);
    assert.equal(isUserCode('/srv/game/.luarocks/lib.lua', []), false);
  });

  it('an autopsy over its budget is cut, deepest frames first, and says so', () => {
    const full = bigAutopsy();
    assert.ok(byteSize(full) > 3 * 1024);
    const fitted = fitAutopsy(full);
    assert.ok(byteSize(fitted) <= 3 * 1024, `${byteSize(fitted)} bytes`);
    assert.equal(fitted.truncated, AUTOPSY_CUT);
    assert.equal(fitted.user_frames[0]?.line, 10, 'the first user frame stays');
    assert.ok(fitted.user_frames[0]?.source_lines, 'with its source lines');
    const small = fitAutopsy({ message: 'x', user_frames: [] });
    assert.equal(small.truncated, undefined, 'nothing cut, nothing said');
  });

  it('the stop budget cuts into the autopsy before it drops the source lines', () => {
    const data: StopEventData = {
      timestamp: '2026-01-01T00:00:00.000Z',
      session_id: 's',
      reason: 'exception',
      thread_id: 1,
      call_stack: [],
      source_lines: [{ line: 1, text: 'z', current: true }],
      error_autopsy: bigAutopsy(),
    };
    const fitted = fitStopEventData(data, 2 * 1024);
    assert.ok(byteSize(fitted) <= 2 * 1024, `${byteSize(fitted)} bytes`);
    assert.equal(fitted.error_autopsy?.truncated, AUTOPSY_CUT);
    assert.ok(fitted.error_autopsy?.raised_at, 'where it was raised always stays');
  });
});
