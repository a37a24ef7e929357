-- stops.lua: stopping the program: the hook's breakpoint callbacks (line and function
-- breakpoints), the stop notification, and the loop that serves the IDE's commands (dispatch.lua)
-- until one resumes the program. Every stop goes through M.stop: steps (stepping.lua) and error
-- stops (exceptions.lua) too. Whatever fails here, the program goes on: a stop that cannot reach
-- the IDE is skipped, and the IDE is told at the next poll (attach.lua asks M.takeProblem).
local compat = require("luapanda.compat")
local json = require("luapanda.json")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")
local variables = require("luapanda.variables")
local coroutines = require("luapanda.coroutines")
local contract = require("luapanda.contract")
local stepping = require("luapanda.stepping")
local hookmode = require("luapanda.hookmode")
local hits = require("luapanda.hits")
local dispatch = require("luapanda.dispatch")
local link = require("luapanda.link")
local events = require("luapanda.events")
local state = require("luapanda.state")

local M = {}

local STOPS = contract.STOPS
local codeLevel = stack.codeLevel
local fires = hits.fires
local connected = false
events.on("link", function(l) connected = l ~= nil end)

--- The stop notification of a stop: the frames, or (`small`) the top frame only.
local function stopMessage(cmd, info, frames, small)
  local list = frames
  if small then list = { frames[1] } end
  return { cmd = cmd, callbackId = 0, info = info or {}, stack = list } -- a number, as upstream
end

--- Sends the stop notification. A stop that cannot be encoded (a value whose encoding fails,
--- no memory, no C stack left) is sent again with its top frame only; one that cannot be sent
--- at all is given up. Returns whether the IDE got it, and the problem otherwise.
local function sendStop(cmd, info, frames)
  local ok, text = pcall(json.encode, stopMessage(cmd, info, frames, false))
  if not ok then
    local why = text
    ok, text = pcall(json.encode, stopMessage(cmd, info, frames, true))
    if not ok then return false, "the stop could not be encoded: " .. tostring(why) end
    link.remember("stop sent with its top frame only: " .. tostring(why))
  end
  local l = link.current()
  if not l then return false, "no IDE" end
  local sentOk, sent = pcall(l.send, l, text)
  if not sentOk or not sent then return false, "the stop could not be sent: " .. tostring(sent) end
  return true
end

-- A problem to tell the IDE once the stack has unwound enough to send it.
local pendingProblem = nil

--- The problem of a stop that was skipped, once (nil when none).
function M.takeProblem()
  local text = pendingProblem
  pendingProblem = nil
  return text
end

--- The stop itself; returns nothing when it went as planned, or the problem. `base` is relative
--- to the caller of stopBody.
local function stopBody(cmd, base, info, thread, threadError)
  variables.reset()
  local frames = stack.capture(base + 1, coroutines.resumerOf, thread,
    threadError or (info and info.exceptionText))
  local key = compat.currentThread()
  local total = stack.levelsFromCaller()
  local depth = total - (base + 1) + 1
  -- Stepping goes on in the running thread: its own top frame is where a step starts.
  local own = stack.threadFrames
  local line = frames[own + 1] and tonumber(frames[own + 1].line)
  local topFrame = stack.get(own + 2)
  local topFunc = topFrame and topFrame.func
  local stepBefore = stepping.stopBegins()
  state.stopThread, state.stopDepth, state.stopLine = key, depth, line
  local caller = frames[own + 2]
  state.callerLine = caller and frames[own + 1] and caller.coroutine == frames[own + 1].coroutine
    and tonumber(caller.line) or nil
  local sent, why = sendStop(cmd, info, frames)
  stepping.stopEnds(stepBefore, sent)
  if not sent then return why end
  state.stopped = true
  link.sendMemory()
  local clock = state.clock
  local silentSince = clock()
  while state.stopped and link.current() do
    -- A silent IDE is asked, now and then, whether it is still there: a link that died without
    -- a word then fails a send instead of holding the program for ever.
    local text, err = link.current():receive(state.settings.stoppedProbeSec)
    if text then
      silentSince = clock()
      local resumed = dispatch.handle(text)
      if state.stopped and link.current() and not resumed then link.sendMemory() end
    elseif err == "closed" then
      link.drop("connection lost while stopped")
      break
    elseif clock() - silentSince >= state.settings.stoppedProbeSec then
      silentSince = clock()
      link.sendMemory()
    end
  end
  state.stopped = false
  variables.reset()
  stack.reset()
  if compat.isJIT and line then stepping.guardLine(key, line, depth, topFunc) end
end

--- Stops the program: sends the notification and serves commands until one resumes it.
--- `base` is the level of the stopped code relative to the caller of M.stop; `thread`, a dead
--- coroutine (or a list of them, innermost first) whose frames are shown on top (the error that
--- ended it; `threadError`, that error when it differs from the one stopped on).
function M.stop(cmd, base, info, thread, threadError)
  if not link.current() then return end
  local wasInside = hook.setInside(true)
  -- stopBody's caller is pcall: the code stands two levels further from it than from here.
  local ok, problem = pcall(stopBody, cmd, base + 2, info, thread, threadError)
  if not ok or problem then
    -- Reset what the stop set up; if the link itself failed, let it go (reattach works).
    state.stopped = false
    variables.reset()
    stack.reset()
    local text = "LuaPanda: a stop (" .. tostring(cmd) .. ") was skipped: " .. tostring(problem)
    link.remember(text)
    pendingProblem = text
    local l = link.current()
    if l and l.closed then link.drop("connection lost while stopping") end
  end
  if link.current() then pcall(hookmode.update) end
  -- A stop runs a lot of the runtime's code (stack, variables, the IDE's requests): LuaJIT's hot
  -- counters back to their start values before the program goes on (compat.resetJitCounters).
  compat.resetJitCounters()
  hook.setInside(wasInside)
end
local stop = M.stop

-- Called by the hook on a line that holds a breakpoint (fast path).
function M.onBreakpoint(bp, line, hookFn, codeAt, fn)
  if not connected or state.stopped then return end
  -- (The native hook knows where the code is: `codeAt`, the level seen from here, and its `fn`.)
  local base = codeAt or codeLevel(hookFn)
  if not base then return end
  if fires(bp, base, fn) then
    stop(STOPS.breakpoint, base, { hitLines = { line } })
  end
end

-- Called by the hook on the first line event of a call of a function with a function breakpoint
-- (fnbreakpoints.lua); returns whether the program stopped.
function M.onEntry(bp, line, hookFn, codeAt, fn)
  if not connected or state.stopped then return false end
  local base = codeAt or codeLevel(hookFn)
  if not base then return false end
  if fires(bp, base, fn, line) then
    stop(STOPS.breakpoint, base, { hitFunctions = { bp.name } })
    return true
  end
  return false
end

return M
