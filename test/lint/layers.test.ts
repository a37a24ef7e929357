/**
 * The layer rule of eslint.config.mjs (scripts/eslint-layers.mjs), run by the real ESLint on
 * small sources placed in each layer: imports down pass, imports up or sideways fail with a
 * message that names both layers, and the DAP, MCP and VS Code libraries stay in their layers.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../harness/luaProcess';

const RULE = 'layers/imports-down';

describe('layer rule (eslint)', function () {
  // The first lint loads the config and the TypeScript parser.
  this.timeout(60_000);
  const eslint = new ESLint({ cwd: REPO_ROOT });

  /** The layer-rule messages for `code` as the file src/<file>. */
  async function layerErrors(file: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, {
      filePath: path.join(REPO_ROOT, 'src', ...file.split('/')),
    });
    return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
  }

  it('lets a layer import itself and the layers below', async () => {
    const cases: [string, string][] = [
      ['session/x.ts', "import { a } from '../protocol';\nexport const b = a;\n"],
      ['session/x.ts', "import { a } from './luaSession';\nexport const b = a;\n"],
      ['adapter/x.ts', "import { a } from '../session/types';\nexport const b = a;\n"],
      ['mcp/tools/x.ts', "import { a } from '../../adapter/endedEvent';\nexport const b = a;\n"],
      ['mcp/tools/x.ts', "import { a } from '../results';\nexport const b = a;\n"],
      // A sub-folder is its layer: siblings and the layer's top import each other freely.
      [
        'session/breakpoints/x.ts',
        "import { a } from '../lines/codeLines';\nexport const b = a;\n",
      ],
      ['session/stop/x.ts', "import { a } from '../errors';\nexport const b = a;\n"],
      ['session/x.ts', "import { a } from './link/connectors';\nexport const b = a;\n"],
      ['adapter/x.ts', "import { a } from '../session/link/debuggee';\nexport const b = a;\n"],
      [
        'extension/mcpServer/x.ts',
        "import { a } from '../../mcp/headless/y';\nexport const b = a;\n",
      ],
      ['cli/x.ts', "import { a } from '../mcp/server';\nexport const b = a;\n"],
      ['extension/x.ts', "import * as vscode from 'vscode';\nexport const b = vscode;\n"],
      ['protocol/x.ts', "import { a } from '../common/version';\nexport const b = a;\n"],
      ['common/x.ts', "import p from '../../package.json';\nexport const b = p;\n"],
      [
        'mcp/x.ts',
        "import type { DebugProtocol } from '@vscode/debugprotocol';\nexport type B = DebugProtocol.Event;\n",
      ],
    ];
    for (const [file, code] of cases) {
      assert.deepEqual(await layerErrors(file, code), [], `${file}: ${code}`);
    }
  });

  it('refuses imports up or sideways, in every import form', async () => {
    const cases: [string, string, string][] = [
      [
        'session/x.ts',
        "import { a } from '../adapter';\nexport const b = a;\n",
        'src/session may not import src/adapter',
      ],
      [
        'mcp/x.ts',
        "import { a } from '../cli/version';\nexport const b = a;\n",
        'src/mcp may not import src/cli',
      ],
      [
        'cli/x.ts',
        "import { a } from '../extension/settings';\nexport const b = a;\n",
        'src/cli may not import src/extension',
      ],
      [
        'extension/x.ts',
        "import { a } from '../cli/dap';\nexport const b = a;\n",
        'src/extension may not import src/cli',
      ],
      ['protocol/x.ts', "export * from '../session';\n", 'src/protocol may not import src/session'],
      [
        'session/x.ts',
        "export { a } from '../mcp/server';\n",
        'src/session may not import src/mcp',
      ],
      [
        'adapter/x.ts',
        "export const b = () => import('../mcp/server');\n",
        'src/adapter may not import src/mcp',
      ],
      [
        'session/x.ts',
        "export type B = import('../adapter/translate').X;\n",
        'src/session may not import src/adapter',
      ],
      [
        'session/x.ts',
        "import a = require('../adapter');\nexport const b = a;\n",
        'src/session may not import src/adapter',
      ],
      [
        'common/x.ts',
        "import { a } from '../protocol';\nexport const b = a;\n",
        'src/common may not import src/protocol',
      ],
      // From a sub-folder, and into one.
      [
        'session/breakpoints/x.ts',
        "import { a } from '../../adapter';\nexport const b = a;\n",
        'src/session may not import src/adapter',
      ],
      [
        'mcp/headless/x.ts',
        "import { a } from '../../extension/agentTools/y';\nexport const b = a;\n",
        'src/mcp may not import src/extension',
      ],
      [
        'session/stop/x.ts',
        "export type B = import('../../mcp/stop/y').X;\n",
        'src/session may not import src/mcp',
      ],
    ];
    for (const [file, code, expected] of cases) {
      const errors = await layerErrors(file, code);
      assert.equal(errors.length, 1, `${file}: ${code} → ${JSON.stringify(errors)}`);
      assert.match(errors[0], new RegExp(`^${expected}: imports point down the layers`));
    }
  });

  it('keeps vscode, the DAP libraries and the MCP SDK in the layers that speak them', async () => {
    const cases: [string, string, string][] = [
      [
        'adapter/x.ts',
        "import * as vscode from 'vscode';\nexport const b = vscode;\n",
        'src/adapter may not import vscode',
      ],
      [
        'cli/x.ts',
        "import * as vscode from 'vscode';\nexport const b = vscode;\n",
        'src/cli may not import vscode',
      ],
      [
        'mcp/headless/x.ts',
        "import * as vscode from 'vscode';\nexport const b = vscode;\n",
        'src/mcp may not import vscode',
      ],
      [
        'session/x.ts',
        "import type { DebugProtocol } from '@vscode/debugprotocol';\nexport type B = DebugProtocol.Event;\n",
        'src/session may not import @vscode/debugprotocol',
      ],
      [
        'protocol/x.ts',
        "import { DebugSession } from '@vscode/debugadapter';\nexport const b = DebugSession;\n",
        'src/protocol may not import @vscode/debugadapter',
      ],
      [
        'adapter/x.ts',
        "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const b = McpServer;\n",
        'src/adapter may not import @modelcontextprotocol/sdk',
      ],
    ];
    for (const [file, code, expected] of cases) {
      const errors = await layerErrors(file, code);
      assert.equal(errors.length, 1, `${file}: ${code} → ${JSON.stringify(errors)}`);
      assert.match(errors[0], new RegExp(`^${expected.replace(/[/@.]/g, '\\$&')}: only `));
    }
  });

  it('asks for a new folder of src/ to be placed in the layer table', async () => {
    assert.deepEqual(
      await layerErrors('tools/x.ts', "import { a } from '../session';\nexport const b = a;\n"),
      ['src/tools is not in the layer table of scripts/eslint-layers.mjs: add it there'],
    );
    assert.deepEqual(
      await layerErrors('session/x.ts', "import { a } from '../tools/y';\nexport const b = a;\n"),
      ['src/tools is not in the layer table of scripts/eslint-layers.mjs: add it there'],
    );
  });
});
