-- hookfilter.lua: the line filter of the pure-Lua hook. A thread may watch its lines instead of its
-- calls: its hook then checks each line's number against every line a breakpoint may stop on,
-- and counts lines toward a tick (a poll, and now and then a sample of its calls). At the ticks,
-- hookchoice.lua's arithmetic decides whether the thread goes over to calls (hook.lua's modes)
-- and when it tries lines again. hook.lua makes the threads' hooks and asks M.thread for the
-- line filter's part of each.
local breakpoints = require("luapanda.breakpoints")
local hookchoice = require("luapanda.hookchoice")
local contract = require("luapanda.contract")
local threads = require("luapanda.hookthreads")

local M = {}

local CALLS, LINES = hookchoice.CALLS, hookchoice.LINES
local BELOW, INSIDE = contract.HOOK_MODES.below, contract.HOOK_MODES.inside
local modeOf = threads.modeOf

local choiceSetting = "auto" -- settings.hookStrategy: "auto", "calls" or "lines"
local linesAllowed = false   -- the state allows the filter (see M.allow)
local filter = {}            -- every line number a breakpoint may stop on
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
-- The deepest stack on which a thread in lines may go over to calls (see linesTick; the C hook's
-- line filter reads no deeper either).
local MODE_DEPTH = contract.NATIVE.modeDepth
local switches = { toCalls = 0, toLines = 0 } -- how often threads changed their choice

-- hook.lua's side (M.init):
--   state()                the hook's state for cold paths: a table it refills at each call
--                          (enabled, bpMode, special, entryCalls, native, pollEvery, lastPoll,
--                          inside, generation)
--   lineHit(line, hookFn)  a line whose number a breakpoint is on (levels: 2 = hookFn, 3 = the code)
--   pollNow(hookFn)        reads the IDE's commands
--   setLuaHook(co, fn, mask, count)
local state, lineHit, pollNow, setLuaHook

function M.init(callbacks)
  state, lineHit = callbacks.state, callbacks.lineHit
  pollNow, setLuaHook = callbacks.pollNow, callbacks.setLuaHook
end

--- Sets the tick lengths and the setting (any other value than "calls" or "lines", a typo
--- included, is the default); returns the line events between two ticks, which hook.lua's line
--- hook counts too.
function M.configure(asked, pollEvery)
  -- (Game code runs 3 to 5 VM instructions a line.)
  linesPerTick = pollEvery > 0 and math.max(1000, math.floor(pollEvery / 4)) or math.huge
  linesPerSample = pollEvery > 0 and math.floor(linesPerTick / hookchoice.SAMPLE_SHARE) or math.huge
  choiceSetting = (asked == "calls" or asked == "lines") and asked or "auto"
  return linesPerTick
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
function M.allow()
  local s = state()
  linesAllowed = s.enabled and s.bpMode and not s.special and not s.entryCalls and not s.native
    and choiceSetting ~= "calls" and (s.pollEvery > 0 or choiceSetting == "lines")
  if linesAllowed and filterFor ~= breakpoints.lineVersion() then
    filterFor = breakpoints.lineVersion()
    filter = breakpoints.lineFilter()
    unseenSince = nil
  end
  if linesAllowed and not breakpoints.allAnnounced() then
    unseenSince = unseenSince or s.lastPoll
    linesAllowed = s.lastPoll - unseenSince >= UNSEEN_GRACE
  end
  return linesAllowed
end
local allowLines = M.allow

