-- session.lua: one debug session with an IDE: the handshake, the dispatch table of IDE commands,
-- the stop loop, stepping/pause/entry decisions for the hook, breakpoint conditions, hit counts
-- and logpoints, exception stops, and attach/reconnect. Every command handler runs under pcall:
-- nothing the IDE sends can raise an error into the debugged program. The link and the exception
-- filters change only through setLink/setFilters, which announce them (events.lua) to the modules
-- that follow them (coroutines.lua, exceptions.lua) instead of those reading this table.
local compat = require("luapanda.compat")
local json = require("luapanda.json")
local transport = require("luapanda.transport")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")
local variables = require("luapanda.variables")
local eval = require("luapanda.eval")
local safe = require("luapanda.safe")
local native = require("luapanda.native")
local coroutines = require("luapanda.coroutines")
local exceptions = require("luapanda.exceptions")
local patches = require("luapanda.patches")
local wakeup = require("luapanda.wakeup")
local proghooks = require("luapanda.proghooks")
local jitview = require("luapanda.jitview")
local conditions = require("luapanda.conditions")
local consolepipe = require("luapanda.consolepipe")
local hotreload = require("luapanda.hotreload")
local fnbreakpoints = require("luapanda.fnbreakpoints")
local contract = require("luapanda.contract")
local errorfilters = require("luapanda.errorfilters")
local events = require("luapanda.events")
local linemap = require("luapanda.linemap")

local S = {}

local getinfo = debug.getinfo

-- Versions, features and stop commands come from the contract (src/protocol/contract.ts).
local STOPS = contract.STOPS
S.VERSION = contract.PROTOCOL_VERSION -- upstream protocol version we speak
S.RUNTIME_VERSION = contract.RUNTIME_VERSION
S.gameName = nil              -- start(host, port, {name = ...}): the game's name in the IDE
S.FEATURES = contract.RUNTIME_FEATURES

