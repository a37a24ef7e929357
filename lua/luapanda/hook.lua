-- hook.lua: the hot path. One debug hook closure per thread (LuaJIT: one global hook), with the
-- cheapest mask that can still catch what is pending:
--   idle (no breakpoint, nothing pending)  ""    + count  (count only notices IDE commands)
--   breakpoints elsewhere                   "c"   + count  (one getinfo + cache lookup per call)
--   below a function holding a breakpoint   "cr"  + count  (returns tell when we are back)
--   inside a function holding a breakpoint  "lcr" + count  (line events: one table index each)
--   step / pause / entry / BP() pending     "l"   + count  (every line goes to the session)
-- Disconnected: no hook at all. The per-function verdicts come from breakpoints.verdict.
-- This file holds the hook, its per-thread state and the line event; around it, each talking to
-- it through its init{…} callbacks: hookthreads.lua (the threads, their hooks, the coroutine
-- wrappers' calls), hookfilter.lua (the line filter), hooknative.lua (the native accelerator: the
-- same modes in a C hook, which calls back only for a verdict, a breakpoint line or a poll),
-- hookchain.lua (the program's own hook behind ours) and hookjit.lua (LuaJIT's compiler).
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")
local contract = require("luapanda.contract")
local threads = require("luapanda.hookthreads")
local linefilter = require("luapanda.hookfilter")
local glue = require("luapanda.hooknative")
local chain = require("luapanda.hookchain")
local hookjit = require("luapanda.hookjit")

local M = {}

local sethook, gethook, getinfo = debug.sethook, debug.gethook, debug.getinfo
local verdict = breakpoints.verdict
local verdicts = breakpoints.verdictTable()
local cFunctions = breakpoints.cFunctions
-- The hook modes (the contract's HOOK_MODES; the C hook's LPN_MODE_*).
local NONE, ELSEWHERE, BELOW, INSIDE = contract.HOOK_MODES.none, contract.HOOK_MODES.elsewhere,
  contract.HOOK_MODES.below, contract.HOOK_MODES.inside

-- What differs between interpreters, chosen once here (the hook itself tests no version):
--   MASKS        each mode's mask. LuaJIT drops return events when a count hook is set without a
--                line hook, and never sends them for fast functions (select, pcall, ...): below a
--                function with breakpoints, lines are hooked too.
--   LINES_CHECK  the modes whose line events check their function's verdict (LuaJIT: all but
--                INSIDE, where lines come for the reason above; cheap, activeLines is false).
--   WRAPPERS     functions whose calls and returns change no mode, or nil. LuaJIT has one global
--                hook for all threads: the runtime's own functions (the coroutine wrappers) set the
--                mode for the thread they are about to resume, and their returns must not undo it.
--   SHIFTS       the hot mode changes may bypass apply() (PUC Lua; see shift).
local MASKS, LINES_CHECK, WRAPPERS, SHIFTS
if compat.isJIT then
  MASKS = { [ELSEWHERE] = "c", [BELOW] = "lcr", [INSIDE] = "lcr" }
  LINES_CHECK = { [NONE] = true, [ELSEWHERE] = true, [BELOW] = true }
  WRAPPERS, SHIFTS = breakpoints.ownFunctions, false
else
  MASKS = { [ELSEWHERE] = "c", [BELOW] = "cr", [INSIDE] = "lcr" }
  LINES_CHECK, WRAPPERS, SHIFTS = {}, nil, true
end

-- The session's callbacks (M.init), in upvalues: the hook calls them without a table lookup.
--   onPoll(hookFn)                       read the IDE's commands, or try to attach (attach.lua)
--   onSlowLine(line, hookFn)             a line while something is pending (stepping.lua)
--   isDuplicate(line, hookFn), guardReturn(hookFn), dropGuards()   LuaJIT's repeat guard
--                                        (stepping.lua)
--   onBreakpoint(bp, line, hookFn, codeAt, fn), onEntry(...)   breakpoint stops (stops.lua)
local onPoll, onSlowLine, isDuplicate, guardReturn, dropGuards, onBreakpoint, onEntry
local enabled = false
local pollEvery = 0
local bpMode = false
local slow = false
local inside = false
local guard = false   -- LuaJIT: the next line event may repeat the line we stopped on
local special = false -- guard, slow or armed: every line event must take the full path
-- A function breakpoint to fire at the next line event: the call of its function was just seen,
-- and the next line event is that call's first (see fnbreakpoints.lua). Line breakpoints cannot
-- do this: a loop back to the first line would stop again, and the first line event is not
-- always on the function's lowest line.
local armed = nil
local entryCalls = false -- function breakpoints exist: a step (slow mode) takes call events too
local native = nil       -- the native accelerator's module while in use (hooknative.useNative)
local watching = false   -- its watcher notices IDE commands: no count hook is needed to poll
-- Line events between two polls of a thread inside a function with breakpoints (hookfilter.lua
-- sets it: it counts its lines the same way).
local linesPerTick = math.huge
local refresh = threads.refresh

