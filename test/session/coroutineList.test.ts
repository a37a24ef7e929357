/**
 * The session's coroutine list (coroutineList.ts) against a stand-in runtime: the request goes
 * only to a runtime that announced `listCoroutines`, the cap is sent and kept, places map to
 * workspace files whose line becomes the preview, and a file that cannot be read gives none.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Feature, ReplyInfo } from '../../src/protocol';
import { SessionError, listCoroutines, type CoroutineListHost } from '../../src/session';

function host(
  reply: ReplyInfo<'listCoroutines'>,
  folder: string,
  features: Feature[] = ['listCoroutines'],
): CoroutineListHost & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    features: new Set(features),
    resolve: ({ file }) => (file.startsWith('gone') ? undefined : path.join(folder, file)),
    send: (info) => {
      sent.push(info.max);
      return Promise.resolve(reply);
    },
  };
}

describe('session/coroutineList', () => {
  let folder: string;
  before(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'coroutines-'));
    await fs.writeFile(path.join(folder, 'game.lua'), 'local a = 1\n   coroutine.yield(a)   \n');
  });
  after(() => fs.rm(folder, { recursive: true, force: true }));

  it('refuses a runtime without the feature, asking nothing', async () => {
    const h = host({ coroutines: [], total: 0 }, folder, []);
    await assert.rejects(
      listCoroutines(h, 10),
      (e: unknown) => e instanceof SessionError && e.code === 'not-supported',
    );
    assert.deepEqual(h.sent, []);
  });

  it('maps places to files, previews their line, keeps the cap and the total', async () => {
    const h = host(
      {
        coroutines: [
          { id: 'thread: 0x1', status: 'suspended', file: 'game.lua', line: 2, name: 'worker' },
          { id: 'thread: 0x2', status: 'suspended', file: 'gone.lua', line: 9 },
          { id: 'thread: 0x3', status: 'dead' },
        ],
        total: 40,
      },
      folder,
    );
    const list = await listCoroutines(h, 2);
    assert.deepEqual(h.sent, ['2']);
    assert.equal(list.total, 40);
    assert.equal(list.coroutines.length, 2, 'no more than asked, whatever comes back');
    assert.deepEqual(list.coroutines[0], {
      id: 'thread: 0x1',
      status: 'suspended',
      path: path.join(folder, 'game.lua'),
      chunk: 'game.lua',
      line: 2,
      functionName: 'worker',
      preview: 'coroutine.yield(a)',
    });
    assert.equal(list.coroutines[1]?.preview, undefined, 'a file not in the workspace: no preview');
    assert.equal(list.coroutines[1]?.chunk, 'gone.lua');
  });
});
