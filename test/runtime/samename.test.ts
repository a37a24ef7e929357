/**
 * Same-name files in different folders: in autoPathMode breakpoints are keyed by file name, so the
 * runtime keeps every folder's breakpoints under that key and tells the files apart by the chunk's
 * path; distinguishSameNameFile makes the comparison strict. LuaPanda.testBreakpoint() explains it.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { SCENARIOS_DIR, scenario } from '../harness/scenario';
import { closeAll, finish, startSession, topOf } from './helpers';
import { WireBreakpoint } from '../../src/protocol';

// The program runs in test/scenarios, so that its chunk names say `samename/a/util.lua`.
const samename = scenario('samename');
const MAIN = 'samename/attach.lua';
const A = 'samename/a/util.lua';
const B = 'samename/b/util.lua';
const NAME_LINE = samename.line('a/util.lua', 'name');
if (samename.line('b/util.lua', 'name') !== NAME_LINE) throw new Error('@name differs in a and b');

function logpoint(text: string): WireBreakpoint {
  return { type: 1, line: NAME_LINE, logMessage: text };
}

for (const lua of runtimeVariants()) {
  describe(`runtime same-name files (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('keeps the breakpoints of both folders and applies each only to its own file', async () => {
      const s = await startSession(lua, MAIN, {
        dir: SCENARIOS_DIR,
        args: ['ab'],
        breakpoints: { [A]: [logpoint('from a')], [B]: [logpoint('from b')] },
      });
      assert.match(await finish(s), /^a b$/m);
      const logs = s.ide.notifications
        .filter((n) => n.kind === 'log' && n.cmd === 'debug_console')
        .map((n) => (n.kind === 'log' ? n.text : ''));
      assert.equal(logs.length, 2, logs.join(' | '));
      assert.match(logs[0], /from a$/);
      assert.match(logs[1], /from b$/);
    });

    it('stops in each file at its own breakpoint, with the folder in oPath', async () => {
      const s = await startSession(lua, MAIN, {
        dir: SCENARIOS_DIR,
        args: ['ab'],
        breakpoints: { [A]: [{ type: 2, line: NAME_LINE }], [B]: [{ type: 2, line: NAME_LINE }] },
      });
      const first = await s.ide.nextStop('stopOnBreakpoint');
      assert.match(topOf(first.stack).oPath ?? '', /samename\/a\/util\.lua$/);
      await s.ide.connection.request('continue', {});
      const second = await s.ide.nextStop('stopOnBreakpoint');
      assert.match(topOf(second.stack).oPath ?? '', /samename\/b\/util\.lua$/);
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /^a b$/m);
    });

    for (const strict of [false, true]) {
      it(`${strict ? 'distinguishSameNameFile: a chunk path that disagrees with every folder never stops' : 'by default, chunks that name no folder stop (the IDE double-checks)'}`, async () => {
        const s = await startSession(lua, MAIN, {
          dir: SCENARIOS_DIR,
          args: ['ambiguous'],
          settings: { distinguishSameNameFile: strict },
          breakpoints: { [A]: [{ type: 2, line: NAME_LINE }], [B]: [{ type: 2, line: NAME_LINE }] },
        });
        const stopped: string[] = [];
        const expected = strict ? ['util.lua'] : ['util.lua', 'elsewhere/util.lua'];
        for (let i = 0; i < expected.length; i++) {
          const stop = await s.ide.nextStop('stopOnBreakpoint');
          stopped.push(topOf(stop.stack).oPath ?? '');
          await s.ide.connection.request('continue', {});
        }
        assert.match(await finish(s), /^a a$/m);
        assert.deepEqual(stopped, expected);
        assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, expected.length);
      });
    }

    it('LuaPanda.testBreakpoint() explains which stored breakpoint paths apply here', async () => {
      const s = await startSession(lua, MAIN, {
        dir: SCENARIOS_DIR,
        args: ['ab'],
        breakpoints: { [A]: [{ type: 2, line: NAME_LINE }], [B]: [{ type: 2, line: 1 }] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const [result] = await s.ide.connection.request('runREPLExpression', {
        Expression: 'LuaPanda.testBreakpoint()',
        stackId: String(topOf(stop.stack).index),
      });
      const text = result.value;
      assert.match(text, /source \(debug\.getinfo\): @samename\/a\/util\.lua/);
      assert.match(text, /breakpoint key: +util\.lua/);
      const escaped = (p: string) =>
        samename.file(p.slice('samename/'.length)).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      assert.match(
        text,
        new RegExp(`${escaped(A)}: lines ${NAME_LINE} +<- applies to this chunk`, 'i'),
      );
      assert.match(text, new RegExp(`${escaped(B)}: lines 1 +\\(a same-name file`, 'i'));
      await s.ide.connection.request('continue', {});
      const inB = await s.ide.nextStop('stopOnBreakpoint');
      assert.match(topOf(inB.stack).oPath ?? '', /samename\/b\/util\.lua$/);
      await s.ide.connection.request('continue', {});
      await finish(s);
    });
  });
}
