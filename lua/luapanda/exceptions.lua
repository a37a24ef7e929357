-- exceptions.lua: error stops, switched with the IDE's exception filters while it is attached.
--   uncaught  the stand-alone interpreter's own message handler is taken over (hosthandler.lua):
--             every error that would end the program stops, runtime errors included, and the
--             program sees nothing changed. An engine that runs Lua from its own C code calls it
--             under lua_pcall with a message handler of its own: with the native accelerator the
--             C hook sees an error call that handler (native/errfunc.c) and the error stops before
--             the handler runs, which then runs as without the debugger (M.onHandlerCall). Errors
--             that end a coroutine stop (coroutines.lua); launch mode (runFile) stops on all.
--   caught    pcall and xpcall are replaced (patches.lua) by versions that run the call under a
--             message handler, so an error is seen before it unwinds. Off unless the IDE asks:
--             a protected call then has one more frame, which a traceback inside it shows.
--   assert    failed assert() calls, caught or not: the same machinery as both filters above,
--             stopping only when the function that raised the error is assert (one getinfo, at
--             the error only: the frame just above the message handler, or the dead coroutine's
--             top frame).
-- An uncaught error whose message is (or ends with) the error of the last coroutine that died
-- without a stop, as `assert(coroutine.resume(co))` raises it, stops with that coroutine's frames
-- first: its stack is still there, and that is where the error happened.
-- Limits and what stays visible: Docs/Doc_Common.md.
local compat = require("luapanda.compat")
local coroutines = require("luapanda.coroutines")
local hosthandler = require("luapanda.hosthandler")
local patches = require("luapanda.patches")
local events = require("luapanda.events")
local errorfilters = require("luapanda.errorfilters")
local safe = require("luapanda.safe")
local hook = require("luapanda.hook")
local glue = require("luapanda.hooknative")
local contract = require("luapanda.contract")
local stops = require("luapanda.stops")
local state = require("luapanda.state")
local paths = require("luapanda.paths")
local enginecatch = require("luapanda.enginecatch")
local breakpoints = require("luapanda.breakpoints")

local M = {}

