-- attach.lua: getting and keeping an IDE: connecting (or listening), the handshake, reading the
-- IDE's commands while the program runs (the hook's poll and the safe points of wakeup.lua),
-- reattaching after a drop, and detaching — which puts back everything attaching changed.
-- Every wait is bounded; a failure leaves the program unattached, and the next attempt retries.
local compat = require("luapanda.compat")
local transport = require("luapanda.transport")
local breakpoints = require("luapanda.breakpoints")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")
local variables = require("luapanda.variables")
local native = require("luapanda.native")
local jitwake = require("luapanda.jitwake")
local coroutines = require("luapanda.coroutines")
local exceptions = require("luapanda.exceptions")
local patches = require("luapanda.patches")
local wakeup = require("luapanda.wakeup")
local idlepoll = require("luapanda.idlepoll")
local proghooks = require("luapanda.proghooks")
local jitview = require("luapanda.jitview")
local conditions = require("luapanda.conditions")
local events = require("luapanda.events")
local stepping = require("luapanda.stepping")
local hookmode = require("luapanda.hookmode")
local stops = require("luapanda.stops")
local dispatch = require("luapanda.dispatch")
local link = require("luapanda.link")
local state = require("luapanda.state")
local pairing = require("luapanda.pairing")

local M = {}

M.mode = nil                 -- "client" | "server"
M.host, M.port = nil, nil
M.attachMode = false         -- start() was called: keep trying to attach
M.handshaking = false

local lastAttempt = -math.huge
local lastPoll = 0
local serverSocket = nil
local reportedNativeErrors = 0

-- Attempts on this machine's loopback, and accepts of a listening game, return at once: they can
-- come often. An attempt to reach another machine may wait connectTimeoutSec for an answer.
local LOCAL_INTERVAL, REMOTE_INTERVAL = 0.25, 1
-- Under a pairing secret, each failed handshake in a row doubles the wait before the next
-- attempt, up to settings.pairingBackoffMaxSec: a scan or a flood of strangers cannot keep the
-- game in handshakes.
local failedHandshakes = 0

local function isLoopback(host)
  return host == "127.0.0.1" or host == "localhost" or host == "::1"
end

--- Seconds between two attempts to attach: the setting, or what suits where the IDE is.
function M.interval()
  local asked = tonumber(state.settings.attachInterval)
  local base = (asked and asked >= 0) and asked
    or ((M.mode == "server" or isLoopback(M.host)) and LOCAL_INTERVAL or REMOTE_INTERVAL)
  if failedHandshakes > 0 and pairing.required() then
    local most = tonumber(state.settings.pairingBackoffMaxSec) or 16
    return math.min(math.max(base, LOCAL_INTERVAL) * 2 ^ math.min(failedHandshakes, 16), most)
  end
  return base
end

--- While unattached, the native accelerator's wake timer makes the program poll every interval,
--- whatever it does (without it: the garbage-collection heartbeat and LuaPanda.tick()).
--- Without it, on Lua 5.1, an adaptive count hook on the main thread (idlepoll.lua).
local function wakeWhileUnattached()
  if M.attachMode and not link.current() then
    if not native.wake(M.interval()) then idlepoll.start(state.settings) end
  else
    native.unwake()
    idlepoll.stop()
  end
end

--- The exception filters of a new link, until the IDE sets its own.
local function defaultFilters()
  events.announce("filters", { uncaught = true, caught = false }, {})
end

-- Detaching -------------------------------------------------------------------------------------
function M.disconnect(reason)
  if reason then link.remember("disconnected: " .. tostring(reason)) end
  local l = link.current()
  link.set(nil)
  state.stopped = false
  state.initialized = false
  state.config.trace = false -- the next IDE asks for trace lines again, or gets none
  stepping.reset()
  breakpoints.clear()
  variables.reset()
  stack.reset()
  if l then l:close() end
  lastAttempt = state.clock()
  exceptions.remove()
  coroutines.uninstall()
  jitview.uninstall()
  patches.revertAll()
  conditions.releaseWorker()
  hookmode.update()
  -- Our hooks are off every thread now: the program's own go back.
  proghooks.uninstall()
  wakeWhileUnattached()
end

-- A part found the link broken, or the IDE ended the session (link.drop).
events.on("drop", M.disconnect)

