/**
 * The Variables view's "changed" marks with the DAP test client against the adapter out of
 * process, on real Lua (pure and with the native accelerator), on test/scenarios/changes: a local,
 * an upvalue and a field of `self` that differ from the last stop in the same function carry the
 * `changed` presentation attribute, and for VS Code their old value in the value text; unchanged values, the
 * first stop and a different function's stop in between carry none; `luapanda/changes` lists the
 * same; Set Value from the shown text ignores the suffix.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import { CHANGES_REQUEST, type ChangesResponseBody } from '../../src/adapter/changesRequest';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import type { DapTest } from './dapHarness';
import { useDapTest } from './useDapTest';

const sc = scenario('changes');

interface Shown {
  value: string;
  changed: boolean;
}

/** The top frame's locals, upvalues and `self` fields as the Variables view would list them. */
async function view(t: DapTest, frameId: number): Promise<Record<string, Shown>> {
  const shown: Record<string, Shown> = {};
  const add = (prefix: string, variables: DebugProtocol.Variable[]) => {
    for (const v of variables) {
      shown[prefix + v.name] = {
        value: v.value,
        changed: v.presentationHint?.attributes?.includes('changed') ?? false,
      };
    }
  };
  const scopes = (await t.dc.scopesRequest({ frameId })).body.scopes;
  for (const scope of scopes.filter((s) => !s.expensive)) {
    const variables = (
      await t.dc.variablesRequest({ variablesReference: scope.variablesReference })
    ).body.variables;
    add(scope.name === 'Upvalues' ? 'upvalue ' : '', variables);
    const self = variables.find((v) => v.name === 'self');
    if (self && self.variablesReference > 0) {
      const fields = await t.dc.variablesRequest({ variablesReference: self.variablesReference });
      add('self.', fields.body.variables);
    }
  }
  return shown;
}

const changedOf = (shown: Record<string, Shown>) =>
  Object.fromEntries(
    Object.entries(shown)
      .filter(([, s]) => s.changed)
      .map(([name, s]) => [name, s.value]),
  );

for (const lua of runtimeVariants()) {
  describe(`adapter: what changed since the last stop, on ${lua.label ?? lua.command}`, function () {
    this.timeout(60_000);
    const t = useDapTest();

    /** Stops six times (tick, report, in turn), reading what the Variables view reads. */
    async function run(clientID?: string) {
      const main = sc.file('main.lua');
      const tick = sc.line('main.lua', 'tick');
      const report = sc.line('main.lua', 'report');
      await t.launch(
        lua.command,
        main,
        { useCHook: lua.native === true },
        {
          breakpoints: { [main]: [{ line: tick }, { line: report }] },
          ...(clientID !== undefined ? { client: { clientID } } : {}),
        },
      );
      const seen: Record<string, Shown>[] = [];
      const listed: ChangesResponseBody[] = [];
      const setValues: string[] = [];
      for (const line of [tick, report, tick, report, tick, report]) {
        const stop = await t.stoppedAt('breakpoint', main, line);
        seen.push(await view(t, stop.top.id));
        const response = (await t.dc.customRequest(CHANGES_REQUEST)) as DebugProtocol.Response;
        listed.push(response.body as ChangesResponseBody);
        if (seen.length === 5) {
          // Set Value starts from the shown text: a suffix is not part of the new value.
          const scopes = await t.dc.scopesRequest({ frameId: stop.top.id });
          const set = await t.dc.setVariableRequest({
            variablesReference: scopes.body.scopes[0].variablesReference,
            name: 'damage',
            value: `60${seen[4].damage.value.slice(1)}`,
          });
          setValues.push(set.body.value);
        }
        await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      }
      await t.ended();
      return { seen, listed, setValues };
    }

    it('in VS Code: marks the changed local, upvalue and self field with the old value, nothing else', async () => {
      const { seen, listed, setValues } = await run('vscode');
      assert.deepEqual(changedOf(seen[0]), {}, 'the first stop marks nothing');
      assert.deepEqual(changedOf(seen[1]), {}, "report's first stop neither");
      // A table compares by its preview: `self` itself is marked too, so a collapsed one shows it.
      assert.deepEqual(changedOf(seen[2]), {
        dt: '2  (was 1)',
        damage: '4  (was 2)',
        self: '{gold = 0, hp = 4, name = "orc"}  (was {gold = 0, hp = 8, name = "orc"})',
        'self.hp': '4  (was 8)',
        'upvalue ticks': '2  (was 1)',
      });
      assert.equal(seen[2].label.value, '"tick"', 'an unchanged local keeps its plain value');
      assert.equal(seen[2]['self.name'].value, '"orc"');
      assert.deepEqual(changedOf(seen[3]), { round: '2  (was 1)', damage: '200  (was 100)' });
      assert.deepEqual(changedOf(seen[4]), {
        dt: '3  (was 2)',
        damage: '6  (was 4)',
        self: '{gold = 0, hp = -2, name = "orc"}  (was {gold = 0, hp = 4, name = "orc"})',
        'self.hp': '-2  (was 4)',
        'upvalue ticks': '3  (was 2)',
      });
      assert.deepEqual(setValues, ['60']);
      assert.deepEqual(listed[0].changes, []);
      assert.deepEqual(
        listed[2].changes.map((c) => [c.scope, c.name, c.old, c.new]),
        [
          ['local', 'dt', '1', '2'],
          ['local', 'damage', '2', '4'],
          // Its fields stand for `self`, whose whole preview is not repeated.
          ['self', 'self.hp', '8', '4'],
          ['upvalue', 'ticks', '1', '2'],
        ],
      );
    });

    it('other clients: the changed attribute on plain values, the old ones from luapanda/changes', async () => {
      const { seen, listed } = await run();
      assert.deepEqual(changedOf(seen[0]), {});
      assert.deepEqual(changedOf(seen[2]), {
        dt: '2',
        damage: '4',
        self: '{gold = 0, hp = 4, name = "orc"}',
        'self.hp': '4',
        'upvalue ticks': '2',
      });
      assert.deepEqual(
        listed[3].changes.map((c) => [c.name, c.old, c.new]),
        [
          ['round', '1', '2'],
          ['damage', '100', '200'],
        ],
      );
    });
  });
}
