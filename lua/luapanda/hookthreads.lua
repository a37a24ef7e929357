-- hookthreads.lua: the threads' side of the hooks. Which coroutines the runtime knows (the pool),
-- each thread's hook (made by hook.lua), the mode a thread's stack asks for (modeOf), and what the
-- coroutine wrappers (coroutines.lua) call around a resume: prepare, beforeResume, afterResume,
-- switchTo. Lua 5.2's registry of hooked threads and LuaJIT's one global hook are handled here.
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")
local proghooks = require("luapanda.proghooks")
local contract = require("luapanda.contract")

local M = {}

local getinfo, gethook = debug.getinfo, debug.gethook
local verdict, isOwnSource = breakpoints.verdict, breakpoints.isOwnSource
local ELSEWHERE, BELOW, INSIDE = contract.HOOK_MODES.elsewhere, contract.HOOK_MODES.below,
  contract.HOOK_MODES.inside
local isJIT = compat.isJIT
local currentThread = compat.currentThread

local hooks = setmetatable({}, { __mode = "k" }) -- thread key -> its hook (hook.lua's newHook)
local pool = setmetatable({}, { __mode = "k" })  -- coroutines we know of
local programHooked = false -- the program has set a hook of its own since the runtime started

-- hook.lua's state, told by M.configure and M.useNative (both cold: a configure, a native switch).
local enabled, bpMode = false, false
local native, watching = nil, false

-- hook.lua's side (M.init):
--   newHook(prog)               a thread's hook: { fn, apply(m, lines, force, co), prog, filtering() }
--   setLuaHook(co, fn, mask, count)   every debug.sethook (through the native module when loaded)
--   isSpecial()                 a step, LuaJIT's repeat guard or an armed entry needs the Lua hook
--   onProgramHook()             the program set a hook (the native coroutine wrappers must know)
local newHook, setLuaHook, isSpecial, onProgramHookSet

function M.init(callbacks)
  newHook, setLuaHook = callbacks.newHook, callbacks.setLuaHook
  isSpecial, onProgramHookSet = callbacks.isSpecial, callbacks.onProgramHook
end

function M.configure(isEnabled, withBreakpoints) enabled, bpMode = isEnabled, withBreakpoints end
function M.useNative(mod, watch) native, watching = mod, watch end
function M.pool() return pool end
function M.programHooked() return programHooked end

local function hookFor(key)
  local h = hooks[key]
  local prog = proghooks.get(key)
  if not h or h.prog ~= prog then
    h = newHook(prog)
    hooks[key] = h
  end
  return h
end

--- Mode of a stack: INSIDE if the top user frame holds a breakpoint (with its lines), BELOW if one
--- below does, else ELSEWHERE; nil when `maxLevels` levels did not decide.
function M.modeOf(co, firstLevel, maxLevels)
  if not bpMode then return ELSEWHERE, nil end
  local level, top = firstLevel, true
  local last = maxLevels and firstLevel + maxLevels or math.huge
  while true do
    -- (Bounded where asked: getinfo(level) walks the frames above `level`, so a whole walk of a
    -- deep stack, a runaway recursion's, costs its depth squared.)
    if level > last then return nil end
    local info
    if co then info = getinfo(co, level, "fS") else info = getinfo(level, "fS") end
    if not info then return ELSEWHERE, nil end
    -- (5.1 lists a frame a tail call replaced as a level of its own, "tail": nothing of it is left.)
    if info.what ~= "C" and info.what ~= "tail" and not isOwnSource(info.source) then
      local lines = verdict(info.func)
      if lines then
        if top then return INSIDE, lines end
        return BELOW, nil
      end
      top = false
    end
    level = level + 1
  end
end
local modeOf = M.modeOf

-- Lua 5.2 keeps every thread that has a Lua hook in a registry table with strong keys (5.3 made
-- it weak): a suspended coroutine the program dropped would never be collected. There, a
-- coroutine carries its hook only while it runs.
local hooksHoldThreads = _VERSION == "Lua 5.2" and not isJIT
M.hooksHoldThreads = hooksHoldThreads

--- Installs hooks matching the current state on the running thread and every known coroutine.
function M.refresh()
  local key = currentThread()
  local h = hookFor(key)
  local m, lines = modeOf(nil, 2)
  h.apply(m, lines, true)
  if isJIT then return end -- one global hook
  for co in pairs(pool) do
    if co ~= key then
      local status = coroutine.status(co)
      if status == "dead" then
        pool[co] = nil
      elseif status == "suspended" and hooksHoldThreads then
        -- (Lua 5.2: it gets its hook when it is resumed; see M.afterResume.)
      else
        local cm, clines = modeOf(co, 0)
        hookFor(co).apply(cm, clines, true, co)
      end
    end
  end
end

--- Removes every hook: the running thread's (LuaJIT: the one global hook) and the coroutines'.
function M.unhookAll()
  setLuaHook(nil)
  for co in pairs(pool) do
    if coroutine.status(co) ~= "dead" then setLuaHook(co) end
  end
end

--- Prepares a coroutine that is about to run (created, or resumed for the first time since we
--- know it): gives it its own hook in the current state.
function M.prepare(co)
  pool[co] = true
  if not enabled or isJIT then return end
  local cm, clines = modeOf(co, 0)
  hookFor(co).apply(cm, clines, true, co)
end

--- A resume is about to run `co` (already prepared once).
function M.beforeResume(co)
  if hooksHoldThreads and enabled then
    local cm, clines = modeOf(co, 0)
    hookFor(co).apply(cm, clines, true, co)
  end
end

--- A resume of `co` returned: a finished coroutine loses its hook (and, in 5.2, any other too).
function M.afterResume(co)
  local status = coroutine.status(co)
  if status == "dead" then
    pool[co] = nil
    hooks[co] = nil
    if not isJIT and gethook(co) ~= nil then setLuaHook(co) end
  elseif hooksHoldThreads and status == "suspended" and not proghooks.get(co) then
    setLuaHook(co) -- M.beforeResume puts it back (forced)
  end
end

--- Called by the coroutine wrappers around a resume: `co` is about to run (nil: the resumer runs
--- again). With the native watcher, it must know which thread runs, to make that one poll. LuaJIT
--- has one global hook: it is re-evaluated for the thread that is about to run.
if not isJIT then
  function M.switchTo(co)
    if not (enabled and watching) then return end
    if co then native.running(co) else native.running() end
  end
else
  function M.switchTo(co)
    -- Idle, every thread wants the same hook (a program's own hook may make them differ).
    if not enabled or not (bpMode or programHooked or isSpecial()) then return end
    -- Not forced: the mask rarely changes, and each debug.sethook would start the count anew.
    local h = hookFor(currentThread())
    -- (The line filter needs no mode: walking the stack at every resume and yield cost 5 % of a
    -- LuaJIT game-loop frame. A change of choice or state computes the mode afresh.)
    if h.filtering() then return end
    -- The native hook changes its mode by itself (at calls, returns and its line filter's ticks):
    -- the C side reads the mode from the thread's stack, as its own coroutine wrappers do.
    if native ~= nil and not isSpecial() and not h.prog then
      native.follow(co)
      return
    end
    if co then
      local m, lines = modeOf(co, 0)
      h.apply(m, lines)
    else
      local m, lines = modeOf(nil, 2)
      h.apply(m, lines)
    end
  end
end

--- The program set or removed its own hook on a thread: every thread gets its hook anew.
function M.onProgramHook(key)
  programHooked = true
  onProgramHookSet()
  -- (The main thread's key is not its handle: it must not enter the pool of coroutines.)
  if type(key) == "thread" and not isJIT then pool[key] = true end
  if enabled then M.refresh() end
end

return M
