/**
 * The LuaLS definitions (lua/LuaPanda.meta.lua, shipped as dist/lua/LuaPanda.meta.lua) describe
 * exactly the API of the built drop-in: a real interpreter loads dist/lua/LuaPanda.lua and lists
 * its API table, its settings and each function's parameters; every one must have a stub entry
 * with the same parameters, and every stub entry must exist in the runtime.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

const BUILT = path.join(REPO_ROOT, 'dist', 'lua');
const META_SOURCE = path.join(REPO_ROOT, 'lua', 'LuaPanda.meta.lua');

interface RuntimeApi {
  /** name -> parameter names (`...` last for a vararg function). */
  functions: Map<string, string[]>;
  /** Other keys of the API table, with their Lua type. */
  fields: Map<string, string>;
  settings: Map<string, string>;
  /** Assigning LuaPanda.customGetSocketInstance sets settings.customGetSocketInstance. */
  socketAccessor: boolean;
}

// Lists the API of the drop-in as the game sees it. Parameter names come from debug.getlocal on
// a function that is not running (Lua 5.2+ and LuaJIT answer it with the parameter names).
const LIST_API = `
local M = dofile("LuaPanda.lua")
local names = {}
for k in pairs(M) do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do
  local v = M[k]
  if type(v) == "function" then
    local info, params = debug.getinfo(v, "u"), {}
    for i = 1, info.nparams do params[#params + 1] = debug.getlocal(v, i) end
    if info.isvararg then params[#params + 1] = "..." end
    print("function", k, table.concat(params, ","))
  else
    print("field", k, type(v))
  end
end
local settings = {}
for k, v in pairs(M.settings) do settings[#settings + 1] = k .. "\\t" .. type(v) end
table.sort(settings)
for _, s in ipairs(settings) do print("setting", s) end
local f = function() end
M.customGetSocketInstance = f
print("accessor", tostring(M.settings.customGetSocketInstance == f and rawget(M, "customGetSocketInstance") == nil))
`;

function listRuntimeApi(command: string): RuntimeApi {
  const run = spawnSync(command, ['-e', LIST_API], {
    cwd: BUILT,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(run.status, 0, `${command} listed the API: ${run.stderr}`);
  const api: RuntimeApi = {
    functions: new Map(),
    fields: new Map(),
    settings: new Map(),
    socketAccessor: false,
  };
  for (const line of run.stdout.trim().split('\n')) {
    const [kind, name, detail = ''] = line.split('\t');
    if (kind === 'function') api.functions.set(name, detail === '' ? [] : detail.split(','));
    else if (kind === 'field') api.fields.set(name, detail);
    else if (kind === 'setting') api.settings.set(name, detail);
    else if (kind === 'accessor') api.socketAccessor = name === 'true';
  }
  return api;
}

interface MetaApi {
  functions: Map<string, string[]>;
  fields: Set<string>;
  settings: Set<string>;
}

/** The `---@field` names of one `---@class` block (up to the first line that is not `---`). */
function classFields(source: string, className: string): Set<string> {
  const start = source.indexOf(`---@class ${className}\n`);
  assert.ok(start >= 0, `the definitions declare class ${className}`);
  const fields = new Set<string>();
  for (const line of source.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('---')) break;
    const m = /^---@field (\w+)\??\s/.exec(line);
    if (m) fields.add(m[1]);
  }
  return fields;
}

function readMeta(file: string): MetaApi {
  const source = fs.readFileSync(file, 'utf8');
  assert.match(source, /^---@meta\b/, 'a LuaLS definition file starts with ---@meta');
  const functions = new Map<string, string[]>();
  for (const m of source.matchAll(/^function LuaPanda\.(\w+)\(([^)]*)\) end$/gm)) {
    functions.set(
      m[1],
      m[2]
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== ''),
    );
  }
  return {
    functions,
    fields: classFields(source, 'LuaPanda'),
    settings: classFields(source, 'LuaPanda.Settings'),
  };
}

/** Names private to the runtime (the marker that makes a second require return the same table). */
const isPrivate = (name: string): boolean => name.startsWith('__');

describe('LuaLS definitions of the runtime API (LuaPanda.meta.lua)', function () {
  this.timeout(30_000);
  // debug.getinfo(f, "u").nparams needs Lua 5.2+ or LuaJIT.
  const lua = luaInterpreters().find((i) => i.command !== 'lua5.1');

  it('ships next to the built drop-in, unchanged', () => {
    assert.equal(
      fs.readFileSync(path.join(BUILT, 'LuaPanda.meta.lua'), 'utf8'),
      fs.readFileSync(META_SOURCE, 'utf8'),
    );
  });

  it('is valid Lua that defines the same functions the global LuaPanda gets', function () {
    if (!lua) this.skip();
    const run = spawnSync(
      lua.command,
      [
        '-e',
        'dofile("LuaPanda.meta.lua") local n = {} for k in pairs(LuaPanda) do n[#n + 1] = k end table.sort(n) print(table.concat(n, " "))',
      ],
      { cwd: BUILT, encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(
      run.stdout.trim().split(' '),
      [...readMeta(META_SOURCE).functions.keys()].sort(),
    );
  });

  it('has an entry, with the same parameters, for every public function of the runtime, and no other', function () {
    if (!lua) this.skip();
    const runtime = listRuntimeApi(lua.command);
    const meta = readMeta(META_SOURCE);
    assert.ok(
      runtime.functions.has('start') && runtime.functions.size >= 10,
      'the runtime API was listed',
    );
    assert.deepEqual([...meta.functions.keys()].sort(), [...runtime.functions.keys()].sort());
    for (const [name, params] of runtime.functions) {
      assert.deepEqual(meta.functions.get(name), params, `parameters of LuaPanda.${name}`);
    }
  });

  it('declares every other public field of the API table and every setting, and no other', function () {
    if (!lua) this.skip();
    const runtime = listRuntimeApi(lua.command);
    const meta = readMeta(META_SOURCE);
    // customGetSocketInstance is nil until set: the runtime reaches it through the API table's
    // metatable (it lands in settings), so it is listed by what an assignment does.
    assert.ok(
      runtime.socketAccessor,
      'LuaPanda.customGetSocketInstance = f sets settings.customGetSocketInstance',
    );
    const publicFields = [...runtime.fields.keys()].filter((k) => !isPrivate(k));
    assert.deepEqual([...meta.fields].sort(), [...publicFields, 'customGetSocketInstance'].sort());
    // attachInterval is nil until set too: the runtime then picks it by where the IDE is.
    assert.ok(!runtime.settings.has('attachInterval'), 'attachInterval has no default value');
    assert.deepEqual(
      [...meta.settings].sort(),
      [...runtime.settings.keys(), 'customGetSocketInstance', 'attachInterval'].sort(),
    );
  });
});
