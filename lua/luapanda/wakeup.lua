-- wakeup.lua: how a running program that never calls the runtime gets to run it at a safe point,
-- to try attaching while no IDE is there (and to read commands while attached but unhooked).
--   * The garbage collector's heartbeat: a finalizer re-armed every cycle. It never does I/O or
--     touches the debugger's state (a finalizer runs in the middle of any allocation — inside a
--     `require`, inside the runtime itself); when something is due it only arms a one-shot hook.
--   * The one-shot hook: a count hook of 1, set only on a thread without any hook, so it never
--     hides the program's own hook. It fires at the program's next instruction, outside the
--     finalizer, removes itself and runs the safe point there.
--   * LuaPanda.tick(): a game loop's direct, nearly free call (a clock compare while nothing is
--     due), for programs that allocate too little for the heartbeat to beat often.
local compat = require("luapanda.compat")

local M = {}

local sethook, gethook, getinfo = debug.sethook, debug.gethook, debug.getinfo
local running = coroutine.running

-- Set by M.init: isDue(), onSafePoint(), afterSafePoint(), isInside(), isOwnSource(source),
-- isOurs(hook).
local host = nil
local heartbeatOn = false
local disarmHeartbeat = nil

local oneShot
oneShot = function()
  sethook() -- this thread's hook (LuaJIT: the one global hook) was ours alone
  local info = getinfo(2, "S")
  if host.isInside() or (info and host.isOwnSource(info.source)) then
    -- The runtime's own code runs (the collector ran inside it): try again a little later.
    sethook(oneShot, "", 1000)
    return
  end
  pcall(host.onSafePoint)
  pcall(host.afterSafePoint)
end

-- Threads armed with a one-shot hook that may not have fired yet (Lua 5.1 and LuaJIT do not name
-- the main thread: M.stop() clears it when it runs there). A one-shot that fires inside the
-- runtime re-arms itself for 1000 instructions later, so one can outlive a detach.
local armed = setmetatable({}, { __mode = "k" })

--- Arms the one-shot hook on the running thread if it has no hook at all, or (LuaJIT) only the
--- runtime's own count hook: compiled code counts no instructions, so a loop that stays in traces
--- would reach that hook's next poll never; the one-shot fires as soon as a trace exits, and the
--- safe point puts the runtime's hooks back. Safe in a finalizer.
function M.armOneShot()
  local current, mask = gethook()
  if current ~= nil and not (compat.isJIT and mask == "" and host.isOurs(current)) then return false end
  sethook(oneShot, "", 1)
  local co = running()
  if co then armed[co] = true end
  return true
end

--- Removes one-shot hooks that have not fired yet (after stopAttach none may be seen).
local function disarmOneShots()
  if gethook() == oneShot then sethook() end
  for co in pairs(armed) do
    if gethook(co) == oneShot then sethook(co) end
    armed[co] = nil
  end
end

local function heartbeat()
  if host and not host.isInside() and host.isDue() then M.armOneShot() end
end

function M.init(callbacks) host = callbacks end

--- Starts the heartbeat (once; it beats until M.stop()).
function M.start()
  if heartbeatOn then return end
  heartbeatOn = true
  disarmHeartbeat = compat.onEveryGcCycle(heartbeat)
end

function M.stop()
  if disarmHeartbeat then disarmHeartbeat() end
  disarmHeartbeat, heartbeatOn = nil, false
  disarmOneShots()
end

--- LuaPanda.tick(): the safe point, run at once when something is due.
function M.tick()
  if not host or host.isInside() or not host.isDue() then return end
  pcall(host.onSafePoint)
end

return M