local raw = { pcall = pcall, xpcall = xpcall, error = error }
M.raw = raw
local getinfo = debug.getinfo
local rawAssert = assert
local pack, unpack = compat.pack, compat.unpack
-- What the session announced: whether an IDE is connected, and the filters it set with their
-- conditions on the message (errorfilters.lua).
local connected, filters, filterConditions = false, { uncaught = true, caught = false }, {}
events.on("link", function(link) connected = link ~= nil end)
events.on("filters", function(f, texts) filters, filterConditions = f, texts or {} end)
local protectors = {}
-- The runtime's own message handlers (weak): they report the errors they see themselves.
local ownHandlers = setmetatable({}, { __mode = "k" })
local runFileBody = nil
-- What happens to errors only the engine catches, as the last M.apply decided (nil: not decided).
local engineErrors = nil
-- The last uncaught error already stopped on (by runFile's handler), so that the interpreter's
-- handler that sees it next does not stop on it a second time.
local reported = nil

--- Whether `err` is `inner`, or `inner` raised again with a position in front.
local function sameError(err, inner)
  return rawequal(err, inner) or (type(err) == "string" and type(inner) == "string"
    and #err >= #inner and string.sub(err, -#inner) == inner)
end

local function markReported(message) reported = message end

--- True when `message` is the error just stopped on, or that error re-raised with a position in
--- front (coroutine.wrap does that).
local function isReported(message)
  local r = reported
  if r == nil then return false end
  return sameError(message, r)
end

--- isReported, and forgotten: the last handler the error meets asks this.
local function alreadyReported(message)
  local seen = isReported(message)
  reported = nil
  return seen
end

--- Stops on an error when the filters ask for it; called from the error paths below (message
--- handlers, coroutine deaths). `marker` is the function whose caller raised the error; `thread`,
--- a coroutine the error ended (or a list of them, innermost first); `assertion`, raised by
--- assert (the "assert" filter stops on those, caught or not); `threadError`, the error that
--- ended `thread` when it is not `message` itself. Returns whether it stopped.
local function onException(message, uncaught, marker, thread, assertion, threadError)
  if not connected or state.stopped or hook.isInside() then return false end
  local asked = assertion and filters.assert
  if uncaught and not (filters.uncaught or asked) then return false end
  if not uncaught and not (filters.caught or asked) then return false end
  local text = type(message) == "string" and message or safe.tostring(message)
  if not errorfilters.allows(filters, filterConditions, text, uncaught, assertion) then
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
  local info = { exceptionText = text, uncaught = uncaught and true or false }
  if not uncaught and marker and base > 2 then info.caughtAt = M.catchSite(base - 1) end
  stops.stop(contract.STOPS.exception, base, info, thread, threadError)
  return true
end

--- Whether the filters ask for a stop on this error.
local function wanted(uncaught, assertion)
  local f = filters
  if uncaught then return f.uncaught or (assertion and f.assert) or false end
  return f.caught or (assertion and f.assert) or false
end

--- Whether what raised the error that `marker` (a message handler on the stack) handles is assert.
local function raisedByAssert(marker)
  for l = 2, 200 do
    local info = getinfo(l, "f")
    if not info then return false end
    if info.func == marker then
      local raiser = getinfo(l + 1, "f")
      return raiser ~= nil and raiser.func == rawAssert
    end
  end
  return false
end

--- Whether a coroutine that died of an error died in assert (its top frame is kept).
local function diedInAssert(co)
  local info = co and getinfo(co, 0, "f")
  return info ~= nil and info ~= false and info.func == rawAssert
end

-- The last coroutine that died of an error, with that error; weak, so that the program's
-- garbage is collected as without the debugger.
local lastDeath = setmetatable({}, { __mode = "v" })

--- The dead coroutine whose error `message` is, or ends with (raised again with a position in
--- front), and that error; nothing when there is none. Forgotten once used.
local function deadThreadOf(message)
  local co, err = lastDeath.co, lastDeath.err
  if co == nil or err == nil then return nil end
  if not sameError(message, err) then return nil end
  lastDeath.co, lastDeath.err = nil, nil
  return co, err
end

--- `thread` (with no error of its own to tell), else the dead coroutine of `message`.
local function threadOf(thread, message)
  if thread then return thread, nil end
  return deadThreadOf(message)
end

--- A coroutine died of an error, and its stack is still there. coroutine.resume returns the
--- error (a caught error); coroutine.wrap raises it again in its caller, so there it is uncaught
--- unless that caller is protected. `protected` is nil when that is not known yet: the caller
--- is itself the body of a coroutine.wrap function with nothing protecting it, so the error ends
--- that coroutine too, and is decided there, showing the frames of both (innermost first).
local function onCoroutineDeath(co, err, entry, marker, protected)
  local threads, threadErr = { co }, err
  local inner = entry.inner
  entry.inner = nil
  if inner and sameError(err, inner.err) then
    threads, threadErr = inner.threads, inner.err
    threads[#threads + 1] = co
  end
  lastDeath.co, lastDeath.err = threads[1], threadErr
  if entry.wrap and protected == nil then
    local resumer = coroutines.info((compat.currentThread()))
    if resumer then resumer.inner = { threads = threads, err = threadErr } end
    return
  end
  local uncaught = entry.wrap and not protected
  local assertion = diedInAssert(threads[1])
  if not wanted(uncaught, assertion) or isReported(err) then return end
  -- What raises it again (coroutine.wrap, a handler above) then knows it was stopped on.
  if entry.wrap then markReported(err) end
  onException(err, uncaught, marker, threads, assertion, threadErr)
end

--- Whether the caught-error handlers must run (pcall and xpcall replaced).
local function watchesCaught()
  return connected and (filters.caught or filters.assert)
end

--- A message handler for pcall and xpcall that stops on the error when the filters ask, then
--- hands it to `handler` (xpcall's own; nil: returns it, as pcall would).
local function newCaughtHandler(handler)
  local h
  h = function(message)
    if not alreadyReported(message) then
      -- 1 here, 2 what raised the error: a coroutine.wrap function shows its dead coroutine's stack
      local thread = coroutines.deadWrapThreadAt(1)
      local assertion = raisedByAssert(h) or diedInAssert(thread)
      if wanted(false, assertion) then
        local co, coError = threadOf(thread, message)
        onException(message, false, h, co, assertion, coError)
      end
    end
    if handler then return handler(message) end
    return message
  end
  ownHandlers[h] = true
  return h
end
local caughtHandler = newCaughtHandler(nil)

local function wrappedPcall(f, ...)
  if not watchesCaught() then return raw.pcall(f, ...) end
  if compat.is51 and not compat.isJIT then
    local args = pack(...)
    return raw.xpcall(function() return f(unpack(args, 1, args.n)) end, caughtHandler)
  end
  return raw.xpcall(f, caughtHandler, ...)
end

local function wrappedXpcall(f, handler, ...)
  if not watchesCaught() then return raw.xpcall(f, handler, ...) end
  local h = newCaughtHandler(handler)
  if compat.is51 and not compat.isJIT then
    local args = pack(...)
    return raw.xpcall(function() return f(unpack(args, 1, args.n)) end, h)
  end
  return raw.xpcall(f, h, ...)
end

protectors[raw.pcall] = true
protectors[raw.xpcall] = true
protectors[wrappedPcall] = true
protectors[wrappedXpcall] = true

-- Whether a frame of `thread` (nil: the running one) from `first` down catches an error: true, false
-- (the launched program's body: nothing catches it there), or nil (none decides).
local function catcherBelow(thread, first)
  local l = first
  while true do
    local info
    if thread then info = getinfo(thread, l, "f") else info = getinfo(l, "f") end
    if not info then return nil end
    -- (5.1 lists a tail call as a level without a function: it is neither.)
    if info.func ~= nil and info.func == runFileBody then return false end
    if protectors[info.func] then return true end
    l = l + 1
  end
end

--- Where a caught error is caught: the program's frame that called the protected call (pcall,
--- xpcall, or our replacements of them) running below `level` (relative to the caller), as a wire
--- frame's place { file, oPath, line }; nil when none is found. Walked at a stop only: frames of
--- the runtime and C frames between are passed over, a 5.1 tail-call level too.
function M.catchSite(level)
  local l, found = level + 1, false
  for _ = 1, 1000 do
    local info = getinfo(l, "fSl")
    if not info then return nil end
    local fn = info.func
    if found and fn ~= nil and not protectors[fn] and info.what ~= "C"
      and not breakpoints.isOwnSource(info.source) then
      local source = info.source or "=?"
      if paths.isFileSource(source) then
        return { file = paths.key(source), oPath = paths.oPath(source), line = tostring(info.currentline or 0) }
      end
      local short = info.short_src or "?"
      return { file = short, oPath = short, line = tostring(info.currentline or 0) }
    end
    if fn ~= nil and protectors[fn] then found = true end
    l = l + 1
  end
  return nil
end

--- Whether an error raised at `level` (relative to the caller) would be caught. In the body of a
--- coroutine.wrap function nothing catching it means the error goes on where that function was
--- called: in the thread that resumed it, read where it waits. nil: that is the main thread of
--- 5.1 or LuaJIT, which cannot be read from a coroutine; the error ends the coroutine and is
--- decided there (those versions close nothing of a dead coroutine, so its frames stay).
function M.isProtected(level)
  local found = catcherBelow(nil, level + 2)
  if found ~= nil then return found end
  local key = compat.currentThread()
  while true do
    if key == compat.MAIN then return false end
    local entry = coroutines.info(key)
    if not (entry and entry.wrap) then return true end -- coroutine.resume returns the error
    local by, byHandle = coroutines.resumerOf(key)
    if by == nil or byHandle == nil then return nil end
    found = catcherBelow(byHandle, 0)
    if found ~= nil then return found end
    key = by
  end
end

local function onUncaught(message, handler, thread)
  local f = filters
  if not connected or not (f.uncaught or f.assert) or alreadyReported(message) then return end
  local assertion = raisedByAssert(handler) or diedInAssert(thread)
  if not wanted(true, assertion) then return end
  local co, coError = threadOf(thread, message)
  onException(message, true, handler, co, assertion, coError)
end

--- Whether the call of `handler` at `level` (relative to the caller) is the program's own call,
--- not an error's: named by the call (a global, local, field… holding it) from Lua code, when the
--- error is not a call that failed there ("attempt to call …", named after what was called).
local function calledByProgram(level, message)
  local info = getinfo(level + 1, "n")
  local how = info and info.namewhat or ""
  if how == "" or how == "metamethod" or how == "hook" then return false end
  local raiser = getinfo(level + 2, "S")
  if not raiser or raiser.what == "C" then return false end
  return not (type(message) == "string" and string.find(message, "attempt to call", 1, true))
end

--- Whether the protected call that catches an error raised at `level` (relative to the caller) in
--- the running thread was made by the program's own Lua code — a chunk loaded from a file — rather
--- than by the engine: C (lua_pcall), or Lua code of the engine's own (LÖVE's boot code, named
--- "=[love "boot.lua"]"), whose catch is the engine's as much as lua_pcall's is.
local function caughtByProgram(level)
  for l = level + 1, 1000000 do
    local info = getinfo(l, "f")
    if not info then return false end
    if protectors[info.func] then
      local caller = getinfo(l + 1, "S")
      return caller ~= nil and caller.what ~= "C" and paths.isFileSource(caller.source)
    end
  end
  return false
end
M.caughtByProgram = caughtByProgram

--- An error called `handler`, the message handler of the protected call running (an engine's
--- lua_pcall; the C hook saw it, native/errfunc.c): an error no Lua code catches, which stops as
--- uncaught before the handler runs. Not the runtime's own handlers, nor one that Lua's xpcall
--- runs (a caught error: the "caught" filter's business), nor the program calling the handler.
function M.onHandlerCall(message, handler)
  if handler == nil or ownHandlers[handler] or rawequal(handler, hosthandler.handler) then return end
  local f = filters
  if not connected or not (f.uncaught or f.assert) then return end
  -- A stack overflow leaves too little room to stop; the program's own message matters more.
  if type(message) == "string" and string.find(message, "stack overflow", 1, true) then return end
  local at
  for l = 2, 200 do
    local info = getinfo(l, "f")
    if not info then return end
    if rawequal(info.func, handler) then at = l break end
  end
  if not at or calledByProgram(at, message) or caughtByProgram(at + 1) then return end
  onUncaught(message, handler, coroutines.deadWrapThreadAt(at + 1))
end
glue.init({ onHandlerCall = M.onHandlerCall })

--- Applies the IDE's filters (called when attached and whenever the filters change). Returns why
--- errors that only an engine's own lua_pcall catches cannot stop, when they cannot.
function M.apply()
  coroutines.setOnDeath(onCoroutineDeath, function(level) return M.isProtected(level + 1) end)
  local f = filters
  if f.uncaught or f.assert then hosthandler.adopt(onUncaught) else hosthandler.release() end
  -- (The stand-alone interpreter's handler, once adopted, reports its errors itself.)
  local watch = (f.uncaught or f.assert) and not hosthandler.adopted()
  local watched, why = glue.watchHandlers(watch)
  -- (LuaJIT: the engine's own long-lived xpcall, such as LÖVE's main loop's, stands in instead.)
  local standing = 0
  if watch then
    standing = enginecatch.adopt(function(message, standIn) onUncaught(message, standIn, nil) end)
  else
    enginecatch.release()
  end
  engineErrors = not watch and nil
    or watched and "stop (the native accelerator watches the message handler of the engine's lua_pcall)"
    or standing > 0 and ("stop where the engine's own xpcall catches them (" .. standing
      .. " frame(s) stood in for); others do not: " .. tostring(why))
    or ("do not stop: " .. tostring(why))
  if watch and not watched and standing == 0 then return why end
  if f.caught or f.assert then
    patches.replace(_G, "pcall", wrappedPcall)
    patches.replace(_G, "xpcall", wrappedXpcall)
  else
    patches.revert(_G, "pcall")
    patches.revert(_G, "xpcall")
  end
end

--- Detached: nothing stops, nothing stays replaced.
function M.remove()
  glue.watchHandlers(false)
  enginecatch.release()
  hosthandler.release()
  patches.revert(_G, "pcall")
  patches.revert(_G, "xpcall")
end

function M.hasHostHandler() return hosthandler.adopted() end
--- What happens to errors only the engine catches (nil until an IDE attached with the filter on).
function M.engineErrors() return engineErrors end
function M.hostHandlerProblem() return hosthandler.problem() end

--- What runFile's own calls leave in a traceback below the program's main chunk (its frames
--- themselves are left out already): the tail calls into the chunk and into runFile, xpcall.
local function addedByRunFile(line)
  return line == "\t(...tail calls...)" or line == "\t(tail call): ?"
    or (string.sub(line, 1, 6) == "\t[C]: " and string.sub(line, -8) == "'xpcall'")
end

--- The interpreter's message for the program's error without what runFile adds below the
--- program's main chunk, as in a plain run; what called runFile stays (the interpreter's C frame
--- after the `-e` chunk, or a script that called it).
local function asPlainRun(text, chunk)
  if type(text) ~= "string" then return text end
  local mainLine = "\t" .. getinfo(chunk, "S").short_src .. ":"
  local lines = {}
  for line in string.gmatch(text .. "\n", "(.-)\n") do lines[#lines + 1] = line end
  local main = nil
  for i = #lines - 1, 1, -1 do
    local line = lines[i]
    if string.sub(line, 1, #mainLine) == mainLine and string.find(line, ":%d+: in main chunk$") then
      main = i
      break
    end
  end
  if main == nil then return text end
  local kept = {}
  for i = 1, #lines do
    if i <= main or not addedByRunFile(lines[i]) then kept[#kept + 1] = lines[i] end
  end
  return table.concat(kept, "\n")
end

--- Runs a Lua file as the program: every uncaught error stops the debugger at the error with the
--- stack intact, then the program dies as without the debugger: the interpreter prints the same
--- message and traceback (computed where the error was raised, the runtime's frames left out)
--- and exits with the same status.
function M.runFile(path, ...)
  local chunk, err = loadfile(path)
  if not chunk then raw.error(err, 0) end
  local args = pack(...)
  local argTable = { [0] = path }
  for i = 1, args.n do argTable[i] = args[i] end
  rawset(_G, "arg", argTable)
  -- The interpreter's handler answers the error runFile raises again below with the message
  -- computed here, so it prints one traceback, the program's (hosthandler.lua).
  local answers = hosthandler.claim(M.runFile)
  local message, traceback
  local handler
  handler = function(raised)
    -- An error of a reader function that load catches comes here too: not the program's end,
    -- and load returns what the interpreter's handler makes of it.
    if hosthandler.caughtByLoad() then
      return answers and asPlainRun(hosthandler.messageFor(raised), chunk) or raised
    end
    if not alreadyReported(raised) and connected then
      local assertion = raisedByAssert(handler)
      if wanted(true, assertion) then
        local co, coError = deadThreadOf(raised)
        onException(raised, true, handler, co, assertion, coError)
      end
    end
    markReported(raised) -- runFile raises it again below, through the host's handler
    if answers then
      message = hosthandler.messageFor(raised)
    else
      local text = type(raised) == "string" and raised or tostring(raised)
      traceback = debug.traceback(text, 2)
    end
    return raised
  end
  ownHandlers[handler] = true
  local function body()
    return chunk(unpack(args, 1, args.n))
  end
  runFileBody = body
  local r = pack(raw.xpcall(body, handler))
  if r[1] then return unpack(r, 2, r.n) end
  if answers then
    hosthandler.answerNext(r[2], asPlainRun(message, chunk))
  elseif traceback then
    io.stderr:write(traceback, "\n")
  end
  raw.error(r[2], 0)
end

return M