--- The line filter's part of one thread's hook. `apply(m, lines, force)`: the hook's mode change
--- (the thread goes over to calls). Returns the thread's
---   lineHook, sampleHook   its hooks in lines ("l"; "lc" while a tick samples its calls too),
---   install(co)            sets the one that is due,
---   tryLines()             the running thread tries lines again (a sample tick decides),
---   retryDue()             a thread in calls should try lines now,
---   wantsLines()           it chose lines (and may: allowed, no program hook).
function M.thread(prog, apply)
  -- A new thread tries lines first, with a sample of its calls in its first (short) tick.
  local choice = LINES
  local callEvents = 0
  local untilTick = linesPerTick
  local ticks, nextSample, sampling = 0, 0, true
  local retryDelay, retryAt, retrying = hookchoice.RETRY_FIRST, 0, false
  local sampleStart = state().lastPoll -- (CPU time when the sample tick began; roughly, for a new thread)
  local lineHook, sampleHook
  -- A tick of a thread in lines (linesPerTick line events): polls, then counts toward the choice.
  -- Levels: 1 = this, 2 = `hookFn` (lineHook or sampleHook), 3 = the code.
  local function linesTick(hookFn)
    untilTick = linesPerTick
    local s = state()
    if s.inside then return end
    local generation = s.generation
    pollNow(hookFn)
    s = state()
    -- (A poll that changed the state re-installed every hook already.)
    if generation ~= s.generation or choiceSetting ~= "auto" then
      callEvents = 0
      -- (A forced choice samples no calls: back to lines alone if this thread was sampling.)
      if sampling and generation == s.generation then
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
      retryDelay = hookchoice.nextRetry(retryDelay, lost and retrying, s.lastPoll - sampleStart)
      retrying = false
      if lost then
        switches.toCalls = switches.toCalls + 1
        choice = CALLS
        retryAt = s.lastPoll + retryDelay
        apply(m, lines, true)
      else
        nextSample = ticks + hookchoice.SAMPLE_EVERY
        setLuaHook(nil, lineHook, "l", 0)
      end
    elseif ticks >= nextSample then
      sampling = true
      sampleStart = s.lastPoll
      untilTick = linesPerSample
      setLuaHook(nil, sampleHook, "lc", 0)
    end
    callEvents = 0
  end
  -- A line whose number no breakpoint is on only counts toward the tick. Each hook is kept to the
  -- fewest instructions, on one line: every instruction of a hook's own code passes through the
  -- interpreter's hook check (on Lua 5.4 a look-up of its line number for every new line), so
  -- here an instruction costs about a tenth of the hook call itself (game-loop bench). (`left`:
  -- one upvalue read fewer than reading `untilTick` again.)
  lineHook = function(_, line) if filter[line] == nil then local left = untilTick - 1 untilTick = left if left > 0 then return end linesTick(lineHook) return end lineHit(line, lineHook) end
  sampleHook = function(_, line) if line == nil then callEvents = callEvents + 1 return end if filter[line] == nil then local left = untilTick - 1 untilTick = left if left > 0 then return end linesTick(sampleHook) return end lineHit(line, sampleHook) end
  local function install(co)
    if sampling then
      untilTick = linesPerSample
      setLuaHook(co, sampleHook, "lc", 0)
    else
      untilTick = linesPerTick
      setLuaHook(co, lineHook, "l", 0)
    end
  end
  local function tryLines()
    switches.toLines = switches.toLines + 1
    choice, sampling, retrying = LINES, true, true
    callEvents, untilTick = 0, linesPerSample
    sampleStart = state().lastPoll
    setLuaHook(nil, sampleHook, "lc", 0)
  end
  -- A thread in calls tries lines again once its delay is over (at a count tick or a look at the
  -- clock between mode changes); whether lines are allowed may have changed since (a file seen).
  local function retryDue()
    if prog or choiceSetting == "calls" or state().lastPoll < retryAt then return false end
    return allowLines()
  end
  local function wantsLines() return choice == LINES and linesAllowed and not prog end
  lineHooks[lineHook], lineHooks[sampleHook] = true, true
  return lineHook, sampleHook, install, tryLines, retryDue, wantsLines
end

--- Whether `fn` is one of the threads' line-filter hooks.
function M.isLineHook(fn) return lineHooks[fn] == true end

function M.state()
  return { linesAllowed = linesAllowed, toCalls = switches.toCalls, toLines = switches.toLines,
    strategy = choiceSetting }
end

return M
