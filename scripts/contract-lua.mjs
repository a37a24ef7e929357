#!/usr/bin/env node
/**
 * Generates lua/luapanda/contract.lua, the Lua side's copy of the wire contract, from
 * src/protocol/contract.ts (the one place it is written; the runtime version comes from
 * package.json through it). The file is committed, so that lua/ runs as it is; build-lua.mjs
 * rewrites it when it differs, and `--check` exits 1 when it is stale (a test runs that).
 *
 * Usage: node scripts/contract-lua.mjs [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const contractFile = path.join(root, 'src', 'protocol', 'contract.ts');
export const contractLuaFile = path.join(root, 'lua', 'luapanda', 'contract.lua');

/** The values the Lua side gets, in the order the file lists them. */
const EXPORTED = [
  'PROTOCOL_VERSION',
  'RUNTIME_NAME',
  'RUNTIME_VERSION',
  'FEATURES',
  'RUNTIME_FEATURES',
  'STOPS',
  'STOP_COMMANDS',
  'HOOK_MODES',
];

/**
 * A TypeScript module of src evaluated on its own (transpiled, no type check): it may import
 * JSON files and other such modules by relative path, nothing else.
 */
function loadModule(file) {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const dir = path.dirname(file);
  const require = (spec) => {
    if (!spec.startsWith('.')) {
      throw new Error(`${path.relative(root, file)} may import only project files, not '${spec}'`);
    }
    const target = path.resolve(dir, spec);
    if (spec.endsWith('.json')) return JSON.parse(readFileSync(target, 'utf8'));
    return loadModule(`${target}.ts`);
  };
  const module = { exports: {} };
  new Function('exports', 'require', 'module', outputText)(module.exports, require, module);
  return module.exports;
}

/** contract.ts evaluated on its own. */
function loadContract() {
  return loadModule(contractFile);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function luaValue(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  if (Array.isArray(value)) return `{ ${value.map(luaValue).join(', ')} }`;
  if (value && typeof value === 'object') {
    const fields = Object.entries(value).map(([key, v]) => {
      if (!IDENTIFIER.test(key)) throw new Error(`contract key '${key}' is not a Lua name`);
      return `${key} = ${luaValue(v)}`;
    });
    return `{\n  ${fields.join(',\n  ')},\n}`;
  }
  throw new Error(`contract value ${JSON.stringify(value)} has no Lua form`);
}

/** The text of lua/luapanda/contract.lua. */
export function contractLua() {
  const contract = loadContract();
  const data = Object.keys(contract).filter(
    (key) => key !== '__esModule' && typeof contract[key] !== 'function',
  );
  const unlisted = data.filter((key) => !EXPORTED.includes(key));
  if (unlisted.length > 0) {
    throw new Error(`add ${unlisted.join(', ')} to EXPORTED in scripts/contract-lua.mjs`);
  }
  const lines = [
    '-- contract.lua: GENERATED from src/protocol/contract.ts by scripts/contract-lua.mjs (run by',
    '-- scripts/build-lua.mjs); edit that file, not this one. The wire contract the runtime shares',
    '-- with the IDE: versions, the features it announces, the stop commands, the hook modes.',
    'local M = {}',
  ];
  for (const key of EXPORTED) lines.push(`M.${key} = ${luaValue(contract[key])}`);
  lines.push('return M', '');
  return lines.join('\n');
}

/** Writes the file when it differs; true when it did. */
export function writeContractLua() {
  const text = contractLua();
  let current = '';
  try {
    current = readFileSync(contractLuaFile, 'utf8');
  } catch {
    // Not there yet: written below.
  }
  if (current === text) return false;
  writeFileSync(contractLuaFile, text);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(contractLuaFile, 'utf8');
    } catch {
      // Missing counts as stale.
    }
    if (current !== contractLua()) {
      console.error(
        'contract-lua: lua/luapanda/contract.lua is stale; run `node scripts/build-lua.mjs`',
      );
      process.exit(1);
    }
    console.log('contract-lua: lua/luapanda/contract.lua is up to date');
  } else if (writeContractLua()) {
    console.log('contract-lua: wrote lua/luapanda/contract.lua');
  }
}