--- The features this connection has: S.FEATURES, and "jitCompiles" when LuaJIT's compiler stays
--- on while attached (compiled code runs no hook: a pause takes effect when it leaves compiled
--- code, and the IDE says so when one waits).
function S.features()
  if not compat.isJIT or S.settings.jitOffWhileAttached then return S.FEATURES end
  local list = {}
  for i, name in ipairs(S.FEATURES) do list[i] = name end
  list[#list + 1] = contract.FEATURES.jitCompiles
  return list
end

-- User-editable settings (upstream names), exposed through LuaPanda.
S.settings = {
  attachInterval = 1,          -- seconds between reconnect attempts
  connectTimeoutSec = 0.05,
  listeningTimeoutSec = 0.5,
  handshakeTimeoutSec = 10,    -- the IDE accepted the connection but sent nothing: give up
  pollInstructions = 100000,   -- count hook period while connected (0: notice commands at GC
                               -- cycles and LuaPanda.tick() only)
  jitOffWhileAttached = false, -- LuaJIT: true keeps the compiler off while attached, so that
                               -- pause stops even a compiled loop that never leaves its trace
  useNative = true,            -- use the native accelerator (luapanda_native<abi>) when found
  customGetSocketInstance = nil,
  stoppedProbeSec = 10,        -- while stopped and the IDE says nothing, check the link this often
  tickPollSec = 0.05,          -- LuaPanda.tick() reads the IDE's commands at most this often
}

S.link = nil
S.mode = nil                 -- "client" | "server"
S.host, S.port = nil, nil
S.attachMode = false
S.stopped = false
S.config = { logLevel = 1, stopOnEntry = false, base64 = false }
S.filters = { uncaught = true, caught = false }
S.filterConditions = {}       -- filter -> texts the error message must contain (errorfilters.lua)

-- The link and the filters change only through these, which tell the modules that follow them.
local function setLink(link)
  S.link = link
  events.announce("link", link)
end

local function setFilters(filters, texts)
  S.filters, S.filterConditions = filters, texts
  events.announce("filters", filters)
end

S.logLines = {}
S.configurationDone = true

local step = nil             -- { mode = "over"|"in"|"out", key = threadKey, depth = n }
local pausePending, entryKey, bpKey = false, nil, nil
-- LuaJIT: the frames stopped in whose line may fire again (one per frame: a stop inside a function
-- called from a stopped line must not forget that line, or it stops there twice).
local dupGuards = {}
local lastAttempt = -math.huge
local clock = os.time
local serverSocket = nil
local resumerOf              -- set by coroutines module

function S.setResumerLookup(fn) resumerOf = fn end

-- Logging ----------------------------------------------------------------------------------
local function remember(text)
  text = linemap.rewrite(text)
  local lines = S.logLines
  lines[#lines + 1] = text
  if #lines > 50 then table.remove(lines, 1) end
end

local function rawSend(msg)
  local link = S.link
  if not link then return false end
  local ok, text = pcall(json.encode, msg)
  -- Deep in C calls, a finalizer that a collection runs during the encoding can take the last
  -- C-call level ("C stack overflow"); that collection is over when it is tried again.
  if not ok then ok, text = pcall(json.encode, msg) end
  if not ok then
    remember("encode failed: " .. tostring(text))
    return false
  end
  local sent = link:send(text)
  if not sent then S.disconnect("connection lost") return false end
  return true
end

function S.send(cmd, info, callbackId, stackFrames)
  return rawSend({ cmd = cmd, callbackId = callbackId == nil and "0" or callbackId, info = info or {}, stack = stackFrames })
end

--- Log frame: kind 0 output, 1 tip, 2 debug_console (upstream printToVSCode).
function S.log(text, level, kind)
  level = level or 1
  -- Errors name the runtime's own lines by module (luapanda/hook.lua:157), not by bundle line.
  text = level >= 2 and linemap.rewrite(tostring(text)) or tostring(text)
  remember(text)
  if S.link and level >= (S.config.logLevel or 1) then
    local cmd = (kind == 1 and "tip") or (kind == 2 and "debug_console") or (kind == 3 and "tipError") or "output"
    -- Launch mode: in the program's stdout, in order with what it printed (consolepipe.lua).
    if cmd == "debug_console" and consolepipe.write(text) then return end
    S.send(cmd, { logInfo = text }, "0")
  end
end

--- One trace line for the IDE (feature "trace"), sent only when the IDE asked for them in
--- initSuccess: the runtime's own view of what it does, for bug reports.
function S.trace(text)
  if S.config.trace and S.link then S.send("trace", { logInfo = text }, "0") end
end

local function sendMemory()
  S.send("refreshLuaMemory", { memInfo = tostring(collectgarbage("count")) }, "0")
end

-- Hook state --------------------------------------------------------------------------------
local function slowNeeded()
  return step ~= nil or pausePending or entryKey ~= nil or bpKey ~= nil
end

-- The hook mode last traced, so that only changes are told.
local tracedMode = nil

--- The hook mode in words, as hook.lua chose it.
local function hookMode()
  local h = hook.state()
  local mode = not h.enabled and "off"
    or h.slow and "line hooks everywhere (a step, pause, entry stop or BP() is pending)"
    or h.bpMode and "call hooks (breakpoints are set)"
    or "idle (polling for commands only)"
  return "hook mode: " .. mode .. (h.native and ", native" or "")
end

function S.updateHooks()
  hook.configure({ enabled = S.link ~= nil, pollEvery = S.settings.pollInstructions, slow = slowNeeded(),
    jitOff = S.settings.jitOffWhileAttached })
  if S.config.trace and S.link then
    local mode = hookMode()
    if mode ~= tracedMode then
      tracedMode = mode
      S.trace(mode)
    end
  end
end

-- Levels --------------------------------------------------------------------------------------
--- Level (relative to the caller) of the frame that fired the hook `hookFn`.
local function codeLevel(hookFn)
  for l = 2, 200 do
    local info = getinfo(l, "f")
    if not info then return nil end
    if info.func == hookFn then return l end -- caller sees the hook at l - 1, its code at l
  end
end

local function depthAt(base)
  return stack.levelsFromCaller() - base
end

-- Stops -----------------------------------------------------------------------------------------
local function isResumeCommand(cmd)
  return cmd == "continue" or cmd == "stopOnStep" or cmd == "stopOnStepIn" or cmd == "stopOnStepOut" or cmd == "stopRun"
end

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
    remember("stop sent with its top frame only: " .. tostring(why))
  end
  local link = S.link
  if not link then return false, "no IDE" end
  local sentOk, sent = pcall(link.send, link, text)
  if not sentOk or not sent then return false, "the stop could not be sent: " .. tostring(sent) end
  return true
end

-- A problem to tell the IDE once the stack has unwound enough to send it.
local pendingProblem = nil

--- Stops the program: sends the notification and serves commands until one resumes it.
--- `base` is the level of the stopped code relative to the caller of S.stop; `thread`, a dead
--- coroutine (or a list of them, innermost first) whose frames are shown on top (the error that ended it; `threadError`, that error
--- when it differs from the one stopped on). Whatever fails here, the program goes on: a stop that
--- cannot reach the IDE is reported and skipped.
function S.stop(cmd, base, info, thread, threadError)
  if not S.link then return end
  local wasInside = hook.setInside(true)
  -- stopBody's caller is pcall: the code stands two levels further from it than from here.
  local ok, problem = pcall(S.stopBody, cmd, base + 2, info, thread, threadError)
  if not ok or problem then
    -- Reset what the stop set up; if the link itself failed, let it go (reattach works).
    S.stopped = false
    variables.reset()
    stack.reset()
    local text = "LuaPanda: a stop (" .. tostring(cmd) .. ") was skipped: " .. tostring(problem)
    remember(text)
    pendingProblem = text
    if S.link and S.link.closed then S.disconnect("connection lost while stopping") end
  end
  if S.link then pcall(S.updateHooks) end
  -- A stop runs a lot of the runtime's code (stack, variables, the IDE's requests): LuaJIT's hot
  -- counters back to their start values before the program goes on (compat.resetJitCounters).
  compat.resetJitCounters()
  hook.setInside(wasInside)
end

--- The stop itself; returns nothing when it went as planned, or the problem. `base` is relative
--- to the caller of S.stopBody.
function S.stopBody(cmd, base, info, thread, threadError)
  variables.reset()
  local frames = stack.capture(base + 1, resumerOf or function() return nil end, thread,
    threadError or (info and info.exceptionText))
  local key = compat.currentThread()
  local total = stack.levelsFromCaller()
  local depth = total - (base + 1) + 1
  -- Stepping goes on in the running thread: its own top frame is where a step starts.
  local own = stack.threadFrames
  local line = frames[own + 1] and tonumber(frames[own + 1].line)
  local topFrame = stack.get(own + 2)
  local topFunc = topFrame and topFrame.func
  local stepBefore = step
  step, pausePending, entryKey, bpKey = nil, false, nil, nil
  S.stopThread, S.stopDepth, S.stopLine = key, depth, line
  local caller = frames[own + 2]
  S.callerLine = caller and frames[own + 1] and caller.coroutine == frames[own + 1].coroutine
    and tonumber(caller.line) or nil
  local sent, why = sendStop(cmd, info, frames)
  if not sent then
    step = stepBefore
    return why
  end
  S.stepBeforeStop = stepBefore
  S.stopped = true
  sendMemory()
  local silentSince = clock()
  while S.stopped and S.link do
    -- A silent IDE is asked, now and then, whether it is still there: a link that died without
    -- a word then fails a send instead of holding the program for ever.
    local text, err = S.link:receive(S.settings.stoppedProbeSec)
    if text then
      silentSince = clock()
      local resumed = S.handle(text)
      if S.stopped and S.link and not resumed then sendMemory() end
    elseif err == "closed" then
      S.disconnect("connection lost while stopped")
      break
    elseif clock() - silentSince >= S.settings.stoppedProbeSec then
      silentSince = clock()
      sendMemory()
    end
  end
  S.stopped = false
  variables.reset()
  stack.reset()
  if compat.isJIT and line then
    for i = #dupGuards, 1, -1 do
      local g = dupGuards[i]
      if g.key == key and g.depth >= depth then table.remove(dupGuards, i) end
    end
    dupGuards[#dupGuards + 1] = { key = key, line = line, depth = depth, func = topFunc }
    hook.armGuard()
  end
end

--- The logpoint's text, its expressions evaluated in the frame at `level` (relative to the caller).
local function interpolate(bp, level, line)
  local out = {}
  for _, part in ipairs(bp.log) do
    if type(part) == "string" then
      out[#out + 1] = part
    else
      local ok, value = conditions.evaluate(part.expr, level + 1, line)
      out[#out + 1] = ok and (type(value) == "string" and value or safe.tostring(value)) or ("{" .. part.expr .. ": " .. tostring(value) .. "}")
    end
  end
  return table.concat(out)
end

--- Decides whether a breakpoint reached at `line` fires. `base` relative to the caller.
local function breakpointFires(bp, base, fn, line)
  line = line or bp.line
  if bp.condition then
    local ok, value = conditions.evaluate(bp.condition, base + 1, line, fn)
    if not ok then
      -- Said once per breakpoint: a condition that fails is false, and the user should know why.
      if not bp.conditionError then
        bp.conditionError = tostring(value)
        local what = bp.isFunction and ("function breakpoint " .. bp.name)
          or ("breakpoint at line " .. tostring(bp.line))
        S.log("LuaPanda: the condition of the " .. what .. " ("
          .. bp.condition .. ") failed: " .. bp.conditionError .. "; it counts as false", 2)
      end
      return false
    end
    if not value then return false end
  end
  if not breakpoints.countHit(bp) then return false end
  if bp.kind == 1 then
    S.log("[LogPoint Output]: " .. interpolate(bp, base + 1, line), 2, 2)
    return false
  end
  return true
end

--- LuaJIT fires the line we stopped on again when execution resumes, and again each time a call
--- made from that line returns into it. Until the stopped frame moves to another line (or
--- returns), a line event of that frame on that line is a repeat. Returns isRepeat, guardDone.
function S.isDuplicate(line, hookFn)
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

--- A return event while guards are armed: a stopped frame returning ends its guard.
function S.guardReturn(hookFn)
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

-- Called by the hook on a line that holds a breakpoint (fast path).
function S.onBreakpoint(bp, line, hookFn, codeAt, fn)
  if not S.link or S.stopped then return end
  -- (The native hook knows where the code is: `codeAt`, the level seen from here, and its `fn`.)
  local base = codeAt or codeLevel(hookFn)
  if not base then return end
  if breakpointFires(bp, base, fn) then
    S.stop(STOPS.breakpoint, base, { hitLines = { line } })
  end
end

-- Called by the hook on the first line event of a call of a function with a function breakpoint
-- (fnbreakpoints.lua); returns whether the program stopped.
function S.onEntry(bp, line, hookFn, codeAt, fn)
  if not S.link or S.stopped then return false end
  local base = codeAt or codeLevel(hookFn)
  if not base then return false end
  if breakpointFires(bp, base, fn, line) then
    S.stop(STOPS.breakpoint, base, { hitFunctions = { bp.name } })
    return true
  end
  return false
end

-- Called by the hook on every line while a step, pause, entry or BP() is pending.
function S.onSlowLine(line, hookFn)
  if not S.link or S.stopped then return end
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
    if bp and breakpointFires(bp, base) then
      S.stop(STOPS.breakpoint, base, { hitLines = { line } })
      return
    end
  end
  if pausePending then S.stop(STOPS.pause, base) return end
  if entryKey and (entryKey == key or entryKey == true) then S.stop(STOPS.entry, base) return end
  if bpKey and bpKey == key then S.stop(STOPS.codeBreakpoint, base) return end
  local s = step
  if s then
    if s.mode == "in" then S.stop(STOPS.stepIn, base) return end
    if s.key == key then
      local depth = depthAt(base)
      if s.skip then
        local skip = s.skip
        if skip.line == line and skip.depth == depth then s.skip = nil return end
        if depth <= skip.depth then s.skip = nil end
      end
      if s.mode == "over" and depth <= s.depth then S.stop(s.cmd or STOPS.step, base) return end
      if s.mode == "out" and depth < s.depth then S.stop(STOPS.stepOut, base) return end
    end
  end
end

--- The stepping thread stopped running (finished or yielded): continue the step in the thread
--- that resumed it, at its current depth or above.
function S.onThreadLeft(co, resumerKey, resumerDepth)
  if step and step.key == co and step.mode ~= "in" then
    step = { mode = "over", key = resumerKey, depth = resumerDepth, cmd = step.cmd or STOPS.step }
  end
end

function S.isStepping() return step ~= nil end

-- Exceptions -------------------------------------------------------------------------------------
--- Called from error paths (message handlers, error/assert wrappers, coroutine.resume). `marker`
--- is the function whose caller raised the error; `thread`, a coroutine the error ended (or a
--- list of them, innermost first);
--- `assertion`, raised by assert (the "assert" filter stops on those, caught or not);
--- `threadError`, the error that ended `thread` when it is not `message` itself.
function S.onException(message, uncaught, marker, thread, assertion, threadError)
  if not S.link or S.stopped or hook.isInside() then return false end
  local asked = assertion and S.filters.assert
  if uncaught and not (S.filters.uncaught or asked) then return false end
  if not uncaught and not (S.filters.caught or asked) then return false end
  local text = type(message) == "string" and message or safe.tostring(message)
  if not errorfilters.allows(S.filters, S.filterConditions, text, uncaught, assertion) then
    return false
  end
  local base = 2
  if marker then
    for l = 2, 200 do
      local info = getinfo(l, "f")
      if not info then break end
      if info.func == marker then base = l + 1 break end
    end
  end
  S.stop(STOPS.exception, base, { exceptionText = text, uncaught = uncaught and true or false }, thread,
    threadError)
  return true
end

-- Commands ------------------------------------------------------------------------------------
local commands = {}
S.commands = commands

local function str(v, default)
  if v == nil then return default end
  return tostring(v)
end

-- The type each initSuccess field may have on the wire (flags and numbers come as strings from
-- upstream IDEs, as booleans and numbers from others); a field of another type is refused.
local FLAG, TEXT, NUMBER = { string = true, boolean = true }, { string = true }, { string = true, number = true }
local INIT_FIELDS = {
  stopOnEntry = FLAG, isNeedB64EncodeStr = FLAG, pathCaseSensitivity = FLAG, autoPathMode = FLAG,
  distinguishSameNameFile = FLAG, waitConfigurationDone = FLAG, useCHook = FLAG, DevelopmentMode = FLAG,
  DistinguishSameNameFile = FLAG,
  luaFileExtension = TEXT, cwd = TEXT, truncatedOPath = TEXT, TruncatedOPath = TEXT, OSType = TEXT,
  adapterVersion = TEXT, TempFilePath = TEXT, clibPath = TEXT,
  logLevel = NUMBER, pagingLimit = NUMBER, trace = FLAG,
}

--- The first field of `info` with a type it may not have, as a message naming it, or nil.
local function badInitField(info)
  local names = {}
  for name in pairs(INIT_FIELDS) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local v = rawget(info, name)
    if v ~= nil and not INIT_FIELDS[name][type(v)] then
      return "initSuccess: field '" .. name .. "' must be a " .. (INIT_FIELDS[name] == FLAG and "boolean or \"true\"/\"false\""
        or INIT_FIELDS[name] == NUMBER and "number or numeric string" or "string") .. " (got " .. type(v) .. ")"
    end
  end
  if rawget(info, "logLevel") ~= nil and not tonumber(info.logLevel) then
    return "initSuccess: field 'logLevel' must be a number (got \"" .. tostring(info.logLevel) .. "\")"
  end
  if rawget(info, "pagingLimit") ~= nil and not tonumber(info.pagingLimit) then
    return "initSuccess: field 'pagingLimit' must be a number (got \"" .. tostring(info.pagingLimit) .. "\")"
  end
end

--- The program's file name (arg[0]), for the IDE to name the game by.
local function programName()
  local args = rawget(_G, "arg")
  local script = type(args) == "table" and args[0]
  if type(script) ~= "string" then return nil end
  return string.match(script, "([^/\\]+)$") or script
end

--- This process's id where the system shows it to Lua (Linux: /proc/self/stat), else nil.
local cachedPid = false
local function processId()
  if cachedPid ~= false then return cachedPid end
  cachedPid = nil
  local ok, file = pcall(io.open, "/proc/self/stat", "r")
  if ok and file then
    local line = file:read("*l")
    file:close()
    cachedPid = tonumber(line and string.match(line, "^(%d+)"))
  end
  return cachedPid
end

function commands.initSuccess(info, id)
  local bad = badInitField(info)
  if bad then
    -- Coerced, such a field would silently break breakpoint matching: refuse the handshake.
    remember(bad)
    S.send("initSuccess", { error = bad }, id)
    S.handshakeRefused = bad
    return
  end
  local c = S.config
  c.logLevel = tonumber(info.logLevel) or 1
  c.stopOnEntry = str(info.stopOnEntry) == "true"
  c.base64 = str(info.isNeedB64EncodeStr) == "true"
  c.pagingLimit = tonumber(info.pagingLimit)
  c.waitConfigurationDone = str(info.waitConfigurationDone) == "true"
  c.trace = str(info.trace) == "true"
  tracedMode = nil
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
  variables.configure({ base64 = c.base64, pagingLimit = c.pagingLimit })
  S.initialized = true
  S.send("initSuccess", {
    debuggerVer = S.VERSION,
    UseHookLib = "0",
    UseLoadstring = compat.canCompile and "1" or "0",
    isNeedB64EncodeStr = c.base64 and "true" or "false",
    runtime = contract.RUNTIME_NAME,
    runtimeVersion = S.RUNTIME_VERSION,
    luaVersion = compat.luaVersion,
    features = S.features(),
    gameName = S.gameName,
    program = programName(),
    processId = processId(),
  }, id)
end

function commands.setBreakPoint(info, id)
  -- Our IDE asks to be told when a breakpoint file is loaded and where its breakpoints bind
  -- (breakpointsBound, Docs/Protocol_Extensions.md); upstream's does not, and is not told.
  if info.notifyBound == true or info.notifyBound == "true" then
    breakpoints.notifier = function(bound) S.send("breakpointsBound", bound, "0") end
  end
  -- The code on the stack right now is loaded: its files do not wait for a "loaded" notice.
  breakpoints.noteStack()
  local results, loaded = breakpoints.setFile(str(info.path, ""), info.bks)
  conditions.reset()
  for _, r in ipairs(results) do
    if not r.verified then S.log("breakpoint at line " .. r.line .. " not set: " .. tostring(r.message), 2) end
  end
  S.send("setBreakPoint", { results = results, loaded = loaded }, id)
  if not S.stopped then S.updateHooks() end
end

--- Loads a changed file into the program (hotreload.lua), stopped or at the next poll while
--- running; the reply is the report.
function commands.hotReload(info, id)
  hotreload.clock = clock
  S.send("hotReload", hotreload.reload(info.path, info.source), id)
end

-- Extension (feature functionBreakpoints): replaces every function breakpoint.
function commands.setFunctionBreakPoint(info, id)
  fnbreakpoints.notifier = function(bound) S.send("functionBreakpointsBound", bound, "0") end
  local results = fnbreakpoints.set(type(info.names) == "table" and info.names or {})
  S.send("setFunctionBreakPoint", { results = results }, id)
  if not S.stopped then S.updateHooks() end
end

-- `conditions` (feature exceptionConditions): filter -> texts the error message must contain.
function commands.setExceptionBreakpoints(info, id)
  setFilters(errorfilters.parse(info))
  S.send("setExceptionBreakpoints", {}, id)
  if S.initialized then exceptions.apply(S) end
end

function commands.configurationDone(_, id)
  S.configurationDone = true
  S.send("configurationDone", {}, id)
end

function commands.continue(info, id)
  S.send("continue", {}, id)
  step = nil
  -- Upstream's "fake hit" (protocol doc 10.5): the IDE rejected a breakpoint stop; carry on with
  -- whatever step was running before it.
  if str(info.isFakeHit) == "true" then step = S.stepBeforeStop end
  S.stopped = false
  return true
end

local function startStep(mode, cmd, id)
  S.send(cmd, {}, id)
  if S.stopped then
    step = { mode = mode, key = S.stopThread, depth = S.stopDepth, cmd = cmd }
    if compat.isJIT then
      -- LuaJIT fires the line event again when a call returns into the middle of a line; PUC Lua
      -- does not. Skip that one event so stepping lands on the next line everywhere.
      if mode == "over" then step.skip = { line = S.stopLine, depth = S.stopDepth } end
      if mode == "out" and S.callerLine then step.skip = { line = S.callerLine, depth = S.stopDepth - 1 } end
    end
    S.stopped = false
  else
    -- Running: behaves like a pause (protocol doc 10.4).
    step = { mode = "in" }
    S.updateHooks()
  end
  return true
end

function commands.stopOnStep(_, id) return startStep("over", STOPS.step, id) end
function commands.stopOnStepIn(_, id) return startStep("in", STOPS.stepIn, id) end
function commands.stopOnStepOut(_, id) return startStep("out", STOPS.stepOut, id) end

function commands.pause(_, id)
  S.send("pause", {}, id)
  if not S.stopped then
    pausePending = true
    S.updateHooks()
  end
end

function commands.getVariable(info, id)
  if not S.stopped then S.send("getVariable", {}, id) return end
  S.send("getVariable", variables.list(info.varRef, info.stackId, info.start, info.count), id)
end

function commands.setVariable(info, id)
  if not S.stopped then
    S.send("setVariable", { success = "false", tip = "the program is running" }, id)
    return
  end
  S.send("setVariable", variables.set(info.varRef, info.stackId, info.varName, info.newValue), id)
end

function commands.getWatchedVariable(info, id)
  local frame = S.stopped and stack.get(info.stackId)
  local name = str(info.varName, "")
  if not frame then S.send("getWatchedVariable", {}, id) return end
  local ok, values = eval.watchAll(frame, name)
  S.send("getWatchedVariable", { variables.evalResult(name, ok, values, "false") }, id)
end

local REPL_STRING_LIMIT = 10000

function commands.runREPLExpression(info, id)
  local text = string.gsub(string.gsub(str(info.Expression, ""), "^%s+", ""), "%s+$", "")
  text = string.gsub(text, "^p%s+", "")
  local frame = S.stopped and stack.get(info.stackId)
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
  S.send("runREPLExpression", { variables.evalResult("Exp", ok, values, false, REPL_STRING_LIMIT) }, id)
end

function commands.stopRun(_, id)
  S.send("stopRun", {}, id)
  S.disconnect("stopRun")
  return true
end

function commands.LuaGarbageCollect()
  collectgarbage("collect")
  sendMemory()
end

--- Handles one frame's text. Returns true when it resumed the program.
function S.handle(text)
  local msg, err = json.decode(text)
  if type(msg) ~= "table" then
    S.log("LuaPanda: ignored a malformed frame (" .. tostring(err or "not an object") .. ")", 2)
    return false
  end
  local cmd = msg.cmd
  local id = msg.callbackId
  if id == nil or id == "" or tostring(id) == "0" then id = "0" else id = tostring(id) end
  local handler = type(cmd) == "string" and commands[cmd]
  if not handler then
    S.log("LuaPanda: ignored unknown command " .. tostring(cmd), 1)
    return false
  end
  local info = msg.info
  if type(info) ~= "table" then info = {} end
  if S.config.trace then S.trace("command " .. cmd .. (id ~= "0" and (" #" .. id) or "")
    .. (S.stopped and " (stopped)" or " (running)")) end
  local ok, result = pcall(handler, info, id)
  if not ok then
    S.log("LuaPanda: command " .. cmd .. " failed: " .. tostring(result), 2)
    if S.link and id ~= "0" and not isResumeCommand(cmd) then S.send(cmd, {}, id) end
    return false
  end
  return result == true
end

-- Polling while running -----------------------------------------------------------------------
local reportedNativeErrors = 0

--- Tells the IDE what went wrong while it could not be told: a skipped stop, breakpoint checks
--- that failed (no C stack left near its limit, in the runtime or in the native hook).
local function reportProblems()
  if not S.link then return end
  if pendingProblem then
    local text = pendingProblem
    pendingProblem = nil
    S.log(text, 2)
  end
  local failures = breakpoints.failures
  local nativeErrors = native.callbackErrors()
  if failures > 0 or nativeErrors > reportedNativeErrors then
    breakpoints.failures = 0
    local count = failures + nativeErrors - reportedNativeErrors
    reportedNativeErrors = nativeErrors
    S.log("LuaPanda: " .. string.format("%d", count) .. " breakpoint check(s) could not be made ("
      .. tostring(breakpoints.lastFailure or "the C stack was full")
      .. "): a breakpoint reached there may not have stopped", 2)
  end
end

local lastPoll = 0
local function drain()
  lastPoll = clock()
  local link = S.link
  while link and S.link == link do
    local text, err = link:receive(0)
    if not text then
      if err == "closed" then S.disconnect("connection lost") end
      return
    end
    S.handle(text)
  end
end

--- Count hook and native poll: read the IDE's commands while connected, try to attach while not.
function S.onPoll()
  if S.stopped then return end
  if S.link then
    drain()
    reportProblems()
    return
  end
  if S.attachMode and not S.handshaking and clock() - lastAttempt >= S.settings.attachInterval then
    S.tryAttach()
  end
end

--- Whether a safe point has something to do: attach (not connected, an attempt due) or read
--- commands (connected, and no hook does that). Cheap: called by the GC heartbeat and tick().
function S.isDue()
  if S.stopped or S.handshaking or hook.isInside() then return false end
  -- Connected: a game that runs few instructions per frame may take seconds to reach its count
  -- hook's next poll, so a safe point reads the link too, a few times a second at most.
  if S.link then return clock() - lastPoll >= S.settings.tickPollSec end
  return S.attachMode and clock() - lastAttempt >= S.settings.attachInterval
end

--- A safe point (the one-shot hook, tick()): never inside a finalizer or the runtime.
function S.onSafePoint()
  if hook.isInside() then return end
  hook.setInside(true)
  pcall(S.onPoll)
  hook.setInside(false)
end

--- After the one-shot hook ran (it replaced this thread's hooks): the runtime's own hooks back.
function S.afterSafePoint()
  if S.link then S.updateHooks() end
end

-- Connection ----------------------------------------------------------------------------------
function S.tryAttach(acceptTimeout, connectTimeout)
  if S.link then return true end
  if S.handshaking then return false end
  lastAttempt = clock()
  local link
  if S.mode == "server" then
    if not serverSocket then
      serverSocket = transport.listen(S.host, S.port, S.settings.customGetSocketInstance)
      if not serverSocket then return false end
    end
    link = transport.accept(serverSocket, acceptTimeout or 0)
    if link then pcall(serverSocket.close, serverSocket) serverSocket = nil end
  else
    link = transport.connect(S.host, S.port, connectTimeout or S.settings.connectTimeoutSec,
      S.settings.customGetSocketInstance)
  end
  if not link then return false end
  setLink(link)
  S.handshaking = true
  local wasInside = hook.setInside(true)
  local ok, result = pcall(S.handshake, link)
  S.handshaking = false
  if not ok or not result then
    if S.link == link then S.disconnect(ok and "handshake failed" or ("handshake failed: " .. tostring(result))) end
    hook.setInside(wasInside)
    return false
  end
  hook.setInside(wasInside)
  -- The handshake ran a lot of the runtime's code: LuaJIT's hot counters back to their start
  -- values (compat.resetJitCounters; a failed attempt is short and leaves them as they are).
  compat.resetJitCounters()
  return true
end

--- Reads frames on `link` until `done()` or the deadline. False when the link failed.
local function serveUntil(link, done, seconds)
  local deadline = clock() + seconds
  while S.link == link and not done() do
    local left = deadline - clock()
    if left <= 0 then return true end
    local text, err = link:receive(math.max(0.05, math.min(left, 1)))
    if text then
      S.handle(text)
    elseif err == "closed" then
      S.disconnect("connection lost during the handshake")
      return false
    end
  end
  return S.link == link
end

--- The handshake on a new link: initSuccess, the IDE's breakpoints and filters, configurationDone.
--- Every wait is bounded; any failure leaves the program unattached (the next attempt retries).
function S.handshake(link)
  S.initialized = false
  S.handshakeRefused = nil
  breakpoints.clear()
  step, pausePending, entryKey, bpKey, dupGuards = nil, false, nil, nil, {}
  setFilters({ uncaught = true, caught = false }, {})
  if not serveUntil(link, function() return S.initialized or S.handshakeRefused ~= nil end,
    S.settings.handshakeTimeoutSec) then
    return false
  end
  if not S.initialized then
    S.disconnect(S.handshakeRefused or "no initSuccess from the IDE within "
      .. S.settings.handshakeTimeoutSec .. " s")
    return false
  end
  if S.config.waitConfigurationDone then
    S.configurationDone = false
    if not serveUntil(link, function() return S.configurationDone end, 10) then return false end
  elseif not S.config.stopOnEntry then
    -- Upstream IDEs send breakpoints right after the handshake, without configurationDone.
    if not serveUntil(link, function() return false end, 0.2) then return false end
  end
  drain()
  if S.link ~= link then return false end
  if S.config.stopOnEntry then entryKey = compat.currentThread() end
  S.onAttached()
  S.log("LuaPanda: attached (" .. compat.luaVersion .. ")", 0)
  return true
end

--- What an attached IDE needs from the program's world: installed now, removed on detach.
function S.onAttached()
  proghooks.install(hook.pool(), hook.isOurs, hook.onProgramHook)
  jitview.install()
  coroutines.install(S)
  exceptions.apply(S)
  native.attach(S.link, S.settings)
  S.updateHooks()
end

function S.disconnect(reason)
  if reason then remember("disconnected: " .. tostring(reason)) end
  local link = S.link
  setLink(nil)
  S.stopped = false
  S.initialized = false
  S.config.trace = false -- the next IDE asks for trace lines again, or gets none
  step, pausePending, entryKey, bpKey, dupGuards = nil, false, nil, nil, {}
  breakpoints.clear()
  variables.reset()
  stack.reset()
  if link then link:close() end
  lastAttempt = clock()
  exceptions.remove()
  coroutines.uninstall()
  jitview.uninstall()
  patches.revertAll()
  conditions.releaseWorker()
  S.updateHooks()
  -- Our hooks are off every thread now: the program's own go back.
  proghooks.uninstall()
end

--- start()/startServer(): remembers where the IDE is and makes the first attempt. Returns
--- whether the IDE is attached, or nil and why the debugger cannot work at all.
function S.connect(mode, host, port)
  local usable, why = transport.available(S.settings.customGetSocketInstance)
  if not usable then return nil, why end
  S.mode, S.host, S.port = mode, host, port
  S.attachMode = true
  clock = compat.clockSource(transport.socketCore())
  wakeup.init({ isDue = S.isDue, onSafePoint = S.onSafePoint, afterSafePoint = S.afterSafePoint,
    isInside = hook.isInside, isOwnSource = breakpoints.isOwnSource, isOurs = hook.isOurs })
  wakeup.start()
  -- start()'s own attempt may wait longer on this machine's loopback: nobody listening answers at
  -- once there (no cost without an IDE), and a busy machine may take a while to complete a
  -- connect. Retries and remote hosts keep the short timeout (a host that drops the attempt
  -- would stall the game for the whole timeout).
  local loopback = host == "127.0.0.1" or host == "localhost" or host == "::1"
  local connectTimeout = loopback and math.max(S.settings.connectTimeoutSec, 1) or nil
  return S.tryAttach(mode == "server" and S.settings.listeningTimeoutSec or nil, connectTimeout)
end

function S.stopAttach()
  S.attachMode = false
  if S.link then S.disconnect("stopAttach") end
  wakeup.stop()
  native.detach()
  if serverSocket then pcall(serverSocket.close, serverSocket) serverSocket = nil end
  hook.configure({ enabled = false })
end

function S.tick() wakeup.tick() end

--- LuaPanda.BP(): stop at the next line of the calling thread.
function S.requestBP()
  if not S.link then return nil end
  bpKey = compat.currentThread()
  S.updateHooks()
  return true
end

function S.isConnected() return S.link ~= nil end
function S.pendingState() return { step = step, pause = pausePending, entry = entryKey, bp = bpKey } end

hook.init(S)

return S