-- Polling while running -----------------------------------------------------------------------
--- Tells the IDE what went wrong while it could not be told: a skipped stop, breakpoint checks
--- that failed (no C stack left near its limit, in the runtime or in the native hook).
local function reportProblems()
  if not link.current() then return end
  local problem = stops.takeProblem()
  if problem then link.log(problem, 2) end
  local failures, lastFailure = breakpoints.takeFailures()
  local nativeErrors = native.callbackErrors()
  if failures > 0 or nativeErrors > reportedNativeErrors then
    local count = failures + nativeErrors - reportedNativeErrors
    reportedNativeErrors = nativeErrors
    link.log("LuaPanda: " .. string.format("%d", count) .. " breakpoint check(s) could not be made ("
      .. tostring(lastFailure or "the C stack was full")
      .. "): a breakpoint reached there may not have stopped", 2)
  end
end

local function drain()
  lastPoll = state.clock()
  local l = link.current()
  while l and link.current() == l do
    local text, err = l:receive(0)
    if not text then
      if err == "closed" then M.disconnect("connection lost") end
      return
    end
    dispatch.handle(text)
  end
end

--- Count hook and native poll: read the IDE's commands while connected, try to attach while not.
function M.onPoll()
  if state.stopped then return end
  if link.current() then
    drain()
    reportProblems()
    return
  end
  if M.attachMode and not M.handshaking and state.clock() - lastAttempt >= M.interval() then
    M.tryAttach()
  end
end

--- Whether a safe point has something to do: attach (not connected, an attempt due) or read
--- commands (connected, and no hook does that). Cheap: called by the GC heartbeat and tick().
function M.isDue()
  if state.stopped or M.handshaking or hook.isInside() then return false end
  -- Connected: a game that runs few instructions per frame may take seconds to reach its count
  -- hook's next poll, so a safe point reads the link too, a few times a second at most.
  if link.current() then return state.clock() - lastPoll >= state.settings.tickPollSec end
  return M.attachMode and state.clock() - lastAttempt >= M.interval()
end

--- A safe point (the one-shot hook, tick()): never inside a finalizer or the runtime.
function M.onSafePoint()
  if hook.isInside() then return end
  hook.setInside(true)
  pcall(M.onPoll)
  hook.setInside(false)
end

