-- exceptions.lua: error stops in pure Lua. pcall/xpcall are replaced by versions that run the
-- call under a message handler (the stack is still intact when it runs), used for "caught"
-- stops; error/assert are replaced by versions that notice when nothing will catch the error
-- ("uncaught" stops in attach mode); runFile runs a whole program under a message handler, which
-- catches every uncaught error, runtime errors included. Limits: see Docs/Doc_Common.md.
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
local reportedUncaught = false

local function caughtHandler(message)
  session.onException(message, false, caughtHandler)
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
    session.onException(message, false, h)
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
    if info.func == runFileBody then return false end
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
  reportedUncaught = true
  session.onException(message, true, marker)
end

local function wrappedError(message, level)
  level = level or 1
  if session.link then
    local shown = message
    if type(message) == "string" and level > 0 then
      local info = getinfo(level + 1, "Sl")
      if info and info.currentline and info.currentline > 0 then
        shown = info.short_src .. ":" .. info.currentline .. ": " .. message
      end
    end
    checkUncaught(shown, wrappedError)
  end
  if level > 0 then level = level + 1 end
  return raw.error(message, level)
end

local function wrappedAssert(v, ...)
  if v then return v, ... end
  if session.link then
    local message = select("#", ...) > 0 and (...) or "assertion failed!"
    checkUncaught(message, wrappedAssert)
  end
  return raw.assert(v, ...)
end

function M.install(s)
  session = s
  session.isProtected = function(level) return M.isProtected(level + 1) end
  if rawget(_G, "pcall") == raw.pcall then _G.pcall = wrappedPcall end
  if rawget(_G, "xpcall") == raw.xpcall then _G.xpcall = wrappedXpcall end
  if rawget(_G, "error") == raw.error then _G.error = wrappedError end
  if rawget(_G, "assert") == raw.assert then _G.assert = wrappedAssert end
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
    if not reportedUncaught then session.onException(message, true, handler) end
    reportedUncaught = false
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
