-- safe.lua: runs code the debugger does not trust (metamethods, watch expressions) so that an
-- error, a yield or an endless loop cannot break the debugger: in a fresh coroutine with an
-- instruction budget (PUC Lua; LuaJIT's hooks are global and cannot be nested, so there only
-- errors and yields are caught).
local compat = require("luapanda.compat")

local M = {}
M.budget = 2000000

local create, resume, status = coroutine.create, coroutine.resume, coroutine.status
local sethook = debug.sethook
local pack, unpack = compat.pack, compat.unpack

--- Calls fn(...) safely, stopping it after `budget` instructions. Returns true, results... or
--- false, message.
function M.callBounded(budget, fn, ...)
  local co = create(function(...) return fn(...) end)
  if not compat.isJIT then
    sethook(co, function()
      error("evaluation stopped: it ran more than " .. budget .. " instructions (endless loop?)", 0)
    end, "", budget)
  end
  local r = pack(resume(co, ...))
  -- Lua 5.1 keeps a thread's hook function in a registry table until it is set again, even
  -- after the thread is gone (see proghooks.lua, storeOnDummy).
  if not compat.isJIT then sethook(co) end
  if r[1] and status(co) ~= "dead" then
    return false, "evaluation tried to yield"
  end
  if not r[1] then
    local msg = r[2]
    if type(msg) ~= "string" then msg = compat.rawtostring(msg) end
    return false, msg
  end
  return unpack(r, 1, r.n)
end

--- Calls fn(...) safely with the evaluation budget (watch, REPL, conditions).
function M.call(fn, ...)
  return M.callBounded(M.budget, fn, ...)
end

--- tostring(v) that survives a __tostring which errors, loops or returns a non-string.
function M.tostring(v)
  local t = type(v)
  if t ~= "table" and t ~= "userdata" then return tostring(v) end
  local mt = debug.getmetatable(v)
  if mt == nil or rawget(mt, "__tostring") == nil then
    if mt ~= nil and rawget(mt, "__name") ~= nil then return compat.rawtostring(v) end
    return tostring(v)
  end
  local meta = rawget(mt, "__tostring")
  if compat.isJIT and type(meta) == "function" and debug.getinfo(meta, "S").what ~= "C" then
    -- LuaJIT cannot bound a Lua __tostring (no nested hooks), and one that loops would hang the
    -- debugger: show the address instead.
    return compat.rawtostring(v)
  end
  local ok, s = M.call(tostring, v)
  if ok and type(s) == "string" then return s end
  return compat.rawtostring(v) .. " (__tostring failed: " .. tostring(s) .. ")"
end

--- What a value's own `__tostring` says, for a preview beside it: run with a small budget, so a
--- listing of many values stays fast even when each loops. Returns the string, or nil, why: no
--- __tostring, one that failed, or a Lua __tostring under LuaJIT (which cannot be bounded).
function M.previewTostring(v, mt, budget)
  local meta = type(mt) == "table" and rawget(mt, "__tostring") or nil
  if type(meta) ~= "function" then return nil end
  if compat.isJIT and debug.getinfo(meta, "S").what ~= "C" then return nil end
  local ok, s = M.callBounded(budget, tostring, v)
  if ok and type(s) == "string" then return s end
  if ok then return nil, "__tostring returned a " .. type(s) end
  return nil, "__tostring failed: " .. tostring(s)
end

return M
