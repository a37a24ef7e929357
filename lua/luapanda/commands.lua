-- commands.lua: what each IDE command does (the handlers of dispatch.lua's table, by the
-- command's wire name; protocol doc and Docs/Protocol_Extensions.md). A handler replies with
-- link.send and returns true when it resumed the program. Modules only commands need are
-- required where they are first used.
local compat = require("luapanda.compat")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")
local stack = require("luapanda.stack")
local variables = require("luapanda.variables")
local eval = require("luapanda.eval")
local safe = require("luapanda.safe")
local conditions = require("luapanda.conditions")
local contract = require("luapanda.contract")
local errorfilters = require("luapanda.errorfilters")
local exceptions = require("luapanda.exceptions")
local events = require("luapanda.events")
local initinfo = require("luapanda.initinfo")
local pairing = require("luapanda.pairing")
local stepping = require("luapanda.stepping")
local hookmode = require("luapanda.hookmode")
local dispatch = require("luapanda.dispatch")
local link = require("luapanda.link")
local state = require("luapanda.state")

local commands = dispatch.handlers
local send = link.send
local STOPS = contract.STOPS

local function str(v, default)
  if v == nil then return default end
  return tostring(v)
end

--- Refuses the handshake: one clear frame (a log line first, which an IDE that does not know
--- the `error` field still shows), then attach.lua drops the link.
local function refuseHandshake(reason, id)
  link.remember(reason)
  send("output", { logInfo = "LuaPanda: " .. reason }, "0")
  send("initSuccess", { error = reason }, id)
  state.handshakeRefused = reason
end

function commands.initSuccess(info, id)
  -- Paired, a second initSuccess on the link changes nothing: the pairing was for this one.
  if state.initialized and pairing.required() then
    send("initSuccess", initinfo.reply(state.config, state.settings, state.gameName), id)
    return
  end
  local verdict, detail = pairing.check(info)
  if verdict == "refuse" then return refuseHandshake(detail, id) end
  if verdict == "challenge" then
    send("initSuccess", detail, id)
    return
  end
  local bad = initinfo.badField(info)
  if bad then
    -- Coerced, such a field would silently break breakpoint matching: refuse the handshake.
    link.remember(bad)
    send("initSuccess", { error = bad }, id)
    state.handshakeRefused = bad
    return
  end
  local c = state.config
  c.logLevel = tonumber(info.logLevel) or 1
  c.stopOnEntry = str(info.stopOnEntry) == "true"
  c.base64 = str(info.isNeedB64EncodeStr) == "true"
  c.pagingLimit = tonumber(info.pagingLimit)
  c.waitConfigurationDone = str(info.waitConfigurationDone) == "true"
  c.trace = str(info.trace) == "true"
  hookmode.forgetTraced()
  c.adapterVersion = str(info.adapterVersion, "")
  local osType = type(info.OSType) == "string" and info.OSType or "Windows_NT"
  paths.configure({
    autoPathMode = str(info.autoPathMode, "true") == "true",
    caseSensitive = str(info.pathCaseSensitivity, "false") == "true",
    luaFileExtension = string.gsub((str(info.luaFileExtension, "")), "^%.", ""),
    cwd = paths.unify(str(info.cwd, "")),
    truncatedOPath = str(info.truncatedOPath, ""),
    distinguishSameNameFile = str(info.distinguishSameNameFile, "false") == "true",
    windows = osType == "Windows_NT",
  })
  -- Compiles variables.lua (and previews, class names) now, though the bundle keeps it for first
  -- use: a stop resets it, and a stop may come near the C-stack limit, where compiling cannot.
  variables.reset()
  state.initialized = true
  local reply = initinfo.reply(c, state.settings, state.gameName)
  if verdict == "paired" then reply.pairProof = detail end
  send("initSuccess", reply, id)
end

function commands.setBreakPoint(info, id)
  -- Our IDE asks to be told when a breakpoint file is loaded and where its breakpoints bind
  -- (breakpointsBound, Docs/Protocol_Extensions.md); upstream's does not, and is not told.
  if info.notifyBound == true or info.notifyBound == "true" then
    breakpoints.init({ notifier = function(bound) send("breakpointsBound", bound, "0") end })
  end
  -- The code on the stack right now is loaded: its files do not wait for a "loaded" notice.
  breakpoints.noteStack()
  local results, loaded = breakpoints.setFile(str(info.path, ""), info.bks)
  conditions.reset()
  for _, r in ipairs(results) do
    if not r.verified then link.log("breakpoint at line " .. r.line .. " not set: " .. tostring(r.message), 2) end
  end
  send("setBreakPoint", { results = results, loaded = loaded }, id)
  if not state.stopped then hookmode.update() end
end

--- Loads a changed file into the program (hotreload.lua), stopped or at the next poll while
--- running; the reply is the report.
function commands.hotReload(info, id)
  local hotreload = require("luapanda.hotreload")
  hotreload.init({ clock = state.clock })
  send("hotReload", hotreload.reload(info.path, info.source), id)
end

--- Extension (feature listCoroutines): the coroutines the runtime knows, where each stands.
function commands.listCoroutines(info, id)
  local max = math.max(0, math.min(tonumber(info.max) or 20, 200))
  local list, total = require("luapanda.coroutines").list(max)
  send("listCoroutines", { coroutines = list, total = tostring(total) }, id)
end

-- Extension (feature functionBreakpoints): replaces every function breakpoint. IDEs send an empty
-- list at every configuration: until a name comes, fnbreakpoints.lua is not even compiled.
local fnBreakpointsUsed = false
function commands.setFunctionBreakPoint(info, id)
  local names = type(info.names) == "table" and info.names or {}
  if not fnBreakpointsUsed and next(names) == nil then
    send("setFunctionBreakPoint", { results = {} }, id)
    return
  end
  fnBreakpointsUsed = true
  local fnbreakpoints = require("luapanda.fnbreakpoints")
  fnbreakpoints.init({ notifier = function(bound) send("functionBreakpointsBound", bound, "0") end })
  -- The code on the stack right now is loaded: definition sites in its files are bound at once.
  breakpoints.noteStack()
  local results = fnbreakpoints.set(names)
  send("setFunctionBreakPoint", { results = results }, id)
  if not state.stopped then hookmode.update() end
end

-- Extension (feature collect): replaces every collecting breakpoint. The reply says, per
-- collector in order, whether it was set (or why not: an expression that does not compile, …).
function commands.setCollect(info, id)
  local collect = require("luapanda.collect")
  breakpoints.setCollectorRunner(collect.hit)
  local list, results = {}, {}
  for _, spec in ipairs(type(info.collectors) == "table" and info.collectors or {}) do
    local c, err = collect.make(spec)
    if c then list[#list + 1] = c end
    results[#results + 1] = { id = type(spec) == "table" and tostring(spec.id) or "", verified = c ~= nil, message = err }
  end
  breakpoints.noteStack()
  breakpoints.setCollectors(list)
  conditions.reset()
  send("setCollect", { results = results }, id)
  if not state.stopped then hookmode.update() end
end

-- `conditions` (feature exceptionConditions): filter -> texts the error message must contain.
function commands.setExceptionBreakpoints(info, id)
  events.announce("filters", errorfilters.parse(info))
  send("setExceptionBreakpoints", {}, id)
  if state.initialized then
    exceptions.apply()
    if not state.stopped then hookmode.update() end
  end
end

function commands.configurationDone(_, id)
  state.configurationDone = true
  send("configurationDone", {}, id)
end

function commands.continue(info, id)
  send("continue", {}, id)
  stepping.continue(str(info.isFakeHit) == "true")
  state.stopped = false
  return true
end

local function startStep(mode, cmd, id)
  send(cmd, {}, id)
  local wasStopped = state.stopped
  stepping.start(mode, cmd)
  if wasStopped then state.stopped = false else hookmode.update() end
  return true
end

function commands.stopOnStep(_, id) return startStep("over", STOPS.step, id) end
function commands.stopOnStepIn(_, id) return startStep("in", STOPS.stepIn, id) end
function commands.stopOnStepOut(_, id) return startStep("out", STOPS.stepOut, id) end

function commands.pause(_, id)
  send("pause", {}, id)
  if not state.stopped then
    stepping.pause()
    hookmode.update()
  end
end

function commands.getVariable(info, id)
  if not state.stopped then send("getVariable", {}, id) return end
  send("getVariable", variables.list(info.varRef, info.stackId, info.start, info.count), id)
end

function commands.setVariable(info, id)
  if not state.stopped then
    send("setVariable", { success = "false", tip = "the program is running" }, id)
    return
  end
  send("setVariable", variables.set(info.varRef, info.stackId, info.varName, info.newValue), id)
end

function commands.getWatchedVariable(info, id)
  local frame = state.stopped and stack.get(info.stackId)
  local name = str(info.varName, "")
  if not frame then send("getWatchedVariable", {}, id) return end
  local ok, values = eval.watchAll(frame, name)
  send("getWatchedVariable", { variables.evalResult(name, ok, values, "false") }, id)
end

local REPL_STRING_LIMIT = 10000

function commands.runREPLExpression(info, id)
  local text = string.gsub(string.gsub(str(info.Expression, ""), "^%s+", ""), "%s+$", "")
  text = string.gsub(text, "^p%s+", "")
  local frame = state.stopped and stack.get(info.stackId)
  local ok, values
  if frame then
    ok, values = eval.repl(frame, text)
  else
    -- Not stopped: evaluate against globals only.
    local fn, err = eval.compile(text, _G, true)
    if fn then
      local r = compat.pack(safe.call(fn))
      ok, values = r[1], r[1] and compat.pack(compat.unpack(r, 2, r.n)) or r[2]
    else
      ok, values = false, err
    end
  end
  -- The REPL is where a long string is asked for on purpose: show more of it than a preview.
  send("runREPLExpression", { variables.evalResult("Exp", ok, values, false, REPL_STRING_LIMIT) }, id)
end

function commands.stopRun(_, id)
  send("stopRun", {}, id)
  link.drop("stopRun")
  return true
end

function commands.LuaGarbageCollect()
  collectgarbage("collect")
  link.sendMemory()
end

return commands
