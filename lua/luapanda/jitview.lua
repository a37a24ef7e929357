-- jitview.lua: LuaJIT's compiler as the program sees it while an IDE is attached. The runtime
-- switches the compiler off while breakpoints or a step need every line to reach the hook
-- (compat.setJitNeeded); the program must not see that: jit.status() answers with the state the
-- program itself asked for (its jit.on()/jit.off() calls, or the state at attach), and turning
-- the compiler on waits until the runtime no longer needs it off. On detach the compiler is left
-- as the program wants it. Per-function and per-module calls (jit.on(f), jit.off(true)) go
-- straight through.
local compat = require("luapanda.compat")
local patches = require("luapanda.patches")
local argerrors = require("luapanda.argerrors")

local M = {}

local lib = compat.libs.jit
local real = lib and { on = lib.on, off = lib.off, status = lib.status } or nil

local function on(...)
  if select("#", ...) > 0 then
    if not pcall(real.on, ...) then argerrors.reraise(real.on, "jit.on", ...) end
    return
  end
  compat.programWantsJit = true
  if not compat.jitIsForcedOff() then real.on() end
end

local function off(...)
  if select("#", ...) > 0 then
    if not pcall(real.off, ...) then argerrors.reraise(real.off, "jit.off", ...) end
    return
  end
  compat.programWantsJit = false
  real.off()
end

local function status(...)
  if select("#", ...) > 0 then return real.status(...) end
  return compat.programWantsJit, select(2, real.status())
end

function M.install()
  if not (compat.isJIT and type(lib) == "table" and real.status) then return end
  -- The state the program has before the runtime switches anything.
  if not compat.jitIsForcedOff() then compat.programWantsJit = real.status() and true or false end
  patches.replace(lib, "on", patches.visible(on))
  patches.replace(lib, "off", patches.visible(off))
  patches.replace(lib, "status", patches.visible(status))
end

function M.uninstall()
  if not (compat.isJIT and type(lib) == "table") then return end
  patches.revert(lib, "on")
  patches.revert(lib, "off")
  patches.revert(lib, "status")
end

return M
