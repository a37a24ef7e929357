-- jitwake.lua: LuaJIT compiled code runs no debug hook, so a loop that stays in its traces (a
-- game's main loop, LÖVE's love.run) would never notice a poll the native accelerator asks for:
-- not an IDE to attach to, not a pause or a hot reload. LuaJIT's profiler, started in line mode,
-- makes every trace recorded from then on check one flag at each new source line; the
-- native module sets that flag whenever it asks for a poll (jitkick), so the trace leaves and the
-- poll runs in the interpreter. The profiler's own timer is set so far apart that it never fires:
-- there are no samples, and nothing is paid but the check.
-- Not used when: not LuaJIT 2.1, no native accelerator, LuaPanda.settings.jitProfiler = false,
-- or the program profiles itself (jit.p loaded) — LuaJIT runs one profiler at a time.
local compat = require("luapanda.compat")
local quietload = require("luapanda.quietload")

local M = {}

-- "l": a check at every new source line of a trace (function mode, "f", checks only where a
-- function is entered or left, and a loop without calls would stay unreachable); "i": the
-- profiler's own interval (ms), beyond any session. Measured: no cost within noise on the
-- game-loop bench nor on a tight arithmetic loop (bench/gameLoop.ts, "started, no IDE yet").
local MODE = "li2000000000"

local profile = nil -- jit.profile while ours runs
local reason = "not started"

local function noSamples() end

--- Starts the profiler for `mod` (the native module); returns whether compiled code is reachable.
function M.start(mod, settings)
  if profile then return true end
  if not compat.isJIT then reason = "not LuaJIT" return false end
  if not mod or type(mod.jitkick) ~= "function" then reason = "no native accelerator" return false end
  if settings.jitProfiler == false then reason = "off (LuaPanda.settings.jitProfiler = false)" return false end
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) == "table" and rawget(loaded, "jit.p") ~= nil then
    reason = "the program uses LuaJIT's profiler (jit.p)"
    return false
  end
  local lib = quietload.load("jit.profile")
  if type(lib) ~= "table" or type(lib.start) ~= "function" then
    reason = "this LuaJIT has no jit.profile (2.1 has)"
    return false
  end
  local ok = pcall(lib.start, MODE, noSamples)
  if not ok then reason = "jit.profile.start failed" return false end
  if not mod.jitkick(true) then
    pcall(lib.stop)
    reason = "the profiler's signal handler was not found"
    return false
  end
  profile, reason = lib, nil
  return true
end

--- Stops it (stopAttach()).
function M.stop(mod)
  if not profile then return end
  if mod then mod.jitkick(false) end
  pcall(profile.stop)
  profile, reason = nil, "stopped"
end

--- One phrase for getInfo(): whether compiled code is reachable, or why not.
function M.describe()
  if profile then return "compiled code reachable (LuaJIT profiler, line mode)" end
  return "compiled code not reachable without tick(): " .. tostring(reason)
end

return M
