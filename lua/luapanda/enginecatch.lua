-- enginecatch.lua: under LuaJIT, errors caught by a long-lived xpcall of the engine's own Lua code
-- stop as uncaught errors. LÖVE runs the whole game under one such call (its boot code, a chunk
-- named "=[love "boot.lua"]", calls the main loop through xpcall with LÖVE's error handler), so
-- an error in love.update is the engine's to catch, not the program's. The handler in that frame
-- is swapped (debug.setlocal on the xpcall frame, as hosthandler.lua does for the stand-alone
-- interpreter's handler) for a function that stops first, then tail-calls the engine's handler:
-- LuaJIT keeps no trace of a tail call, so the engine's handler sees the stack and traceback it
-- sees without the debugger. PUC Lua marks tail calls in tracebacks: there the native accelerator
-- watches the handler instead (native/errfunc.c). Only frames on the stack of the thread that
-- attaches are found; an xpcall made anew each frame is not (its next call has the engine's
-- handler again).
local compat = require("luapanda.compat")
local paths = require("luapanda.paths")

local M = {}

local getinfo, getlocal, setlocal = debug.getinfo, debug.getlocal, debug.setlocal
local rawXpcall, rawPcall = xpcall, pcall
-- Our stand-in -> the engine's handler it stands for (weak: a frame that ended drops both).
local standIns = setmetatable({}, { __mode = "k" })
local onError = nil -- function(message, standIn): the runtime stops here

--- Whether a frame (getinfo "S", or nil: none) is code of the engine's own rather than the
--- program's: C, or a chunk that is not a Lua file.
local function engineCode(info)
  return info == nil or info.what == "C" or not paths.isFileSource(info.source)
end

local function standInFor(original)
  local standIn
  standIn = function(...)
    local report = onError
    if report then rawPcall(report, (...), standIn) end
    return original(...)
  end
  standIns[standIn] = original
  return standIn
end

--- The engine's xpcall frames on the running thread's stack, each as (level, slot, handler), to
--- `visit`: `level` as this function counts, so one more seen from `visit`.
local function eachEngineXpcall(visit)
  for level = 3, 100000 do
    local info = getinfo(level, "f")
    if not info then return end
    if rawequal(info.func, rawXpcall) and engineCode(getinfo(level + 1, "S")) then
      local body = getinfo(level - 1, "f")
      for slot = 1, 4 do
        local name, value = getlocal(level, slot)
        if name == nil then break end
        if type(value) == "function" and not rawequal(value, body and body.func) then
          visit(level, slot, value)
          break
        end
      end
    end
  end
end

--- Stands in for the handlers of the engine's xpcall frames (LuaJIT only); `report` is told of
--- each error they catch. Returns how many frames it stands in for.
function M.adopt(report)
  onError = report
  if not compat.isJIT then return 0 end
  local count = 0
  eachEngineXpcall(function(level, slot, handler)
    if not standIns[handler] then setlocal(level + 1, slot, standInFor(handler)) end
    count = count + 1
  end)
  return count
end

--- Gives the engine's handlers back where their frames are on the running thread's stack; a
--- stand-in left elsewhere only calls the engine's handler from now on.
function M.release()
  onError = nil
  if not compat.isJIT then return end
  eachEngineXpcall(function(level, slot, handler)
    local original = standIns[handler]
    if original then setlocal(level + 1, slot, original) end
  end)
end

return M
