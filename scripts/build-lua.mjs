#!/usr/bin/env node
/**
 * Bundles the Lua debug runtime (lua/luapanda/*.lua plus the entry lua/LuaPanda.lua) into ONE
 * drop-in file, dist/lua/LuaPanda.lua. Each module becomes a local loader function in a private
 * table; the bundled `require` of the runtime resolves `luapanda.*` names from that table only, so
 * the file works without any package.path. Output is deterministic (modules in sorted order, no
 * timestamps). A module that is required but missing fails the build loudly. A line map (module
 * `luapanda.bundlemap`) says which module each line comes from, so that the runtime's errors name
 * `luapanda/hook.lua:157`. The LuaLS type definitions lua/LuaPanda.meta.lua are copied next to
 * the output unchanged. First, lua/luapanda/contract.lua is regenerated from
 * src/protocol/contract.ts when it differs (scripts/contract-lua.mjs).
 *
 * Usage: node scripts/build-lua.mjs [--out <file>]
 */
import {
  readFileSync,
  readdirSync,
  mkdirSync,
  writeFileSync,
  existsSync,
  copyFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeContractLua } from './contract-lua.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const luaDir = path.join(root, 'lua');
const moduleDir = path.join(luaDir, 'luapanda');
const entryFile = path.join(luaDir, 'LuaPanda.lua');
// LuaLS type definitions of the public API: shipped next to the drop-in so that the editor of a
// game that copies both completes and checks LuaPanda calls. Not bundled (it holds no code).
const metaFile = path.join(luaDir, 'LuaPanda.meta.lua');
const outIndex = process.argv.indexOf('--out');
const outFile =
  outIndex > 0
    ? path.resolve(process.argv[outIndex + 1])
    : path.join(root, 'dist', 'lua', 'LuaPanda.lua');

function fail(message) {
  console.error(`build-lua: ${message}`);
  process.exit(1);
}

if (!existsSync(entryFile)) fail(`missing entry file lua/LuaPanda.lua`);
if (!existsSync(metaFile)) fail(`missing LuaLS definitions lua/LuaPanda.meta.lua`);
if (writeContractLua()) console.log('build-lua: regenerated lua/luapanda/contract.lua');

/** Every module file under lua/luapanda, as module name -> source. */
const modules = new Map();
if (existsSync(moduleDir)) {
  for (const file of readdirSync(moduleDir).sort()) {
    if (!file.endsWith('.lua')) continue;
    modules.set(`luapanda.${file.slice(0, -4)}`, readFileSync(path.join(moduleDir, file), 'utf8'));
  }
}

