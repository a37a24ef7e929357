-- hookjit.lua: LuaJIT's compiler as the hooks want it (hook.lua asks at every configure). Off, and
-- flushed, while a step, pause, entry stop or BP() needs every line or the settings keep it off;
-- with breakpoints it stays on, and the traces compiled before are flushed whenever the
-- breakpoints change. Elsewhere than LuaJIT every switch succeeds at once.
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")

local M = {}

-- Bounded: should LuaJIT keep refusing, the real hooks go back after RETRY_LIMIT instructions.
local RETRY_LIMIT = 1000000
local isJIT = compat.isJIT
local jitWanted = false -- the compiler off (true) or on as the state wants
local bpMode = false    -- breakpoints exist (hook.lua's, told by M.apply)
local retries = 0
-- The breakpoints (breakpoints.generation) the compiled traces were last flushed for.
local flushedFor = -1

-- hook.lua's side (M.init): setLuaHook(co, fn, mask, count) installs a hook; onRetried() puts the
-- real hooks back once the compiler switched (or the retries gave up).
local setLuaHook, onRetried

function M.init(callbacks)
  setLuaHook, onRetried = callbacks.setLuaHook, callbacks.onRetried
end

-- A call hook makes LuaJIT abort every recording that reaches a hook (any call of a Lua function),
-- and a line hook every recording at all, so a trace compiled from now on runs only lines of one
-- function that held no breakpoint while it ran. False when LuaJIT refused (inside a finalizer).
local function applyJit()
  if not compat.setJitNeeded(jitWanted) then return false end
  -- (Switching the compiler off flushes too, and nothing compiles while it is off.)
  if jitWanted then flushedFor = breakpoints.generation return true end
  if not isJIT or not bpMode or flushedFor == breakpoints.generation then return true end
  if not compat.flushJit() then return false end
  flushedFor = breakpoints.generation
  return true
end

local function retryJit()
  retries = retries + 1
  if applyJit() or retries > RETRY_LIMIT then
    retries = 0
    onRetried()
  end
end

--- Switches the compiler: off when `off`, else on (flushed for the breakpoints when `withBreakpoints`).
--- False when LuaJIT refused (the GC heartbeat attached or read a command inside a finalizer): a
--- count hook of 1 then retries at the next instruction, and the first one outside the finalizer
--- succeeds and calls onRetried, which puts the normal hooks back.
function M.apply(off, withBreakpoints)
  jitWanted = off and true or false
  bpMode = withBreakpoints
  if applyJit() then return true end
  retries = 0
  setLuaHook(nil, retryJit, "", 1)
  return false
end

return M
