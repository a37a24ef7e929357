// Docs/DAP_Coverage.md must be what the capability table generates, and initialize must answer it.
import { DebugClient } from '@vscode/debugadapter-testsupport';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CAPABILITY_TABLE, capabilities, renderCoverage } from '../../src/adapter/capabilities';
import { REPO_ROOT } from '../harness/luaProcess';
import { ADAPTER } from './dapHarness';
import { UPDATE } from './golden';

const DOC = path.join(REPO_ROOT, 'Docs', 'DAP_Coverage.md');

describe('adapter/capabilities', () => {
  it('Docs/DAP_Coverage.md matches the capability table', () => {
    if (UPDATE) fs.writeFileSync(DOC, renderCoverage());
    assert.equal(fs.readFileSync(DOC, 'utf8'), renderCoverage(), 'regenerate with UPDATE_GOLDEN=1');
  });

  it('declares what the issue asks for', () => {
    const caps = capabilities();
    for (const key of [
      'supportsConfigurationDoneRequest',
      'supportsConditionalBreakpoints',
      'supportsHitConditionalBreakpoints',
      'supportsLogPoints',
      'supportsEvaluateForHovers',
      'supportsSetVariable',
      'supportsTerminateRequest',
      'supportsExceptionInfoRequest',
    ] as const) {
      assert.equal(caps[key], true, key);
    }
    assert.deepEqual(
      caps.exceptionBreakpointFilters?.map((f) => f.filter),
      ['uncaught', 'caught', 'assert'],
    );
    assert.ok(!('supportsStepBack' in caps));
    assert.ok(Object.keys(CAPABILITY_TABLE).length >= 40);
  });

  it('the out-of-process adapter answers initialize with the table', async () => {
    const dc = new DebugClient('node', ADAPTER, 'luapanda');
    await dc.start();
    try {
      const response = await dc.initializeRequest();
      assert.deepEqual(response.body, capabilities());
    } finally {
      await dc.stop();
    }
  });
});
