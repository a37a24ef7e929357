-- hooknative.lua: the glue between hook.lua and the native accelerator (native.lua, native/*.c).
-- The C hook runs the same modes and calls back here only for a verdict not cached yet
-- (breakpoints.verdict), a breakpoint line (hit) or a poll; this module also tells the native
-- coroutine wrappers (native/coresume.c) what a resume needs now.
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")
local threads = require("luapanda.hookthreads")

local M = {}

local verdict = breakpoints.verdict
local verdicts = breakpoints.verdictTable()
local isJIT = compat.isJIT
local hooksHoldThreads = threads.hooksHoldThreads

local native = nil     -- the native module while in use
local watching = false -- its watcher notices IDE commands: no count hook is needed to poll
local resumeState = nil -- the native coroutine wrappers' switch (see M.setResumeState)
-- hook.lua's state, told by M.configure (cold: only a configure changes it).
local enabled, bpMode, slow = false, false, false

-- The callbacks (M.init, from hook.lua): the session's onPoll(), onBreakpoint(bp, line, hookFn,
-- level, fn) and onEntry(...) (hook.init), and hook.lua's setInside(v), isInside(),
-- isSpecial() and onUse(mod, watching) (the module in use changed).
local onPoll, onBreakpoint, onEntry, setInside, isInside, isSpecial, onUse
-- exceptions.lua's: an error called the running protected call's message handler (watchHandlers).
local onHandlerCall
-- The C hook reports message handlers' calls (native/errfunc.c): set by M.watchHandlers.
local handlersWatched = false

--- Takes the callbacks named above; any left out keep their earlier value.
function M.init(callbacks)
  onPoll = callbacks.onPoll or onPoll
  onBreakpoint = callbacks.onBreakpoint or onBreakpoint
  onEntry = callbacks.onEntry or onEntry
  setInside = callbacks.setInside or setInside
  isInside = callbacks.isInside or isInside
  isSpecial = callbacks.isSpecial or isSpecial
  onUse = callbacks.onUse or onUse
  onHandlerCall = callbacks.onHandlerCall or onHandlerCall
end

-- Called by the C hook, so the code that fired the hook is at level 2 and these functions stand
-- where the Lua hook would (the session finds the code below them). `fn`: the function running
-- `line` (level 2 here; 4 seen from stops.onBreakpoint under pcall). `entry`: the first line event
-- of a call of `fn`, armed by the C hook (lines[0]: its function breakpoint, which fires first; a
-- line breakpoint on the same line fires only if it did not). (The C hook never calls while the
-- runtime's own code runs: hook.lua mirrors its `inside` into it.)
local function nativeHit(line, fn, entry)
  if slow or not bpMode then return end
  local lines = verdicts[fn] or verdict(fn)
  if entry and lines and lines[0] then
    setInside(true)
    local ok, stopped = pcall(onEntry, lines[0], line, nativeHit, 4, fn)
    setInside(false)
    if ok and stopped then return end
  end
  local bp = lines and lines[line]
  if not bp then return end
  setInside(true)
  pcall(onBreakpoint, bp, line, nativeHit, 4, fn)
  setInside(false)
end

local function nativePoll()
  if isInside() then return end
  setInside(true)
  pcall(onPoll)
  setInside(false)
end

-- Called by the C hook as an error calls the message handler `handler` of the protected call
-- running (an engine's lua_pcall): the stack is still that of the error.
local function nativeHandlerCall(message, handler)
  if onHandlerCall and not isInside() then onHandlerCall(message, handler) end
end

--- What the native module's install() needs from the runtime.
function M.nativeCallbacks()
  return { verdicts = verdicts, own = breakpoints.ownFunctions, verdict = verdict,
    hit = nativeHit, poll = nativePoll, sethook = debug.sethook, isJIT = isJIT,
    handlerCall = nativeHandlerCall }
end

--- Asks the C hook to report the calls of protected calls' message handlers (on), or not. Returns
--- whether it does, and why not when it cannot (no native module; an interpreter whose state it
--- cannot read). Takes effect at the next configure: watching needs call events everywhere, as
--- breakpoints elsewhere do (hook.lua's bpMode), and no line filter.
local handlersWanted = false
local function watchHandlersNow()
  local ok, why = false, "needs the native accelerator"
  if native and native.watchhandlers then ok, why = native.watchhandlers(handlersWanted) end
  handlersWatched = (handlersWanted and ok) and true or false
  return ok, why
end
function M.watchHandlers(on)
  handlersWanted = on and true or false
  return watchHandlersNow()
end

--- Whether the C hook reports message handlers' calls now.
function M.watchesHandlers() return handlersWatched and native ~= nil end

--- Uses the native module (nil: the pure-Lua hook); `watch`: its watcher polls for us. Takes
--- effect at the next configure/refresh.
function M.useNative(mod, watch)
  native = mod
  watching = (mod ~= nil) and watch and true or false
  threads.useNative(native, watching)
  watchHandlersNow()
  onUse(native, watching)
end

--- hook.lua's new state. The native hook's line filter (native/hook.c): below and inside a
--- function with breakpoints a thread watches lines alone, each line's number checked in C,
--- instead of every call, return and line. Not with function breakpoints, which need call events.
function M.configure(isEnabled, withBreakpoints, isSlow, entryCalls)
  enabled, bpMode, slow = isEnabled, withBreakpoints, isSlow
  if native then
    native.setlinefilter(enabled and bpMode and not entryCalls and not handlersWatched
      and breakpoints.lineFilter() or nil)
  end
end

--- Tells the native coroutine wrappers what a resume needs now: only the bookkeeping they do in C,
--- unless a step runs, a Lua 5.2 hook holds threads, or LuaJIT's one global hook must follow the
--- running thread (the C side gives the resumer chain every thread's handle, the main thread of
--- 5.1/LuaJIT included). Any call also sends a resume that is running now to finish in Lua.
function M.update()
  if not resumeState then return end
  -- (LuaJIT with breakpoints: the C wrappers set its one hook's mode for the thread that runs, as
  -- hookthreads.switchTo does, unless the Lua hook is the one set.)
  local fast = native ~= nil and enabled and not slow and not hooksHoldThreads
    and not (isJIT and (isSpecial() or threads.programHooked()))
  resumeState(fast, enabled and watching and not isJIT, isJIT and bpMode)
end

--- A configure begins: resumes running now finish in Lua.
function M.hold()
  if resumeState then resumeState(false, false) end
end

--- Registers the switch of the native coroutine wrappers (nil: none in use).
function M.setResumeState(fn)
  resumeState = fn
  M.update()
end

return M
