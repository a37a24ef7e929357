-- hook.lua: the hot path. One debug hook closure per thread (LuaJIT: one global hook), with the
-- cheapest mask that can still catch what is pending:
--   idle (no breakpoint, nothing pending)  ""    + count  (count only notices IDE commands)
--   breakpoints elsewhere                   "c"   + count  (one getinfo + cache lookup per call)
--   below a function holding a breakpoint   "cr"  + count  (returns tell when we are back)
--   inside a function holding a breakpoint  "lcr" + count  (line events: one table index each)
--   step / pause / entry / BP() pending     "l"   + count  (every line goes to the session)
-- Disconnected: no hook at all. The per-function verdicts come from breakpoints.verdict.
-- With the native accelerator (native.lua, native/*.c) the same modes run in a C hook, which
-- calls back here only for a verdict not cached yet (breakpoints.verdict), a breakpoint line
-- (nativeHit) or a poll (nativePoll); idle then needs no hook at all when its watcher thread
-- notices IDE commands. Steps, pause, entry, BP() and LuaJIT's repeat guard keep the Lua hook.
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")
local proghooks = require("luapanda.proghooks")
local contract = require("luapanda.contract")
local hookchoice = require("luapanda.hookchoice")

local M = {}

local sethook, gethook, getinfo = debug.sethook, debug.gethook, debug.getinfo
local verdict = breakpoints.verdict
local verdicts = breakpoints.verdictTable()
local cFunctions = breakpoints.cFunctions
local ownFunctions = breakpoints.ownFunctions
-- The hook modes (the contract's HOOK_MODES; the C hook's LPN_MODE_*).
local NONE, ELSEWHERE, BELOW, INSIDE = contract.HOOK_MODES.none, contract.HOOK_MODES.elsewhere,
  contract.HOOK_MODES.below, contract.HOOK_MODES.inside

-- The session's callbacks (M.init), in upvalues: the hook calls them without a table lookup.
--   onPoll(hookFn)                       read the IDE's commands, or try to attach (attach.lua)
--   onSlowLine(line, hookFn)             a line while something is pending (stepping.lua)
--   isDuplicate(line, hookFn), guardReturn(hookFn)   LuaJIT's repeat guard (stepping.lua)
--   onBreakpoint(bp, line, hookFn, codeAt, fn), onEntry(...)   breakpoint stops (stops.lua)
local onPoll, onSlowLine, isDuplicate, guardReturn, onBreakpoint, onEntry
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

local hooks = setmetatable({}, { __mode = "k" }) -- thread key -> { fn = hook, set = setter }
local pool = setmetatable({}, { __mode = "k" })  -- coroutines we know of
local native = nil      -- the native accelerator's module while in use (see M.useNative)
local watching = false  -- its watcher notices IDE commands: no count hook is needed to poll
local refreshAll        -- M.refresh, for the hooks below
local hooksHoldThreads  -- Lua 5.2: see M.afterResume
local jitWanted, retryJit -- LuaJIT: the compiler state wanted, and the hook that retries it
local programHooked = false -- the program has set a hook of its own since the runtime started
local resumeState = nil     -- the native coroutine wrappers' switch (see M.setResumeState)
local modeOf                -- a stack's mode (below)

-- The line filter (hookchoice.lua): with the pure-Lua hook, a thread may watch its
-- lines instead of its calls. `filter` holds every line number a breakpoint may stop on.
local CALLS, LINES = hookchoice.CALLS, hookchoice.LINES
local choiceSetting = "auto" -- settings.hookStrategy: "auto", "calls" or "lines"
local linesAllowed = false   -- the state allows the filter (see allowLines)
local filter = {}
local filterFor = nil        -- the breakpoints' version the filter was built for
local lineHooks = setmetatable({}, { __mode = "k" }) -- the threads' line-filter hooks
-- Line events between two ticks of a thread in lines (about pollEvery instructions). Its hook
-- counts lines instead of setting a count hook: while a line hook is set, a count that runs out
-- during the hook function itself is spent without an event (the instructions of the hook count
-- too), and a thread in lines was seen to get no count event at all after a skipped stop near
-- the C-stack limit: pause went unanswered.
local linesPerTick = math.huge
-- Line events a sample of the calls lasts (a tick of its own, see linesTick).
local linesPerSample = math.huge
-- The deepest stack on which a thread in lines may go over to calls (see linesTick).
local MODE_DEPTH = 400
local switches = { toCalls = 0, toLines = 0 }        -- how often threads changed their choice

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
  isDuplicate, guardReturn = callbacks.isDuplicate, callbacks.guardReturn
end
local updateResumeState
function M.armGuard() guard = true special = true updateResumeState() end
function M.setInside(v) local old = inside setInsideFlag(v) return old end
function M.isInside() return inside end
function M.pool() return pool end

-- LuaJIT 2.1 drops return events when a count hook is set without a line hook, so there the
-- "below a breakpoint function" mode also takes line events (cheap: activeLines is false).
local MASKS = { [ELSEWHERE] = "c", [BELOW] = "cr", [INSIDE] = "lcr" }
if compat.isJIT then
  -- LuaJIT drops return events with a count hook and no line hook, and never sends them for fast
  -- functions (select, pcall, ...): below a function with breakpoints, lines are hooked too and
  -- each one checks its function's verdict (the JIT is off then anyway). LuaJIT also has one
  -- global hook for all threads: the coroutine wrappers set the mode for the thread they resume.
  MASKS = { [ELSEWHERE] = "c", [BELOW] = "lcr", [INSIDE] = "lcr" }
end

local isJIT = compat.isJIT

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

--- Whether threads may watch lines instead of calls now: pure Lua, line breakpoints and nothing
--- else (function breakpoints need call events; a step, and LuaJIT's repeat guard after a stop,
--- the full line path), polls to decide at (or the setting "lines"), and every file with
--- breakpoints seen loaded — or not seen in UNSEEN_GRACE seconds of CPU time in calls since
--- breakpoints changed. (A file is seen in calls when one of its functions is called, and the
--- IDE then shows its breakpoints bound; lines see a file only when a line a breakpoint is on
--- runs in it. Its breakpoints stop either way.)
local UNSEEN_GRACE = 2
local unseenSince = nil -- CPU time since which a file with breakpoints has not been seen
local function allowLines()
  linesAllowed = enabled and bpMode and not special and not entryCalls and native == nil
    and choiceSetting ~= "calls" and (pollEvery > 0 or choiceSetting == "lines")
  if linesAllowed and filterFor ~= breakpoints.lineVersion() then
    filterFor = breakpoints.lineVersion()
    filter = breakpoints.lineFilter()
    unseenSince = nil
  end
  if linesAllowed and not breakpoints.allAnnounced() then
    unseenSince = unseenSince or lastPoll
    linesAllowed = lastPoll - unseenSince >= UNSEEN_GRACE
  end
  return linesAllowed
end

-- Every hook function the runtime installed (weak): what is ours when a hook is found on a thread.
local ourHooks = setmetatable({}, { __mode = "k" })

--- A thread's hook. `prog` is the program's own hook on that thread (proghooks.lua), or nil: then
--- the installed function is `chained`, which runs the runtime's hook one level deeper (LV) and
--- then passes the program every event it asked for, by a tail call, so that its hook sees the
--- stack exactly as if the interpreter had called it (Lua 5.1 keeps a "(tail call)" level).
local function newHook(prog)
  local LV = prog and 1 or 0
  local me -- the installed function: what the session looks for on the stack
  local countEvery, countTicks = 1, 0 -- with the program's count hook: poll on every n-th count
  local activeLines = false
  local mode = NONE
  local jitBelow = false -- LuaJIT in mode BELOW: lines must be checked (see below)
  local hook
  -- The line filter (hookchoice.lua): this thread's choice, and what it counts to choose. A new
  -- thread tries lines first, with a sample of its calls in its first (short) tick.
  local choice = LINES
  local callEvents = 0
  local untilTick = linesPerTick
  local ticks, nextSample, sampling = 0, 0, true
  local retryDelay, retryAt, retrying = hookchoice.RETRY_FIRST, 0, false
  local sampleStart = lastPoll -- (CPU time when the sample tick began; roughly, for a new thread)
  local lineHook, sampleHook, tryLines, retryDue
  -- Whether this hook watches lines through the line filter now (apply installs it then; it needs
  -- no mode).
  local function filtering()
    return enabled and bpMode and not special and choice == LINES and linesAllowed and not prog and native == nil
  end
  -- Sets this hook's mode; `co` names a thread other than the running one.
  local function apply(m, lines, force, co)
    activeLines = lines or false
    jitBelow = isJIT and m ~= INSIDE
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
        if sampling then
          untilTick = linesPerSample
          setLuaHook(co, sampleHook, "lc", 0)
        else
          untilTick = linesPerTick
          setLuaHook(co, lineHook, "l", 0)
        end
        return
      else
        mask = MASKS[m]
      end
      local count = pollEvery
      if prog then
        -- The program's events too. With its own count hook the mask stays the same in every mode:
        -- each debug.sethook would start its count anew, and its count events must come on time.
        mask = prog.wants.count and "crl" or mask
        for _, c in ipairs({ "c", "r", "l" }) do
          if prog.wants[({ c = "call", r = "ret", l = "line" })[c]] and not string.find(mask, c, 1, true) then
            mask = mask .. c
          end
        end
        -- (LuaJIT drops return events when a count hook runs without a line hook.)
        if isJIT and prog.wants.ret and count > 0 and not string.find(mask, "l", 1, true) then
          mask = mask .. "l"
        end
        if prog.count > 0 then
          count = prog.count
          countEvery = pollEvery > 0 and math.max(1, math.floor(pollEvery / prog.count)) or math.huge
        end
      end
      if mask == "" and count == 0 then
        setLuaHook(co) -- nothing to hook at all
      else
        -- (The count of mode changes is checked here: a call per change costs 10 % on call-heavy code.)
        changes = changes + 1
        if co == nil and changes >= CHECK_EVERY and not pollIfOverdue() then return end
        setLuaHook(co, me, mask, count)
      end
    else
      mode = m
    end
  end
  -- The full line path; levels: 1 = lineEvent, 2 = hook, 3 = the code.
  local function lineEvent(line)
    if inside then return end
    if armed then
      local bp = armed
      armed = nil
      special = slow or guard
      setInsideFlag(true)
      local ok, stopped = pcall(onEntry, bp, line, me)
      setInsideFlag(false)
      if ok and stopped then return end
    end
    if guard then
      setInsideFlag(true)
      local ok, dup, done = pcall(isDuplicate, line, me)
      setInsideFlag(false)
      if not ok or done then
        guard = false special = slow
        -- (Back to the C hook, or to the line filter.)
        if not special and (native or allowLines()) then refreshAll() end
      end
      if ok and dup then return end
    end
    if slow then
      setInsideFlag(true)
      pcall(onSlowLine, line, me)
      setInsideFlag(false)
      return
    end
    local bp = activeLines and activeLines[line]
    if jitBelow then
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
      if lines and lines[line] then pcall(onBreakpoint, lines[line], line, me, 5 + LV, fn) end
      setInsideFlag(false)
    end
  end
  -- The hot mode changes of the pure-Lua hook on PUC Lua (no native module, no program hook),
  -- between a function with breakpoints and the functions it calls: what apply() does there,
  -- without its general cases (a change of mode per call and return of such a callee).
  local direct = not prog and not isJIT
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
      if not special and not jitBelow then
        local lines = activeLines
        if not lines or lines[line] == nil then
          local left = untilTick - 1 -- (one upvalue read fewer than reading it again)
          untilTick = left
          if left > 0 then return end
          untilTick = linesPerTick
          if not inside then pollNow(me) end
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
      if prog then
        countTicks = countTicks + 1
        if countTicks < countEvery then return end
        countTicks = 0
      end
      local generation = M.generation
      pollNow(me)
      if generation == M.generation and bpMode and not special and native == nil and retryDue() then
        tryLines()
      end
      return
    end
    if guard and event == "return" then
      setInsideFlag(true)
      local ok, done = pcall(guardReturn, me)
      setInsideFlag(false)
      if not ok or done then
        guard = false special = slow
        if not special and (native or allowLines()) then refreshAll() return end
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
      if isJIT then
        -- The runtime's own functions (the coroutine wrappers) set the mode for the thread they
        -- are about to resume; their returns must not undo it.
        local returning = getinfo(2 + LV, "f").func
        verdict(returning)
        if ownFunctions[returning] then return end
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
      if isJIT and ownFunctions[fn] then return end
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
  -- The thread tries lines (a count tick sampling its calls too decides whether they stay).
  tryLines = function()
    switches.toLines = switches.toLines + 1
    choice, sampling, retrying = LINES, true, true
    callEvents, untilTick = 0, linesPerSample
    sampleStart = lastPoll
    setLuaHook(nil, sampleHook, "lc", 0)
  end
  -- A tick of a thread in lines (linesPerTick line events): polls, then counts toward the choice.
  -- Levels: 1 = this, 2 = `hookFn` (lineHook or sampleHook), 3 = the code.
  local function linesTick(hookFn)
    untilTick = linesPerTick
    if inside then return end
    local generation = M.generation
    pollNow(hookFn)
    -- (A poll that changed the state re-installed every hook already.)
    if generation ~= M.generation or choiceSetting ~= "auto" then
      callEvents = 0
      -- (A forced choice samples no calls: back to lines alone if this thread was sampling.)
      if sampling and generation == M.generation then
        sampling = false
        setLuaHook(nil, lineHook, "l", 0)
      end
      return
    end
    if filterFor ~= breakpoints.lineVersion() then allowLines() end
    ticks = ticks + 1
    if sampling then
      sampling = false
      -- (On a stack deeper than this, lines stay: calls would need the whole stack's mode.)
      local m, lines = modeOf(nil, 2, MODE_DEPTH)
      local lost = m ~= nil and hookchoice.callsCheaper(linesPerSample, callEvents,
        m == INSIDE and "inside" or m == BELOW and "below" or "elsewhere")
      -- (The delay doubles only when a try of lines lost; a first choice or a win starts it over.)
      retryDelay = hookchoice.nextRetry(retryDelay, lost and retrying, lastPoll - sampleStart)
      retrying = false
      if lost then
        switches.toCalls = switches.toCalls + 1
        choice = CALLS
        retryAt = lastPoll + retryDelay
        apply(m, lines, true)
      else
        nextSample = ticks + hookchoice.SAMPLE_EVERY
        setLuaHook(nil, lineHook, "l", 0)
      end
    elseif ticks >= nextSample then
      sampling = true
      sampleStart = lastPoll
      untilTick = linesPerSample
      setLuaHook(nil, sampleHook, "lc", 0)
    end
    callEvents = 0
  end
  -- A line of a thread in lines whose number a breakpoint is on: reads its function's verdict.
  -- Levels: 1 = this, 2 = `hookFn`, 3 = the code.
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
  -- The hooks of a thread in lines: lineHook alone ("l"), sampleHook while a tick samples its calls
  -- too ("lc"). A line whose number no breakpoint is on only counts toward the tick. Each is kept
  -- to the fewest instructions, on one line: every instruction of a hook's own code passes through
  -- the interpreter's hook check (on Lua 5.4 a look-up of its line number for every new line), so
  -- here an instruction costs about a tenth of the hook call itself (game-loop bench). (`left`:
  -- one upvalue read fewer than reading `untilTick` again.)
  lineHook = function(_, line) if filter[line] == nil then local left = untilTick - 1 untilTick = left if left > 0 then return end linesTick(lineHook) return end lineHit(line, lineHook) end
  sampleHook = function(_, line) if line == nil then callEvents = callEvents + 1 return end if filter[line] == nil then local left = untilTick - 1 untilTick = left if left > 0 then return end linesTick(sampleHook) return end lineHit(line, sampleHook) end
  -- A thread in calls tries lines again once its delay is over (at a count tick or a look at the
  -- clock between mode changes); whether lines are allowed may have changed since (a file seen).
  retryDue = function()
    if prog or choiceSetting == "calls" or lastPoll < retryAt then return false end
    return allowLines()
  end
  me = hook
  if prog then
    local wants, fn = prog.wants, prog.fn
    me = function(event, line)
      hook(event, line)
      local wanted
      if event == "line" then wanted = wants.line
      elseif event == "count" then wanted = wants.count
      elseif event == "call" or event == "tail call" then wanted = wants.call
      else wanted = wants.ret end
      if not wanted or inside then return end
      -- The runtime's own code (its coroutine wrappers, its API) is not the program's, nor are
      -- the C functions it calls.
      local info = getinfo(2, "S")
      if info and breakpoints.isOwnSource(info.source) then return end
      if info and info.what == "C" and event ~= "line" and event ~= "count" then
        -- A C function: whose is it? The first Lua function below it called it.
        local level, caller = 3, getinfo(3, "S")
        while caller and caller.what == "C" do
          level = level + 1
          caller = getinfo(level, "S")
        end
        if caller and breakpoints.isOwnSource(caller.source) then return end
      end
      return fn(event, line)
    end
  end
  ourHooks[me] = true
  ourHooks[hook] = true
  ourHooks[lineHook], ourHooks[sampleHook] = true, true
  lineHooks[lineHook], lineHooks[sampleHook] = true, true
  return { fn = me, apply = apply, prog = prog, filtering = filtering }
end



local function hookFor(key)
  local h = hooks[key]
  local prog = proghooks.get(key)
  if not h or h.prog ~= prog then
    h = newHook(prog)
    hooks[key] = h
  end
  return h
end

--- Whether a hook found on a thread (a function, or "external hook" for a C hook) is ours.
function M.isOurs(value)
  if value == "external hook" then return native ~= nil end
  if ourHooks[value] then return true end
  -- Also the instruction budget of an evaluation, the one-shot wake-up hook: any runtime function.
  return type(value) == "function" and breakpoints.isOwnSource(getinfo(value, "S").source)
end

--- The program set or removed its own hook on a thread: every thread gets its hook anew.
function M.onProgramHook(key)
  programHooked = true
  updateResumeState()
  -- (The main thread's key is not its handle: it must not enter the pool of coroutines.)
  if type(key) == "thread" and not compat.isJIT then pool[key] = true end
  if enabled then M.refresh() end
end

-- Mode of a stack: INSIDE if the top user frame holds a breakpoint, BELOW if one below does, else
-- ELSEWHERE.
modeOf = function(co, firstLevel, maxLevels)
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
    if info.what ~= "C" and info.what ~= "tail" and not breakpoints.isOwnSource(info.source) then
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

-- Native accelerator callbacks: called by the C hook, so the code that fired the hook is at
-- level 2 and these functions stand where the Lua hook would (session finds the code below them).
-- `fn`: the function running `line` (level 2 here; 4 seen from stops.onBreakpoint under pcall).
-- `entry`: the first line event of a call of `fn`, armed by the C hook (lines[0]: its function
-- breakpoint, which fires first; a line breakpoint on the same line fires only if it did not).
local function nativeHit(line, fn, entry)
  if inside or slow or not bpMode then return end
  local lines = verdicts[fn] or verdict(fn)
  if entry and lines and lines[0] then
    setInsideFlag(true)
    local ok, stopped = pcall(onEntry, lines[0], line, nativeHit, 4, fn)
    setInsideFlag(false)
    if ok and stopped then return end
  end
  local bp = lines and lines[line]
  if not bp then return end
  setInsideFlag(true)
  pcall(onBreakpoint, bp, line, nativeHit, 4, fn)
  setInsideFlag(false)
end

local function nativePoll()
  if inside then return end
  setInsideFlag(true)
  pcall(onPoll)
  setInsideFlag(false)
end

--- What the native module's install() needs from the runtime.
function M.nativeCallbacks()
  return { verdicts = breakpoints.verdictTable(), own = ownFunctions, verdict = verdict,
    hit = nativeHit, poll = nativePoll, sethook = sethook, isJIT = isJIT }
end

--- Uses the native module (nil: the pure-Lua hook); `watch`: its watcher polls for us. Takes
--- effect at the next configure/refresh.
function M.useNative(mod, watch)
  native = mod
  watching = (mod ~= nil) and watch and true or false
  if native then native.setinside(inside) end
end

--- Installs hooks matching the current state on the running thread and every known coroutine.
function M.refresh()
  local key = compat.currentThread()
  local h = hookFor(key)
  local m, lines = modeOf(nil, 2)
  h.apply(m, lines, true)
  if compat.isJIT then return end -- one global hook
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

--- Prepares a coroutine that is about to run (created, or resumed for the first time since we
--- know it): gives it its own hook in the current state.
function M.prepare(co)
  pool[co] = true
  if not enabled or compat.isJIT then return end
  local cm, clines = modeOf(co, 0)
  hookFor(co).apply(cm, clines, true, co)
end

refreshAll = M.refresh

-- Lua 5.2 keeps every thread that has a Lua hook in a registry table with strong keys (5.3 made
-- it weak): a suspended coroutine the program dropped would never be collected. There, a
-- coroutine carries its hook only while it runs.
hooksHoldThreads = _VERSION == "Lua 5.2" and not compat.isJIT
M.hooksHoldThreads = hooksHoldThreads

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
    if not compat.isJIT and gethook(co) ~= nil then setLuaHook(co) end
  elseif hooksHoldThreads and status == "suspended" and not proghooks.get(co) then
    setLuaHook(co) -- M.beforeResume puts it back (forced)
  end
end

--- Called by the coroutine wrappers around a resume: `co` is about to run (nil: the resumer runs
--- again). LuaJIT has one global hook: re-evaluate it for the thread that is about to run. With
--- the native watcher, it must know which thread runs, to make that one poll.
function M.switchTo(co)
  if not enabled then return end
  if watching and not isJIT then
    if co then native.running(co) else native.running() end
    return
  end
  -- Idle, every thread wants the same hook (a program's own hook may make them differ).
  if not isJIT or not (bpMode or special or programHooked) then return end
  -- Not forced: the mask rarely changes, and each debug.sethook would start the count anew.
  local h = hookFor(compat.currentThread())
  -- (The line filter needs no mode: walking the stack at every resume and yield cost 5 % of a
  -- LuaJIT game-loop frame. A change of choice or state computes the mode afresh.)
  if h.filtering() then return end
  -- The native hook changes its mode by itself (at calls, returns and its line filter's ticks):
  -- the C side reads the mode from the thread's stack, as its own coroutine wrappers do.
  if native ~= nil and not special and not h.prog then
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

--- Changes the global state and re-installs hooks.
M.generation = 0

-- LuaJIT only (see M.configure): switch the compiler as the state wants, then the real hooks.
-- Bounded: should LuaJIT keep refusing, the real hooks go back after RETRY_LIMIT instructions.
jitWanted = false
local RETRY_LIMIT = 1000000
local retries = 0
-- The breakpoints (breakpoints.generation) the compiled traces were last flushed for.
local flushedFor = -1

-- LuaJIT: the compiler as the state wants it. Off (and flushed) while a step, pause, entry stop
-- or BP() needs every line, or when the settings keep it off. With breakpoints it stays on: a
-- call hook makes LuaJIT abort every recording that reaches a hook (any call of a Lua function),
-- and a line hook every recording at all, so a trace compiled from now on runs only lines of one
-- function that held no breakpoint while it ran — the traces compiled before are flushed
-- whenever the breakpoints change. False when LuaJIT refused (inside a finalizer).
local function applyJit()
  if not compat.setJitNeeded(jitWanted) then return false end
  -- (Switching the compiler off flushes too, and nothing compiles while it is off.)
  if jitWanted then flushedFor = breakpoints.generation return true end
  if not isJIT or not bpMode or flushedFor == breakpoints.generation then return true end
  if not compat.flushJit() then return false end
  flushedFor = breakpoints.generation
  return true
end

retryJit = function()
  retries = retries + 1
  if applyJit() or retries > RETRY_LIMIT then
    retries = 0
    if enabled then M.refresh() else setLuaHook(nil) end
    updateResumeState()
  end
end

--- Tells the native coroutine wrappers (native/coresume.c) what a resume needs now: only the
--- bookkeeping they do in C, unless a step runs, a Lua 5.2 hook holds threads, or LuaJIT's one
--- global hook must follow the running thread (the C side gives the resumer chain every thread's
--- handle, the main thread of 5.1/LuaJIT included). Any call also sends a resume that is running
--- now to finish in Lua.
updateResumeState = function()
  if not resumeState then return end
  -- (LuaJIT with breakpoints: the C wrappers set its one hook's mode for the thread that runs, as
  -- switchTo does, unless the Lua hook is the one set.)
  local fast = native ~= nil and enabled and not slow and not hooksHoldThreads
    and not (isJIT and (special or programHooked))
  resumeState(fast, enabled and watching and not isJIT, isJIT and bpMode)
end

--- Registers the switch of the native coroutine wrappers (nil: none in use).
function M.setResumeState(fn)
  resumeState = fn
  updateResumeState()
end

function M.configure(state)
  M.generation = M.generation + 1
  if resumeState then resumeState(false, false) end
  enabled = state.enabled and true or false
  pollEvery = state.pollEvery or pollEvery
  -- (Game code runs 3 to 5 VM instructions a line.)
  linesPerTick = pollEvery > 0 and math.max(1000, math.floor(pollEvery / 4)) or math.huge
  linesPerSample = pollEvery > 0 and math.floor(linesPerTick / hookchoice.SAMPLE_SHARE) or math.huge
  bpMode = breakpoints.count() > 0
  entryCalls = breakpoints.functionCount() > 0
  slow = state.slow and true or false
  armed = nil
  special = slow or guard
  jitWanted = enabled and (slow or state.jitOff) and true or false
  -- (Any other value, a typo included, is the default.)
  local asked = state.hookStrategy
  choiceSetting = (asked == "calls" or asked == "lines") and asked or "auto"
  allowLines()
  -- The native hook's line filter (native/hook.c): below and inside a function with breakpoints a
  -- thread watches lines alone, each line's number checked in C, instead of every call, return and
  -- line. Not with function breakpoints, which need call events.
  if native then
    native.setlinefilter(enabled and bpMode and not entryCalls and breakpoints.lineFilter() or nil)
  end
  local jitDone = applyJit()
  if not jitDone then
    -- Inside a finalizer (the GC heartbeat attached or read a command): LuaJIT refuses to switch
    -- its compiler there. A count hook of 1 retries at the next instruction; the first one outside
    -- the finalizer succeeds and puts the normal hooks back.
    retries = 0
    setLuaHook(nil, retryJit, "", 1)
    return
  end
  if not enabled then
    setLuaHook(nil)
    for co in pairs(pool) do
      if coroutine.status(co) ~= "dead" then setLuaHook(co) end
    end
    return
  end
  M.refresh()
  updateResumeState()
end

--- Whether the installed hooks read the IDE's commands by themselves (a count hook, or the
--- native accelerator's watcher); if not, the GC heartbeat and LuaPanda.tick() do.
function M.polls() return enabled and (watching or pollEvery > 0) end

--- Whether anything could stop the program now (breakpoints, a step, a pause…).
function M.anyActive() return bpMode or slow end

function M.state()
  return { enabled = enabled, bpMode = bpMode, slow = slow, pollEvery = pollEvery,
    native = native ~= nil, watching = watching, linesAllowed = linesAllowed,
    toCalls = switches.toCalls, toLines = switches.toLines, strategy = choiceSetting }
end

--- What is really set on the running thread (debug.gethook answers the program with its own):
--- "none", "runtime" or "runtime (native)", "program", with the mask and count.
function M.describeCurrent()
  local fn, mask, count = gethook()
  if fn == nil then return "none" end
  local who = "program"
  if fn == "external hook" and native then
    who = "runtime (native)"
  elseif lineHooks[fn] then
    who = "runtime (line filter)"
  elseif ourHooks[fn] or (type(fn) == "function" and breakpoints.isOwnSource(getinfo(fn, "S").source)) then
    who = "runtime" -- (also the instruction budget of an evaluation the runtime runs)
  end
  return who .. " mask='" .. tostring(mask) .. "' count=" .. tostring(count)
end

return M
