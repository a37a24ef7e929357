#!/usr/bin/env node
/**
 * Generates lua/luapanda/contract.lua, the Lua side's copy of the wire contract, and
 * native/luapanda_contract.h, the native accelerator's (its interface version, the hook modes,
 * the mode depth), from src/protocol/contract.ts (the one place it is written; the runtime version
 * comes from package.json through it). The files are committed, so that lua/ runs and native/
 * builds as they are; build-lua.mjs rewrites them when they differ, and `--check` exits 1 when
 * one is stale (a test runs that).
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
export const contractHeaderFile = path.join(root, 'native', 'luapanda_contract.h');

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
  'NATIVE',
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

/** The text of native/luapanda_contract.h. */
export function contractHeader() {
  const { HOOK_MODES, NATIVE } = loadContract();
  const mode = (n) => (n < 0 ? `(${n})` : String(n));
  return [
    '/*',
    ' * luapanda_contract.h: GENERATED from src/protocol/contract.ts by scripts/contract-lua.mjs (run',
    ' * by scripts/build-lua.mjs); edit that file, not this one. What the native accelerator shares',
    ' * with the Lua runtime: the interface version, the hook modes, the mode depth.',
    ' */',
    '#ifndef LUAPANDA_CONTRACT_H',
    '#define LUAPANDA_CONTRACT_H',
    '',
    '/* What the Lua side checks before using the module (NATIVE.apiVersion). */',
    `#define LPN_API_VERSION ${NATIVE.apiVersion}`,
    '',
    '/* The hook modes (HOOK_MODES). NONE: no event but the count (if any). */',
    ...Object.entries(HOOK_MODES).map(
      ([name, n]) => `#define LPN_MODE_${name.toUpperCase()} ${mode(n)}`,
    ),
    '',
    "/* The deepest stack level the line filter reads a thread's mode from (NATIVE.modeDepth). */",
    `#define LPN_FILTER_DEPTH ${NATIVE.modeDepth}`,
    '',
    '#endif',
    '',
  ].join('\n');
}

/** The generated files with their texts today. */
function generated() {
  return [
    [contractLuaFile, contractLua()],
    [contractHeaderFile, contractHeader()],
  ];
}

function readOrEmpty(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // Not there yet: missing counts as stale.
  }
}

/** Writes each generated file that differs; true when one did. */
export function writeContractLua() {
  let wrote = false;
  for (const [file, text] of generated()) {
    if (readOrEmpty(file) === text) continue;
    writeFileSync(file, text);
    wrote = true;
  }
  return wrote;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const stale = generated().filter(([file, text]) => readOrEmpty(file) !== text);
    for (const [file] of stale) {
      console.error(
        `contract-lua: ${path.relative(root, file)} is stale; run \`node scripts/build-lua.mjs\``,
      );
    }
    if (stale.length > 0) process.exit(1);
    console.log(
      'contract-lua: lua/luapanda/contract.lua and native/luapanda_contract.h are up to date',
    );
  } else if (writeContractLua()) {
    console.log('contract-lua: wrote the generated contract files');
  }
}
