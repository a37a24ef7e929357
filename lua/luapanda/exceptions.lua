-- exceptions.lua: error stops in pure Lua. pcall/xpcall are replaced by versions that run the
-- call under a message handler (the stack is still intact when it runs), used for "caught"
-- stops; error/assert are replaced by versions that notice when nothing will catch the error
-- ("uncaught" stops in attach mode); the standalone interpreter's own message handler is wrapped
-- (see adoptHostHandler), which catches every error that would end the program, runtime errors
-- included; runFile runs a whole program under a message handler. Limits: Docs/Doc_Common.md.
local compat = require("luapanda.compat")
local coroutines = require("luapanda.coroutines")

local M = {}
local pcall, error = pcall, error -- the originals, before exceptions.lua wraps them

local raw = { pcall = pcall, xpcall = xpcall, error = error, assert = assert }
M.raw = raw
local getinfo = debug.getinfo
local pack, unpack = compat.pack, compat.unpack
local session
local protectors = {}
local runFileBody = nil
-- The last uncaught error already stopped on (by the error/assert wrappers or runFile), so that
-- the message handler that sees it next does not stop on it a second time.
local reported = nil
local ownSource = debug.getinfo(1, "S").short_src

local function markReported(message) reported = message end

--- True when `message` is the error just stopped on, or that error re-raised with a position in
--- front (coroutine.wrap does that).
local function isReported(message)
  local r = reported
  if r == nil then return false end
  if rawequal(r, message) then return true end
  return type(r) == "string" and type(message) == "string" and #message >= #r
    and message:sub(-#r) == r
end

--- isReported, and forgotten: the last handler the error meets asks this.
local function alreadyReported(message)
  local seen = isReported(message)
  reported = nil
  return seen
end

--- A coroutine died of an error, and its stack is still there. coroutine.resume returns the
--- error (a caught error); coroutine.wrap raises it again in its caller, so there it is uncaught
--- unless that caller is protected — unless error()/assert() inside already stopped on it.
local function onCoroutineDeath(co, err, entry, marker)
  local uncaught = entry.wrap and not entry.protected
  if not session.filters[uncaught and "uncaught" or "caught"] or isReported(err) then return end
  -- What raises it again (coroutine.wrap, a handler above) then knows it was stopped on.
  if entry.wrap then markReported(err) end
  session.onException(err, uncaught, marker, co)
end

local function caughtHandler(message)
  if not alreadyReported(message) then session.onException(message, false, caughtHandler) end
  return message
end

local function wrappedPcall(f, ...)
  if not (session.link and session.filters.caught) then return raw.pcall(f, ...) end
  if compat.is51 and not compat.isJIT then
    local args = pack(...)
    return raw.xpcall(function() return f(unpack(args, 1, args.n)) end, caughtHandler)
  end
  return raw.xpcall(f, caughtHandler, ...)
end

local function wrappedXpcall(f, handler, ...)
  if not (session.link and session.filters.caught) then return raw.xpcall(f, handler, ...) end
  local function h(message)
    if not alreadyReported(message) then session.onException(message, false, h) end
    return handler(message)
  end
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

--- Whether an error raised at `level` (relative to the caller) would be caught.
function M.isProtected(level)
  local l = level + 1
  while true do
    local info = getinfo(l, "f")
    if not info then break end
    -- (5.1 lists a tail call as a level without a function: it is neither.)
    if info.func ~= nil and info.func == runFileBody then return false end
    if protectors[info.func] then return true end
    l = l + 1
  end
  local key = compat.currentThread()
  if key == compat.MAIN then return false end
  local entry = coroutines.info(key)
  if entry and entry.wrap then return entry.protected and true or false end
  return true -- a plain coroutine: coroutine.resume returns the error
end

local function checkUncaught(message, marker)
  if not (session.link and session.filters.uncaught) then return end
  if M.isProtected(3) then return end
  markReported(message)
  session.onException(message, true, marker)
end

--- The message as Lua raises it at `level` (relative to the caller of this function's caller):
--- a string gets the "file:line: " of that frame in front.
local function positioned(message, level)
  if type(message) ~= "string" or level <= 0 then return message end
  local info = getinfo(level + 2, "Sl")
  if info and info.currentline and info.currentline > 0 then
    return info.short_src .. ":" .. info.currentline .. ": " .. message
  end
  return message
end

-- Both wrappers raise with a plain (not tail) call, so that the wrapper's own frame is there on
-- every VM (LuaJIT turns `return f()` into a real tail call, 5.1 does not) and the position the
-- program sees is the one it would see without the debugger.
local function wrappedError(message, level)
  local n = level == nil and 1 or tonumber(level)
  if n == nil then raw.error(message, level) end -- let error() complain about the bad level
  local shown = positioned(message, n)
  if session.link then checkUncaught(shown, wrappedError) end
  raw.error(shown, 0)
end

local function wrappedAssert(v, ...)
  if v then return v, ... end
  local message = "assertion failed!"
  if select("#", ...) > 0 then message = (...) end
  -- assert puts its caller's position in front of a string message, as error() does.
  local shown = positioned(message, 1)
  if session.link then checkUncaught(shown, wrappedAssert) end
  raw.error(shown, 0)
end

--- Removes the lines of the runtime's own frames from a traceback, so that the program's output
--- reads as it would without the debugger.
local function withoutOwnFrames(text)
  if type(text) ~= "string" then return text end
  local head, frames = text:match("^(.-\nstack traceback:)(.*)$")
  if not head then return text end
  local kept = {}
  for line in frames:gmatch("\n[^\n]*") do
    if line:sub(2, #ownSource + 3) ~= "\t" .. ownSource .. ":" then kept[#kept + 1] = line end
  end
  return head .. table.concat(kept)
end

local hostOriginal = nil

--- The stand-alone interpreters (lua, luajit) run the main chunk under a protected call whose
--- message handler, a C function, sits in the C frame right below the chunk. The handler runs
--- before the stack unwinds, for every error that would end the program, so wrapping it stops on
--- runtime errors too (`nil + 1`), which no hook reports. Pure Lua reaches that slot with
--- debug.getlocal/setlocal on the C frame. Found only when the stack has that exact shape (a C
--- frame below a main chunk, its last value before the chunk a C function); an engine that runs
--- chunks from its own C code has no such frame and keeps the error/assert wrappers only.
function M.adoptHostHandler()
  if hostOriginal then return true end
  if compat.currentThread() ~= compat.MAIN then return false end
  local top = 1
  while getinfo(top + 1, "l") do top = top + 1 end
  local bottom, main = getinfo(top, "S"), getinfo(top - 1, "Sf")
  if not (bottom and bottom.what == "C" and main and main.what == "main") then return false end
  local slot, value = nil, nil
  for i = 1, 64 do
    local name, v = debug.getlocal(top, i)
    -- 5.4 lists the chunk and its arguments as temporaries too; the handler comes before them.
    if name == nil or rawequal(v, main.func) then break end
    slot, value = i, v
  end
  if type(value) ~= "function" or getinfo(value, "S").what ~= "C" then return false end
  local original = value
  local function hostHandler(message, ...)
    local stopped = session.link and session.filters.uncaught and not alreadyReported(message)
      -- A stack overflow leaves too little stack to stop in; the program's own message matters more.
      and not (type(message) == "string" and message:find("stack overflow", 1, true))
    if stopped then raw.pcall(session.onException, message, true, hostHandler) end
    local result = original(message, ...)
    local ok, cleaned = raw.pcall(withoutOwnFrames, result)
    return ok and cleaned or result
  end
  if debug.setlocal(top, slot, hostHandler) == nil then return false end
  hostOriginal = original
  return true
end

function M.hasHostHandler() return hostOriginal ~= nil end

function M.install(s)
  session = s
  session.isProtected = function(level) return M.isProtected(level + 1) end
  if rawget(_G, "pcall") == raw.pcall then _G.pcall = wrappedPcall end
  if rawget(_G, "xpcall") == raw.xpcall then _G.xpcall = wrappedXpcall end
  if rawget(_G, "error") == raw.error then _G.error = wrappedError end
  if rawget(_G, "assert") == raw.assert then _G.assert = wrappedAssert end
  coroutines.setOnDeath(onCoroutineDeath)
  M.adoptHostHandler()
end

--- Runs a Lua file as the program: every uncaught error stops the debugger at the error with the
--- stack intact, then the program dies with its message, as without the debugger.
function M.runFile(path, ...)
  local chunk, err = loadfile(path)
  if not chunk then raw.error(err, 0) end
  local args = pack(...)
  local argTable = { [0] = path }
  for i = 1, args.n do argTable[i] = args[i] end
  rawset(_G, "arg", argTable)
  local traceback
  local function handler(message)
    if not alreadyReported(message) then session.onException(message, true, handler) end
    markReported(message) -- runFile raises it again below, through the host's handler
    local text = type(message) == "string" and message or tostring(message)
    traceback = debug.traceback(text, 2)
    return message
  end
  local function body()
    return chunk(unpack(args, 1, args.n))
  end
  runFileBody = body
  local r = pack(raw.xpcall(body, handler))
  if r[1] then return unpack(r, 2, r.n) end
  if traceback then io.stderr:write(traceback, "\n") end
  raw.error(r[2], 0)
end

return M