--- After the one-shot hook ran (it replaced this thread's hooks): the runtime's own hooks back.
function M.afterSafePoint()
  if link.current() then
    hookmode.update()
  else
    wakeWhileUnattached() -- (Lua 5.1: the count hook back where the program's own hook was)
  end
end

-- The handshake -------------------------------------------------------------------------------
--- Reads frames on `l` until `done()` or the deadline. False when the link failed.
local function serveUntil(l, done, seconds)
  local clock = state.clock
  local deadline = clock() + seconds
  while link.current() == l and not done() do
    local left = deadline - clock()
    if left <= 0 then return true end
    local text, err = l:receive(math.max(0.05, math.min(left, 1)))
    if text then
      dispatch.handle(text)
    elseif err == "closed" then
      M.disconnect("connection lost during the handshake")
      return false
    end
  end
  return link.current() == l
end

--- What an attached IDE needs from the program's world: installed now, removed on detach.
local function onAttached()
  proghooks.install(hook.pool(), hook.isOurs, hook.onProgramHook)
  jitview.install()
  coroutines.install()
  -- (A failed search must not fail the attach: it is said, and the session goes on.)
  local searched, found, truncated = pcall(coroutines.adoptExisting, state.settings)
  if not searched then
    link.log("LuaPanda: the search for coroutines created before the IDE attached failed ("
      .. tostring(found) .. "): one of them resumed from C may not stop at its breakpoints", 2)
  elseif truncated then
    link.log("LuaPanda: the search for coroutines created before the IDE attached stopped early (a"
      .. " very large heap): one of them resumed from C may not stop at its breakpoints", 2)
  end
  native.attach(link.current(), state.settings)
  local cannot = exceptions.apply()
  if cannot then
    link.log("LuaPanda: errors that only the engine catches do not stop (an error under the host's"
      .. " lua_pcall that no Lua code handles): " .. cannot .. ". Errors in coroutines and in Lua's"
      .. " pcall/xpcall still stop.", 2)
  end
  hookmode.update()
end

--- The handshake on a new link: initSuccess, the IDE's breakpoints and filters, configurationDone.
local function handshake(l)
  state.initialized = false
  state.handshakeRefused = nil
  pairing.reset()
  breakpoints.clear()
  stepping.reset()
  defaultFilters()
  -- A paired link's IDE answers at once; a peer that holds the connection silent must not hold
  -- the game for long.
  local wait = pairing.required() and state.settings.pairingTimeoutSec or state.settings.handshakeTimeoutSec
  if not serveUntil(l, function() return state.initialized or state.handshakeRefused ~= nil end, wait) then
    return false
  end
  if not state.initialized then
    M.disconnect(state.handshakeRefused or "no initSuccess from the IDE within " .. wait .. " s")
    return false
  end
  if state.config.waitConfigurationDone then
    state.configurationDone = false
    if not serveUntil(l, function() return state.configurationDone end, 10) then return false end
  elseif not state.config.stopOnEntry then
    -- Upstream IDEs send breakpoints right after the handshake, without configurationDone.
    if not serveUntil(l, function() return false end, 0.2) then return false end
  end
  drain()
  if link.current() ~= l then return false end
  if state.config.stopOnEntry then stepping.stopOnEntry() end
  onAttached()
  link.log("LuaPanda: attached (" .. compat.luaVersion .. ")", 0)
  return true
end

-- Connecting ----------------------------------------------------------------------------------
function M.tryAttach(acceptTimeout, connectTimeout)
  if link.current() then return true end
  if M.handshaking then return false end
  lastAttempt = state.clock()
  local settings = state.settings
  local l
  if M.mode == "server" then
    if not serverSocket then
      serverSocket = transport.listen(M.host, M.port, settings.customGetSocketInstance)
      if not serverSocket then return false end
    end
    l = transport.accept(serverSocket, acceptTimeout or 0)
    if l then pcall(serverSocket.close, serverSocket) serverSocket = nil end
  else
    l = transport.connect(M.host, M.port, connectTimeout or settings.connectTimeoutSec,
      settings.customGetSocketInstance)
  end
  if not l then return false end
  link.set(l)
  native.unwake()
  idlepoll.stop()
  M.handshaking = true
  local wasInside = hook.setInside(true)
  local ok, result = pcall(handshake, l)
  M.handshaking = false
  if not ok or not result then
    failedHandshakes = failedHandshakes + 1
    if link.current() == l then M.disconnect(ok and "handshake failed" or ("handshake failed: " .. tostring(result))) end
    wakeWhileUnattached()
    hook.setInside(wasInside)
    return false
  end
  failedHandshakes = 0
  hook.setInside(wasInside)
  -- The handshake ran a lot of the runtime's code: LuaJIT's hot counters back to their start
  -- values (compat.resetJitCounters; a failed attempt is short and leaves them as they are).
  compat.resetJitCounters()
  return true
end

--- start()/startServer(): remembers where the IDE is and makes the first attempt. Returns
--- whether the IDE is attached, or nil and why the debugger cannot work at all.
function M.connect(mode, host, port)
  local settings = state.settings
  local usable, why = transport.available(settings.customGetSocketInstance)
  if not usable then return nil, why end
  M.mode, M.host, M.port = mode, host, port
  M.attachMode = true
  state.clock = compat.clockSource(transport.socketCore())
  wakeup.init({ isDue = M.isDue, onSafePoint = M.onSafePoint, afterSafePoint = M.afterSafePoint,
    isInside = hook.isInside, isOwnSource = breakpoints.isOwnSource, isOurs = hook.isOurs })
  wakeup.start()
  idlepoll.init({ isDue = M.isDue, onSafePoint = M.onSafePoint, afterSafePoint = M.afterSafePoint,
    isInside = hook.isInside, isOwnSource = breakpoints.isOwnSource,
    clock = function() return state.clock() end })
  -- start()'s own attempt may wait longer on this machine's loopback: nobody listening answers at
  -- once there (no cost without an IDE), and a busy machine may take a while to complete a
  -- connect. Retries and remote hosts keep the short timeout (a host that drops the attempt
  -- would stall the game for the whole timeout).
  local connectTimeout = isLoopback(host) and math.max(settings.connectTimeoutSec, 1) or nil
  local attached = M.tryAttach(mode == "server" and settings.listeningTimeoutSec or nil, connectTimeout)
  jitwake.start(native.module(), settings)
  wakeWhileUnattached()
  return attached
end

--- stopAttach(): detach, and stop trying to attach.
function M.stopAttach()
  M.attachMode = false
  if link.current() then M.disconnect("stopAttach") end
  wakeup.stop()
  native.unwake()
  idlepoll.stop()
  jitwake.stop(native.module())
  native.detach()
  if serverSocket then pcall(serverSocket.close, serverSocket) serverSocket = nil end
  hook.configure({ enabled = false })
end

return M