// Every `require("luapanda.x")` / `require "luapanda.x"` in any source must name a module we have.
const requirePattern = /require\s*\(?\s*["'](luapanda\.[A-Za-z0-9_.]+)["']/g;
const entrySource = readFileSync(entryFile, 'utf8');
for (const [name, source] of [['LuaPanda', entrySource], ...modules]) {
  for (const match of source.matchAll(requirePattern)) {
    if (!modules.has(match[1]))
      fail(
        `${name} requires ${match[1]}, but lua/${match[1].replace('.', '/')}.lua does not exist`,
      );
  }
}

function stripShebang(source) {
  return source.startsWith('#!') ? source.replace(/^#![^\n]*/, '') : source;
}

const parts = [];
parts.push(
  '-- LuaPanda.lua: the LuaPanda MCP Debugger runtime, bundled from lua/ by scripts/build-lua.mjs.',
);
parts.push(
  '-- Drop this one file into your game and call require("LuaPanda").start("127.0.0.1", 8818).',
);
parts.push('-- Generated file: edit the modules under lua/ and rebuild instead of editing this.');
// The standard library as it is when the runtime loads, captured in locals every module sees:
// the runtime never reads a global at run time, so a program that replaces `pairs`, removes
// `string.sub`, or guards `_G` with a strict metatable cannot change what the runtime does (nor
// see it call its replacements). Library tables are copied for the same reason.
parts.push('local _G = _G');
// LuaJIT never compiles the runtime's own functions (every one is a subfunction of this chunk).
// An aborted trace is thrown and caught on the running thread, and any throw clears LuaJIT's mark
// of a thread inside an xpcall message handler: a runtime trace recording while the program's
// handler runs would turn that handler's nested "error in error handling" into a handled error.
// (The program's jit.off() does not stop this: side traces of earlier traces still compile.)
parts.push(
  'do local jitLib, dbg = rawget(_G, "jit"), rawget(_G, "debug") if type(jitLib) == "table" and type(jitLib.off) == "function" and type(dbg) == "table" then pcall(jitLib.off, dbg.getinfo(1, "f").func, true) end end',
);
parts.push(
  'local assert, collectgarbage, error, getmetatable, ipairs, load, loadfile, next, pairs, pcall, print, rawequal, rawget, rawset, require, select, setmetatable, tonumber, tostring, type, xpcall, _VERSION =',
);
parts.push(
  '  assert, collectgarbage, error, getmetatable, ipairs, load, loadfile, next, pairs, pcall, print, rawequal, rawget, rawset, require, select, setmetatable, tonumber, tostring, type, xpcall, _VERSION',
);
parts.push('local rawlen, package = rawget(_G, "rawlen"), package');
parts.push(
  'local function __lp_copy(t) local c = {} if type(t) == "table" then for k, v in next, t do c[k] = v end end return c end',
);
parts.push(
  'local string, table, math, os, io, debug, coroutine = __lp_copy(string), __lp_copy(table), __lp_copy(math), __lp_copy(os), __lp_copy(io), __lp_copy(debug), __lp_copy(coroutine)',
);
parts.push('local __lp_loaders, __lp_loaded, __lp_global_require = {}, {}, require');
parts.push('local function __lp_require(name)');
parts.push('  local cached = __lp_loaded[name]');
parts.push('  if cached ~= nil then return cached end');
parts.push('  local loader = __lp_loaders[name]');
parts.push('  if not loader then');
parts.push(
  '    if string.sub(tostring(name), 1, 9) == "luapanda." then error("LuaPanda bundle: unknown module " .. tostring(name), 2) end',
);
parts.push('    return __lp_global_require(name)');
parts.push('  end');
parts.push('  local value = loader(name)');
parts.push('  if value == nil then value = true end');
parts.push('  __lp_loaded[name] = value');
parts.push('  return value');
parts.push('end');
/** The output line the next part starts on (parts are joined by newlines). */
const nextLine = () => parts.reduce((n, part) => n + part.split('\n').length, 0) + 1;
// The line map: where each module's text sits in the bundle, so that the runtime names its own
// errors by module and line (`luapanda/hook.lua:157`) rather than by a line of this file
// (lua/luapanda/linemap.lua reads it). Triples: first line, last line, file under lua/.
const lineMap = [];
function pushSource(file, source) {
  const text = stripShebang(source).replace(/\s+$/, '');
  const first = nextLine();
  parts.push(text);
  lineMap.push(first, first + text.split('\n').length - 1, file);
}
for (const [name, source] of modules) {
  parts.push(`__lp_loaders[${JSON.stringify(name)}] = function(...)`);
  parts.push(`local require = __lp_require`);
  pushSource(`luapanda/${name.slice('luapanda.'.length)}.lua`, source);
  parts.push('end');
}
// One line, before the entry: the entry's own place is known once this line is counted.
const entryFirst = nextLine() + 2;
const entryText = stripShebang(entrySource).replace(/\s+$/, '');
lineMap.push(entryFirst, entryFirst + entryText.split('\n').length - 1, 'lua/LuaPanda.lua');
parts.push(
  `__lp_loaded["luapanda.bundlemap"] = { ${lineMap.map((v) => JSON.stringify(v)).join(', ')} }`,
);
// The entry's final `return M` must stay the chunk's return value, so it is emitted as the chunk's
// tail rather than wrapped in a loader.
parts.push('local require = __lp_require');
if (nextLine() !== entryFirst) fail('the line map of the entry is off');
parts.push(entryText);
const output = parts.join('\n') + '\n';

mkdirSync(path.dirname(outFile), { recursive: true });
writeFileSync(outFile, output);
const metaOut = path.join(path.dirname(outFile), 'LuaPanda.meta.lua');
copyFileSync(metaFile, metaOut);
console.log(
  `build-lua: wrote ${path.relative(root, outFile)} (${modules.size} modules, ${output.length} bytes) and ${path.relative(root, metaOut)}`,
);
