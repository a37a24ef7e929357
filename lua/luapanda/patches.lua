-- patches.lua: the only way the runtime changes the program's world. While an IDE is attached
-- some library functions are replaced (the coroutine functions that give new threads their hook,
-- debug.sethook/gethook so the program keeps its own hook, pcall/xpcall when caught errors stop,
-- LuaJIT's jit.on/off/status); each replacement is recorded here, and detaching puts back exactly
-- what was there. A field the program has changed since is left as the program set it.
local M = {}

local active = {} -- { t = table, k = key, original = value, replacement = value }, in order

-- With the native accelerator a replacement is installed behind a C function of its own
-- (native.cfunction): the program then sees a C function where it had one (debug.getinfo's
-- `what`, its own call hooks, tracebacks), with the Lua implementation one level further in.
local cfunction = nil

function M.setCFunctionMaker(maker) cfunction = maker end

--- What to install for the replacement `impl`: a C function calling it, where possible.
function M.visible(impl)
  if cfunction then return cfunction(impl) end
  return impl
end

--- How many levels a replacement's implementation stands above the program's call of it, less
--- one: 0 when it is installed as it is, 1 behind a C function.
function M.extraLevels() return cfunction and 1 or 0 end

local function find(t, k)
  for i, p in ipairs(active) do
    if rawequal(p.t, t) and rawequal(p.k, k) then return i, p end
  end
end

--- Replaces t[k] (raw) while attached. Returns the original value.
function M.replace(t, k, replacement)
  local _, existing = find(t, k)
  if existing then
    existing.replacement = replacement
    rawset(t, k, replacement)
    return existing.original
  end
  local original = rawget(t, k)
  active[#active + 1] = { t = t, k = k, original = original, replacement = replacement }
  rawset(t, k, replacement)
  return original
end

--- Puts back one field (if it still holds our replacement).
function M.revert(t, k)
  local i, p = find(t, k)
  if not i then return end
  if rawequal(rawget(t, k), p.replacement) then rawset(t, k, p.original) end
  table.remove(active, i)
end

--- Puts back every field, newest first.
function M.revertAll()
  for i = #active, 1, -1 do
    local p = active[i]
    if rawequal(rawget(p.t, p.k), p.replacement) then rawset(p.t, p.k, p.original) end
    active[i] = nil
  end
end

--- One line per active replacement, for getInfo().
function M.describe()
  local out = {}
  for _, p in ipairs(active) do out[#out + 1] = tostring(p.k) end
  return out
end

return M
