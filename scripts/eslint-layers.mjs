/**
 * The ESLint rule `layers/imports-down`: a file in src/<layer>/ may import its own layer and the
 * layers below it, never one above or beside it, and only the layers that speak DAP, MCP or
 * VS Code may import those libraries. The layers, lowest first (Docs/Doc_VsCode_Extention.md):
 *
 *   common < protocol < session < adapter < mcp < cli, extension
 *
 * mcp sits above adapter because the MCP tools speak the adapter's own DAP dialect (its custom
 * events and requests); cli and extension are two tops that never import each other. Relative
 * imports are resolved against the importing file, so `../x` in src/mcp/tools/ is src/mcp/x. A
 * file's layer is its first folder under src/: src/session/breakpoints/ is the session layer, so
 * the sub-folders of one layer import each other freely and the rule holds for each of them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Each layer's rank; equal ranks are siblings, which may not import each other. */
export const LAYER_RANK = {
  common: 0,
  protocol: 1,
  session: 2,
  adapter: 3,
  mcp: 4,
  cli: 5,
  extension: 5,
};

const ORDER = 'common < protocol < session < adapter < mcp < cli, extension';

/** The layers that may import each library (and its subpaths). */
export const PACKAGE_LAYERS = {
  vscode: ['extension'],
  '@vscode/debugadapter': ['adapter', 'mcp', 'cli', 'extension'],
  '@vscode/debugprotocol': ['adapter', 'mcp', 'cli', 'extension'],
  '@modelcontextprotocol/sdk': ['mcp', 'cli', 'extension'],
};

/** The layer of a path under src/: its first folder (`src/session/x.ts`, `src/session/stop/x.ts`). */
function layerOf(file) {
  const relative = path.relative(SRC, file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0];
}

function packageOf(source) {
  return Object.keys(PACKAGE_LAYERS).find(
    (name) => source === name || source.startsWith(`${name}/`),
  );
}

/** Why `source`, imported by a file of layer `from` at `file`, is not allowed (or undefined). */
function violation(from, file, source) {
  if (source.startsWith('.')) {
    const to = layerOf(path.resolve(path.dirname(file), source));
    if (to === undefined || to === from) return undefined;
    if (!(to in LAYER_RANK)) {
      return `src/${to} is not in the layer table of scripts/eslint-layers.mjs: add it there`;
    }
    if (LAYER_RANK[to] < LAYER_RANK[from]) return undefined;
    return `src/${from} may not import src/${to}: imports point down the layers (${ORDER})`;
  }
  const name = packageOf(source);
  if (name === undefined || PACKAGE_LAYERS[name].includes(from)) return undefined;
  return `src/${from} may not import ${name}: only ${PACKAGE_LAYERS[name].map((l) => `src/${l}`).join(', ')} may`;
}

const importsDown = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers of src/' },
    schema: [],
    messages: { layer: '{{why}}' },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    if (from === undefined) return {};
    const check = (node, sourceNode) => {
      if (!sourceNode || typeof sourceNode.value !== 'string') return;
      const why =
        from in LAYER_RANK
          ? violation(from, file, sourceNode.value)
          : `src/${from} is not in the layer table of scripts/eslint-layers.mjs: add it there`;
      if (why) context.report({ node, messageId: 'layer', data: { why } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      // `import x = require('…')`
      TSExternalModuleReference: (node) => check(node, node.expression),
      // `import('…').Type` in a type position
      TSImportType: (node) => check(node, node.argument?.literal ?? node.argument),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') {
          check(node, node.arguments[0]);
        }
      },
    };
  },
};

export default { rules: { 'imports-down': importsDown } };
