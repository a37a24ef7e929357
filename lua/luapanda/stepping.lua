-- stepping.lua: what is pending that needs every line — a step (in, over, out), a pause, the entry
-- stop, a LuaPanda.BP() — and the decision, on each line the hook passes here, whether to stop;
-- a step handed over to the resumer when the stepping coroutine leaves; LuaJIT's repeat guard
-- (a line event that only repeats the line just stopped on). The stop itself is stops.lua's,
-- given to M.init: stops.lua ends every pending step, so it stands above this module.
-- M.onSlowLine, M.isDuplicate and M.guardReturn run on every hook event while they apply: their
-- state stays in upvalues.
local compat = require("luapanda.compat")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")
local stack = require("luapanda.stack")
local hook = require("luapanda.hook")
local contract = require("luapanda.contract")
local hits = require("luapanda.hits")
local events = require("luapanda.events")
local state = require("luapanda.state")

local M = {}

local getinfo = debug.getinfo
local codeLevel = stack.codeLevel
local fires = hits.fires
local STOPS = contract.STOPS

local step = nil             -- { mode = "over"|"in"|"out", key = threadKey, depth = n }
local pausePending, entryKey, bpKey = false, nil, nil
local stepBeforeStop = nil   -- the step that ran when the program last stopped (a fake hit resumes it)
-- LuaJIT: the frames stopped in whose line may fire again (one per frame: a stop inside a function
-- called from a stopped line must not forget that line, or it stops there twice).
local dupGuards = {}
local connected = false
events.on("link", function(link) connected = link ~= nil end)
local stop -- stops.stop (M.init)

--- `stopFn`: stops.stop(cmd, base, info), `base` relative to its caller.
function M.init(stopFn) stop = stopFn end

local function depthAt(base)
  return stack.levelsFromCaller() - base
end

--- Forgets everything pending (a new link, a detach).
function M.reset()
  step, pausePending, entryKey, bpKey, dupGuards = nil, false, nil, nil, {}
end

--- Whether the hook must pass every line here.
function M.slowNeeded()
  return step ~= nil or pausePending or entryKey ~= nil or bpKey ~= nil
end

function M.isStepping() return step ~= nil end

--- Stop at the next line of the thread the handshake runs in (stopOnEntry).
function M.stopOnEntry() entryKey = compat.currentThread() end
--- LuaPanda.BP(): stop at the next line of the calling thread.
function M.requestBP() bpKey = compat.currentThread() end
--- The IDE's pause while running: stop at the next line.
function M.pause() pausePending = true end

--- A step command. Stopped: from where the program stopped (state.lua); running: it behaves
--- like a pause (protocol doc 10.4).
function M.start(mode, cmd)
  if not state.stopped then
    step = { mode = "in" }
    return
  end
  step = { mode = mode, key = state.stopThread, depth = state.stopDepth, cmd = cmd }
  if compat.isJIT then
    -- LuaJIT fires the line event again when a call returns into the middle of a line; PUC Lua
    -- does not. Skip that one event so stepping lands on the next line everywhere.
    if mode == "over" then step.skip = { line = state.stopLine, depth = state.stopDepth } end
    if mode == "out" and state.callerLine then step.skip = { line = state.callerLine, depth = state.stopDepth - 1 } end
  end
end

--- continue: nothing pending; upstream's "fake hit" (protocol doc 10.5: the IDE rejected a
--- breakpoint stop) carries on with whatever step was running before it.
function M.continue(fakeHit)
  step = nil
  if fakeHit then step = stepBeforeStop end
end

--- A stop begins: nothing is pending any more. Returns the step that ran, for M.stopFailed.
function M.stopBegins()
  local before = step
  step, pausePending, entryKey, bpKey = nil, false, nil, nil
  return before
end

--- The stop reached the IDE (`shown`) or not (then the step that ran goes on).
function M.stopEnds(before, shown)
  if shown then stepBeforeStop = before else step = before end
end

