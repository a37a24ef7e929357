/**
 * Function breakpoints' definition sites in the session model, with a fake Lua link: the list a
 * connection sends carries where the workspace's files define each name (before
 * `configurationDone`, so the program cannot run ahead of it), and a hot reload sends it again
 * with the sites the file has now.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IdeRequestInfo } from '../../src/protocol';
import { LuaSession } from '../../src/session/luaSession';
import { DEFAULT_SETTINGS } from '../../src/session/types';
import { FakeConnection, fakeConnector, ourRuntime } from './fakes';
import { reloadReply } from './reloadReply';

type Names = IdeRequestInfo<'setFunctionBreakPoint'>['names'];

const ENTITY = 'local Entity = {}\nfunction Entity:update(dt)\n  return dt\nend\nreturn Entity\n';

describe('session: function breakpoints carry their definition sites', () => {
  let folder: string;
  let file: string;

  beforeEach(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-sites-'));
    file = path.join(folder, 'entity.lua');
    await fs.writeFile(file, ENTITY);
  });
  afterEach(() => fs.rm(folder, { recursive: true, force: true }));

  /** The `names` of every setFunctionBreakPoint sent, in order. */
  const lists = (conn: FakeConnection): Names[] =>
    conn.request
      .getCalls()
      .filter((c) => c.args[0] === 'setFunctionBreakPoint')
      .map((c) => (c.args[1] as IdeRequestInfo<'setFunctionBreakPoint'>).names);

  it('sends the sites at connection, before configurationDone, and again after a hot reload', async () => {
    const session = new LuaSession({ ...DEFAULT_SETTINGS, cwd: folder }, [file]);
    await session.setFunctionBreakpoints([{ name: 'Entity.update' }, { name: 'nowhere' }]);
    const conn = new FakeConnection({
      ...ourRuntime(['functionBreakpoints', 'configurationDone', 'hotReload']),
      setFunctionBreakPoint: () => ({ results: [] }),
      hotReload: () => reloadReply({ status: 'success' }),
    });
    await session.start(fakeConnector([conn]));
    assert.ok(conn.sent.indexOf('setFunctionBreakPoint') < conn.sent.indexOf('configurationDone'));
    assert.deepEqual(lists(conn), [
      [
        { name: 'Entity.update', sites: [{ path: file, first: 2, last: 4, line: 3 }] },
        { name: 'nowhere' },
      ],
    ]);

    await fs.writeFile(file, `-- moved down\n\n${ENTITY}`);
    await session.hotReload(file);
    assert.deepEqual(lists(conn)[1], [
      { name: 'Entity.update', sites: [{ path: file, first: 4, last: 6, line: 5 }] },
      { name: 'nowhere' },
    ]);
  });
});
