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

// Modules compiled on first use rather than when the bundle loads: the ones only a stop, a
// variables request, a function breakpoint or a hot reload needs. A game that is never stopped
// never holds their functions and constants, which every collection cycle would otherwise walk
// (the "runtime loaded" floor of the game-loop benchmark). No per-event path may use them: until
// compiled, each access goes through a stand-in's metamethod.
const LAZY_MODULES = new Set([
  'luapanda.hotreload',
  'luapanda.variables',
  'luapanda.preview',
  'luapanda.eval',
  'luapanda.classnames',
  'luapanda.fnbreakpoints',
  'luapanda.collect',
]);

if (!existsSync(entryFile)) fail(`missing entry file lua/LuaPanda.lua`);
if (!existsSync(metaFile)) fail(`missing LuaLS definitions lua/LuaPanda.meta.lua`);
if (writeContractLua())
  console.log('build-lua: regenerated the contract files (contract.lua, luapanda_contract.h)');

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
const globalsCaptured = [
  'assert',
  'collectgarbage',
  'error',
  'getmetatable',
  'ipairs',
  'load',
  'loadfile',
  'next',
  'pairs',
  'pcall',
  'print',
  'rawequal',
  'rawget',
  'rawset',
  'require',
  'select',
  'setmetatable',
  'tonumber',
  'tostring',
  'type',
  'xpcall',
  '_VERSION',
];
parts.push(`local ${globalsCaptured.join(', ')} =`);
parts.push(`  ${globalsCaptured.join(', ')}`);
parts.push('local rawlen, package = rawget(_G, "rawlen"), package');
parts.push(
  'local function __lp_copy(t) local c = {} if type(t) == "table" then for k, v in next, t do c[k] = v end end return c end',
);
const librariesCopied = ['string', 'table', 'math', 'os', 'io', 'debug', 'coroutine'];
parts.push(
  `local ${librariesCopied.join(', ')} = ${librariesCopied.map((lib) => `__lp_copy(${lib})`).join(', ')}`,
);
// Every local a module's code may name: a lazily compiled module receives them as its chunk's
// arguments (see below), so that it sees exactly what a module compiled with the bundle sees.
const moduleScope = ['_G', ...globalsCaptured, 'rawlen', 'package', ...librariesCopied, 'require'];
parts.push('local __lp_loaders, __lp_loaded, __lp_global_require = {}, {}, require');
// Lazily compiled modules: their text is kept as a string and compiled on first use (see
// LAZY_MODULES). __lp_lines holds the bundle line the text starts on: the text is compiled under
// the bundle's own chunk name, preceded by as many newlines, so that its functions carry the same
// source and lines as if compiled with the bundle (the runtime's own-source check, the line map
// and tracebacks all stay true).
parts.push('local __lp_sources, __lp_lines, __lp_proxies, __lp_require = {}, {}, {}, nil');
parts.push('local __lp_chunkname = debug.getinfo(1, "S").source');
parts.push(
  'local __lp_loadstring, __lp_setfenv, __lp_getfenv, __lp_env, __lp_jit = rawget(_G, "loadstring") or load, rawget(_G, "setfenv"), rawget(_G, "getfenv"), _ENV, rawget(_G, "jit")',
);
parts.push('local function __lp_compile(name)');
parts.push(
  `  local text = "local ${moduleScope.join(', ')} = ..." .. string.rep("\\n", __lp_lines[name] - 1) .. __lp_sources[name]`,
);
parts.push('  local fn, err');
parts.push(
  '  if __lp_setfenv then fn, err = __lp_loadstring(text, __lp_chunkname) if fn then __lp_setfenv(fn, __lp_getfenv(1)) end',
);
parts.push('  else fn, err = load(text, __lp_chunkname, "t", __lp_env) end');
parts.push(
  '  if not fn then error("LuaPanda bundle: cannot compile " .. tostring(name) .. ": " .. tostring(err), 0) end',
);
parts.push(
  '  if type(__lp_jit) == "table" and type(__lp_jit.off) == "function" then pcall(__lp_jit.off, fn, true) end',
);
parts.push('  __lp_sources[name] = nil');
parts.push(
  `  return fn(${moduleScope.map((n) => (n === 'require' ? '__lp_require' : n)).join(', ')})`,
);
parts.push('end');
parts.push('local function __lp_run(name)');
parts.push('  local cached = __lp_loaded[name]');
parts.push('  if cached ~= nil then return cached end');
parts.push('  local value');
parts.push(
  '  if __lp_sources[name] then value = __lp_compile(name) else value = __lp_loaders[name](name) end',
);
parts.push('  if value == nil then value = true end');
parts.push('  __lp_loaded[name] = value');
parts.push('  return value');
parts.push('end');
// Until a lazy module is used, `require` hands out a stand-in that compiles it on first access
// and forwards every read and write to it. Only cold paths use lazy modules (one metamethod call
// per access there); the module itself, once compiled, is what later requires return.
parts.push('local function __lp_proxy(name)');
parts.push('  local proxy = __lp_proxies[name]');
parts.push('  if proxy then return proxy end');
parts.push('  proxy = setmetatable({}, {');
parts.push('    __index = function(_, key) return __lp_run(name)[key] end,');
parts.push('    __newindex = function(_, key, value) __lp_run(name)[key] = value end,');
parts.push('  })');
parts.push('  __lp_proxies[name] = proxy');
parts.push('  return proxy');
parts.push('end');
parts.push('function __lp_require(name)');
parts.push('  local cached = __lp_loaded[name]');
parts.push('  if cached ~= nil then return cached end');
parts.push('  if __lp_sources[name] then return __lp_proxy(name) end');
parts.push('  if not __lp_loaders[name] then');
parts.push(
  '    if string.sub(tostring(name), 1, 9) == "luapanda." then error("LuaPanda bundle: unknown module " .. tostring(name), 2) end',
);
parts.push('    return __lp_global_require(name)');
parts.push('  end');
parts.push('  return __lp_run(name)');
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
/** The smallest long-bracket level whose closing bracket does not occur in `text`. */
function longBracketLevel(text) {
  let level = 0;
  while (text.includes(`]${'='.repeat(level)}]`)) level++;
  return '='.repeat(level);
}
for (const name of LAZY_MODULES) {
  if (!modules.has(name)) fail(`LAZY_MODULES names ${name}, which does not exist`);
}
for (const [name, source] of modules) {
  const file = `luapanda/${name.slice('luapanda.'.length)}.lua`;
  if (LAZY_MODULES.has(name)) {
    const level = longBracketLevel(source);
    // The newline after the opening bracket is not part of the string: the text starts on the
    // next line, which is the line __lp_lines records.
    parts.push(`__lp_sources[${JSON.stringify(name)}] = [${level}[`);
    const first = nextLine();
    pushSource(file, source);
    parts.push(`]${level}]`);
    parts.push(`__lp_lines[${JSON.stringify(name)}] = ${first}`);
    continue;
  }
  parts.push(`__lp_loaders[${JSON.stringify(name)}] = function(...)`);
  parts.push(`local require = __lp_require`);
  pushSource(file, source);
  parts.push('end');
}
// What was compiled on first use so far, for LuaPanda.getInfo() (a pseudo-module: unbundled, the
// modules are all compiled as they load and `require` does not find it).
const lazyNames = [...LAZY_MODULES]
  .sort()
  .map((name) => JSON.stringify(name))
  .join(', ');
parts.push(
  `__lp_loaded["luapanda.lazy"] = { names = { ${lazyNames} }, compiled = function(name) return __lp_sources[name] == nil end }`,
);
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