--- LuaJIT: after a stop at `line` of the frame running `func` at `depth` of thread `key`, a line
--- event of that frame on that line only repeats it (see M.isDuplicate).
function M.guardLine(key, line, depth, func)
  for i = #dupGuards, 1, -1 do
    local g = dupGuards[i]
    if g.key == key and g.depth >= depth then table.remove(dupGuards, i) end
  end
  dupGuards[#dupGuards + 1] = { key = key, line = line, depth = depth, func = func }
  hook.armGuard()
end

--- LuaJIT fires the line we stopped on again when execution resumes, and again each time a call
--- made from that line returns into it. Until the stopped frame moves to another line (or
--- returns), a line event of that frame on that line is a repeat. Returns isRepeat, guardDone.
function M.isDuplicate(line, hookFn)
  if #dupGuards == 0 then return false, true end
  local base = codeLevel(hookFn)
  if base == nil then return false, false end
  local info = getinfo(base, "f")
  local key, depth = compat.currentThread(), depthAt(base)
  for i = #dupGuards, 1, -1 do
    local g = dupGuards[i]
    if info and info.func == g.func and g.key == key and g.depth == depth then
      if line == g.line then return true, false end
      table.remove(dupGuards, i)
      return false, #dupGuards == 0
    end
  end
  return false, false -- another frame: keep watching
end

--- Forgets the repeat guards: nothing that acts on a line event (no step, pause or breakpoint)
--- remains, so a repeated line can no longer stop, and a loop may then revisit the line for real.
function M.dropGuards() dupGuards = {} end

--- A return event while guards are armed: a stopped frame returning ends its guard.
function M.guardReturn(hookFn)
  if #dupGuards == 0 then return true end
  local base = codeLevel(hookFn)
  local info = base and getinfo(base, "f")
  if not info then return false end
  local key, depth = compat.currentThread(), depthAt(base)
  for i = #dupGuards, 1, -1 do
    local g = dupGuards[i]
    if info.func == g.func and g.key == key and g.depth == depth then
      table.remove(dupGuards, i)
      return #dupGuards == 0
    end
  end
  return false
end

-- Called by the hook on every line while a step, pause, entry or BP() is pending.
function M.onSlowLine(line, hookFn)
  if not connected or state.stopped then return end
  local base = codeLevel(hookFn)
  if not base then return end
  local info = getinfo(base, "Sf")
  if not info or info.what == "C" or breakpoints.isOwnSource(info.source) or not paths.isFileSource(info.source) then
    return
  end
  local key = compat.currentThread()
  if breakpoints.count() > 0 then
    local lines = breakpoints.verdict(info.func)
    local bp = lines and lines[line]
    if bp and fires(bp, base) then
      stop(STOPS.breakpoint, base, { hitLines = { line } })
      return
    end
  end
  if pausePending then stop(STOPS.pause, base) return end
  if entryKey and (entryKey == key or entryKey == true) then stop(STOPS.entry, base) return end
  if bpKey and bpKey == key then stop(STOPS.codeBreakpoint, base) return end
  local s = step
  if s then
    if s.mode == "in" then stop(STOPS.stepIn, base) return end
    if s.key == key then
      local depth = depthAt(base)
      if s.skip then
        local skip = s.skip
        if skip.line == line and skip.depth == depth then s.skip = nil return end
        if depth <= skip.depth then s.skip = nil end
      end
      if s.mode == "over" and depth <= s.depth then stop(s.cmd or STOPS.step, base) return end
      if s.mode == "out" and depth < s.depth then stop(STOPS.stepOut, base) return end
    end
  end
end

--- The stepping thread stopped running (finished or yielded): continue the step in the thread
--- that resumed it, at its current depth or above.
function M.onThreadLeft(co, resumerKey, resumerDepth)
  if step and step.key == co and step.mode ~= "in" then
    step = { mode = "over", key = resumerKey, depth = resumerDepth, cmd = step.cmd or STOPS.step }
  end
end

return M