-- `inside` (the runtime's own code runs) is mirrored into the C hook, which must then stay quiet.
local function setInsideFlag(v)
  inside = v
  if native then native.setinside(v) end
end

-- Every debug.sethook goes through here: with the native module loaded, through it, so that its
-- signal handler never interrupts a half-done hook change.
local function setLuaHook(co, fn, mask, count)
  if native then
    native.setluahook(co, fn, mask, count)
  elseif co then
    if fn then sethook(co, fn, mask, count) else sethook(co) end
  elseif fn then
    sethook(fn, mask, count)
  else
    sethook()
  end
end

function M.init(callbacks)
  onPoll, onSlowLine, onBreakpoint, onEntry = callbacks.onPoll, callbacks.onSlowLine,
    callbacks.onBreakpoint, callbacks.onEntry
  isDuplicate, guardReturn, dropGuards = callbacks.isDuplicate, callbacks.guardReturn,
    callbacks.dropGuards
  glue.init({ onPoll = onPoll, onBreakpoint = onBreakpoint, onEntry = onEntry })
end
function M.armGuard() guard = true special = true glue.update() end
function M.setInside(v) local old = inside setInsideFlag(v) return old end
function M.isInside() return inside end
M.pool = threads.pool
M.onProgramHook = threads.onProgramHook

local function isInside() return inside end
local function isSpecial() return special end

--- Changes the global state and re-installs hooks.
M.generation = 0

-- Every debug.sethook starts the count anew, so a program that changes modes more often than
-- every pollEvery instructions (calls in and out of a function with breakpoints, resumes under
-- LuaJIT) would never get to its count event: a mode change of the running thread polls first
-- when the last poll is longer ago than this much CPU time.
local POLL_SECONDS = 0.05
local CHECK_EVERY = 64 -- mode changes between two looks at the clock (os.clock is a system call)
local cpuClock = os.clock
local lastPoll = 0
local changes = 0

--- Reads the IDE's commands now. `hookFn`: the hook this runs under, where a pause finds the code.
local function pollNow(hookFn)
  lastPoll = cpuClock()
  setInsideFlag(true)
  pcall(onPoll, hookFn)
  setInsideFlag(false)
end

--- Polls if overdue; false when the poll changed the hooks (the caller's change is stale then).
local function pollIfOverdue()
  changes = 0
  if inside or not enabled or pollEvery == 0 or watching then return true end
  if cpuClock() - lastPoll < POLL_SECONDS then return true end
  local generation = M.generation
  pollNow(nil)
  return generation == M.generation
end

-- The hook's state for the other hook modules' cold paths (one table, refilled at each call).
local view = {}
local function coldState()
  view.enabled, view.bpMode, view.special, view.entryCalls = enabled, bpMode, special, entryCalls
  view.native, view.pollEvery, view.lastPoll = native ~= nil, pollEvery, lastPoll
  view.inside, view.generation = inside, M.generation
  return view
end

-- A line of a thread in lines (hookfilter.lua) whose number a breakpoint is on: reads its
-- function's verdict. Levels: 1 = this, 2 = `hookFn`, 3 = the code.
local function lineHit(line, hookFn)
  if inside then return end
  local fn = getinfo(3, "f").func
  local lines = verdicts[fn]
  if lines == nil then lines = verdict(fn) end
  local bp = lines and lines[line]
  if bp then
    setInsideFlag(true)
    -- (Seen from onBreakpoint the code stands behind pcall, this and the hook: 5.)
    pcall(onBreakpoint, bp, line, hookFn, 5, fn)
    setInsideFlag(false)
  end
end
local allowLines = linefilter.allow

-- Every hook function the runtime installed (weak): what is ours when a hook is found on a thread.
local ourHooks = setmetatable({}, { __mode = "k" })

--- A thread's hook. `prog` is the program's own hook on that thread (proghooks.lua), or nil: then
--- the installed function is hookchain.lua's, which runs this one a level deeper (LV).
local function newHook(prog)
  local LV = prog and 1 or 0
  local me -- the installed function
  -- What the session looks for on the stack (the code is right below it): `me`, or with the
  -- native accelerator's chain hook (hookchain.lua), the function that C hook calls.
  local marker
  local decide -- with `prog`: hookchain.lua's function for the native chain hook
  local maskFor -- with `prog`: the mask and count that give both hooks their events
  local activeLines = false
  local mode = NONE
  local linesCheck = false -- LuaJIT in mode BELOW: lines must be checked (LINES_CHECK)
  local untilTick = linesPerTick -- line events to the next poll, inside a function with breakpoints
  local hook
  -- The line filter's part of this thread (hookfilter.lua).
  local lineHook, sampleHook, installLines, tryLines, retryDue, wantsLines
  -- Whether this hook watches lines through the line filter now (apply installs it then; it needs
  -- no mode).
  local function filtering()
    return enabled and bpMode and not special and native == nil and wantsLines()
  end
  -- Sets this hook's mode; `co` names a thread other than the running one.
  local function apply(m, lines, force, co)
    activeLines = lines or false
    linesCheck = LINES_CHECK[m]
    if force or MASKS[m] ~= MASKS[mode] then
      mode = m
      local mask
      if not enabled then
        setLuaHook(co)
        return
      elseif native and not special and not prog then
        -- The C hook in the same mode; a count only when no watcher polls for us.
        native.sethook(co, bpMode and (m < INSIDE and m or INSIDE) or NONE, watching and 0 or pollEvery)
        return
      elseif slow then
        mask = entryCalls and "cl" or "l"
      elseif not bpMode then
        mask = ""
      elseif filtering() then
        installLines(co)
        return
      else
        mask = MASKS[m]
      end
      local count = pollEvery
      if maskFor then mask, count = maskFor(mask, count, pollEvery) end
      if mask == "" and count == 0 then
        setLuaHook(co) -- nothing to hook at all
      else
        -- (The count of mode changes is checked here: a call per change costs 10 % on call-heavy code.)
        changes = changes + 1
        if co == nil and changes >= CHECK_EVERY and not pollIfOverdue() then return end
        -- (Not on LuaJIT: its one hook follows the running thread, and the chain hook there
        -- was seen to hang a program that sets hooks inside coroutines; it keeps the tail call.)
        if decide and native and not compat.isJIT and native.setchainhook then
          marker = decide
          native.setchainhook(co, decide, mask, count)
        else
          marker = me
          setLuaHook(co, me, mask, count)
        end
      end
    else
      mode = m
    end
  end
  lineHook, sampleHook, installLines, tryLines, retryDue, wantsLines = linefilter.thread(prog, apply)
  -- The full line path; levels: 1 = lineEvent, 2 = hook, 3 = the code.
  local function lineEvent(line)
    if inside then return end
    if armed then
      local bp = armed
      armed = nil
      special = slow or guard
      setInsideFlag(true)
      local ok, stopped = pcall(onEntry, bp, line, marker)
      setInsideFlag(false)
      if ok and stopped then return end
    end
    if guard then
      setInsideFlag(true)
      local ok, dup, done = pcall(isDuplicate, line, marker)
      setInsideFlag(false)
      if not ok or done then
        guard = false special = slow
        -- (Back to the C hook, or to the line filter.)
        if not special and (native or allowLines()) then refresh() end
      end
      if ok and dup then return end
    end
    if slow then
      setInsideFlag(true)
      pcall(onSlowLine, line, marker)
      setInsideFlag(false)
      return
    end
    local bp = activeLines and activeLines[line]
    if linesCheck then
      -- LuaJIT below a breakpoint function (see MASKS): does this function hold breakpoints?
      local lines = verdict(getinfo(3 + LV, "f").func)
      activeLines = lines
      bp = lines and lines[line]
    end
    if bp then
      setInsideFlag(true)
      local fn = getinfo(3 + LV, "f").func
      local lines = verdict(fn)
      activeLines = lines
      -- (Seen from onBreakpoint the code stands behind pcall, lineEvent and the hook: 5 + LV.)
      if lines and lines[line] then pcall(onBreakpoint, lines[line], line, marker, 5 + LV, fn) end
      setInsideFlag(false)
    end
  end
  -- The hot mode changes of the pure-Lua hook on PUC Lua (no native module, no program hook),
  -- between a function with breakpoints and the functions it calls: what apply() does there,
  -- without its general cases (a change of mode per call and return of such a callee).
  local direct = SHIFTS and not prog
  local function shift(m, lines)
    mode = m
    activeLines = lines
    changes = changes + 1
    if changes >= CHECK_EVERY then
      if not pollIfOverdue() then return end
      if retryDue() then tryLines() return end
    end
    sethook(me, MASKS[m], pollEvery)
  end
  hook = function(event, line)
    -- (Only line events carry a line. The hot cases come first, with as few tests as they need:
    -- on Lua 5.4 every test before the one that returns costs measurably on a hook this hot.)
    if line then
      -- The hot case: a line of a function with breakpoints, but not a breakpoint line. (Lines
      -- count toward a poll too: count events do not come reliably while a line hook is set.)
      if not special and not linesCheck then
        local lines = activeLines
        if not lines or lines[line] == nil then
          local left = untilTick - 1 -- (one upvalue read fewer than reading it again)
          untilTick = left
          if left > 0 then return end
          untilTick = linesPerTick
          if not inside then pollNow(marker) end
          return
        end
      end
      lineEvent(line)
      return
    end
    if (event == "call" or event == "tail call") and not special and not inside then
      -- The hot cases with breakpoints elsewhere and below: a call of a function known to hold
      -- none (one getinfo and one index); from a function that holds some, the hooks go below.
      local fn = getinfo(2 + LV, "f").func
      if verdicts[fn] == false then
        if mode ~= INSIDE or cFunctions[fn] then return end
        if direct and native == nil then shift(BELOW, false) return end
      end
    elseif event == "return" and mode == BELOW and direct and not special and not inside then
      -- Below a function with breakpoints: back in it, or not yet (one getinfo and one index).
      local info = getinfo(3 + LV, "f")
      if info then
        local lines = verdicts[info.func]
        if lines == false then return end
        if lines and native == nil and bpMode then shift(INSIDE, lines) return end
      end
    end
    if inside then return end
    if event == "count" then
      -- (hookchain.lua thins the program's count events out to our poll period.)
      local generation = M.generation
      pollNow(marker)
      if generation == M.generation and bpMode and not special and native == nil and retryDue() then
        tryLines()
      end
      return
    end
    if guard and event == "return" then
      setInsideFlag(true)
      local ok, done = pcall(guardReturn, marker)
      setInsideFlag(false)
      if not ok or done then
        guard = false special = slow
        if not special and (native or allowLines()) then refresh() return end
      end
    end
    if slow then
      if entryCalls and (event == "call" or event == "tail call") then
        local lines = verdict(getinfo(2 + LV, "f").func)
        if lines and lines[0] then armed = lines[0] special = true end
      end
      return
    end
    if not bpMode then return end
    -- 5.1 follows a return by a "tail return" per frame a tail call replaced: the return event
    -- already found where execution lands, and these carry nothing to act on.
    if event == "tail return" then return end
    if event == "return" then
      if WRAPPERS then
        local returning = getinfo(2 + LV, "f").func
        verdict(returning)
        if WRAPPERS[returning] then return end
      end
      local level = 3 + LV
      local info = getinfo(level, "f")
      -- (5.1: a frame a tail call replaced is a level without a function; look below it.)
      while info and info.func == nil do
        level = level + 1
        info = getinfo(level, "f")
      end
      if not info then return end
      local lines = verdict(info.func)
      if lines then
        if mode ~= INSIDE then apply(INSIDE, lines) else activeLines = lines end
        return
      end
      if mode == INSIDE then
        local l = level + 1
        while true do
          local below = getinfo(l, "f")
          if not below then break end
          if verdict(below.func) then apply(BELOW) return end
          l = l + 1
        end
        apply(ELSEWHERE)
      end
    else -- "call" / "tail call"
      local fn = getinfo(2 + LV, "f").func
      local lines = verdict(fn)
      if WRAPPERS and WRAPPERS[fn] then return end
      if lines then
        -- (One index per call of a function with breakpoints; [0]: a function breakpoint.)
        if lines[0] then armed = lines[0] special = true end
        if mode ~= INSIDE then apply(INSIDE, lines) else activeLines = lines end
      elseif mode == INSIDE and not cFunctions[fn] then
        -- A C function runs no lines; if it calls Lua code, that call event decides. (Keeping the
        -- line mask here instead measured slower: every line of the callee's subtree then costs
        -- a hook call.)
        apply(BELOW)
      end
    end
  end
  me = hook
  if prog then me, maskFor, decide = chain.wrap(hook, prog) end
  marker = me
  ourHooks[me] = true
  ourHooks[hook] = true
  ourHooks[lineHook], ourHooks[sampleHook] = true, true
  return { fn = me, apply = apply, prog = prog, filtering = filtering }
end

--- Whether a hook found on a thread (a function, or "external hook" for a C hook) is ours.
function M.isOurs(value)
  if value == "external hook" then return native ~= nil end
  if ourHooks[value] then return true end
  -- Also the instruction budget of an evaluation, the one-shot wake-up hook: any runtime function.
  return type(value) == "function" and breakpoints.isOwnSource(getinfo(value, "S").source)
end

-- The other hook modules' side of this one.
threads.init({ newHook = newHook, setLuaHook = setLuaHook, isSpecial = isSpecial, onProgramHook = glue.update })
linefilter.init({ state = coldState, lineHit = lineHit, pollNow = pollNow, setLuaHook = setLuaHook })
chain.init({ isInside = isInside })
glue.init({ setInside = setInsideFlag, isInside = isInside, isSpecial = isSpecial,
  onUse = function(mod, watch)
    native, watching = mod, watch
    if native then native.setinside(inside) end
  end })
hookjit.init({ setLuaHook = setLuaHook, onRetried = function()
  if enabled then refresh() else setLuaHook(nil) end
  glue.update()
end })

function M.configure(state)
  M.generation = M.generation + 1
  glue.hold()
  enabled = state.enabled and true or false
  pollEvery = state.pollEvery or pollEvery
  linesPerTick = linefilter.configure(state.hookStrategy, pollEvery)
  -- (Message handlers watched in C need call events everywhere, as breakpoints elsewhere do.)
  bpMode = breakpoints.count() > 0 or glue.watchesHandlers()
  entryCalls = breakpoints.functionCount() > 0
  slow = state.slow and true or false
  armed = nil
  -- LuaJIT's repeat guard only matters while a line event can stop (a step, a pause, a
  -- breakpoint). Kept without one, it would hold the Lua hook, with no line event to end it, in
  -- place of the C hook, and a loop running compiled would not answer the watcher's signal.
  if guard and not slow and not bpMode then
    guard = false
    dropGuards()
  end
  special = slow or guard
  threads.configure(enabled, bpMode)
  glue.configure(enabled, bpMode, slow, entryCalls)
  allowLines()
  if not hookjit.apply(enabled and (slow or state.jitOff), bpMode) then return end
  if not enabled then
    threads.unhookAll()
    return
  end
  refresh()
  glue.update()
end

--- Whether the installed hooks read the IDE's commands by themselves (a count hook, or the
--- native accelerator's watcher); if not, the GC heartbeat and LuaPanda.tick() do.
function M.polls() return enabled and (watching or pollEvery > 0) end

--- Whether anything could stop the program now (breakpoints, a step, a pause…).
function M.anyActive() return bpMode or slow end

function M.state()
  local f = linefilter.state()
  return { enabled = enabled, bpMode = bpMode, slow = slow, pollEvery = pollEvery,
    native = native ~= nil, watching = watching, linesAllowed = f.linesAllowed,
    toCalls = f.toCalls, toLines = f.toLines, strategy = f.strategy }
end

--- What is really set on the running thread (debug.gethook answers the program with its own):
--- "none", "runtime" or "runtime (native)", "program", with the mask and count.
function M.describeCurrent()
  local fn, mask, count = gethook()
  if fn == nil then return "none" end
  local who = "program"
  if fn == "external hook" and native then
    who = "runtime (native)"
  elseif linefilter.isLineHook(fn) then
    who = "runtime (line filter)"
  elseif ourHooks[fn] or (type(fn) == "function" and breakpoints.isOwnSource(getinfo(fn, "S").source)) then
    who = "runtime" -- (also the instruction budget of an evaluation the runtime runs)
  end
  return who .. " mask='" .. tostring(mask) .. "' count=" .. tostring(count)
end

return M
