-- link.lua: the IDE connection while there is one, and the frames the runtime sends on it: replies,
-- notifications, log lines and trace lines. The link changes only through M.set, which announces
-- it (events.lua "link"); a part that finds the link broken asks for a detach with M.drop, which
-- attach.lua carries out ("drop"). Connecting, the handshake and reading commands: attach.lua.
local json = require("luapanda.json")
local linemap = require("luapanda.linemap")
local consolepipe = require("luapanda.consolepipe")
local events = require("luapanda.events")
local state = require("luapanda.state")

local M = {}

local current = nil

--- The link, or nil while no IDE is attached.
function M.current() return current end

--- Takes up a new link or (nil) lets it go, and tells the modules that follow it.
function M.set(link)
  current = link
  events.announce("link", link)
end

--- The link failed, or the IDE ended the session: the session detaches (attach.lua).
function M.drop(reason)
  events.announce("drop", reason)
end

-- The last lines of the runtime's own log, for LuaPanda.getInfo().
M.logLines = {}

--- Keeps `text` among the last 50 log lines.
function M.remember(text)
  text = linemap.rewrite(text)
  local lines = M.logLines
  lines[#lines + 1] = text
  if #lines > 50 then table.remove(lines, 1) end
end
local remember = M.remember

local function rawSend(msg)
  local link = current
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
  if not sent then M.drop("connection lost") return false end
  return true
end

function M.send(cmd, info, callbackId, stackFrames)
  return rawSend({ cmd = cmd, callbackId = callbackId == nil and "0" or callbackId, info = info or {}, stack = stackFrames })
end

--- Log frame: kind 0 output, 1 tip, 2 debug_console (upstream printToVSCode).
function M.log(text, level, kind)
  level = level or 1
  -- Errors name the runtime's own lines by module (luapanda/hook.lua:157), not by bundle line.
  text = level >= 2 and linemap.rewrite(tostring(text)) or tostring(text)
  remember(text)
  if current and level >= (state.config.logLevel or 1) then
    local cmd = (kind == 1 and "tip") or (kind == 2 and "debug_console") or (kind == 3 and "tipError") or "output"
    -- Launch mode: in the program's stdout, in order with what it printed (consolepipe.lua).
    if cmd == "debug_console" and consolepipe.write(text) then return end
    M.send(cmd, { logInfo = text }, "0")
  end
end

--- One trace line for the IDE (feature "trace"), sent only when the IDE asked for them in
--- initSuccess: the runtime's own view of what it does, for bug reports.
function M.trace(text)
  if state.config.trace and current then M.send("trace", { logInfo = text }, "0") end
end

--- The program's memory in use, which the IDE shows while stopped.
function M.sendMemory()
  M.send("refreshLuaMemory", { memInfo = tostring(collectgarbage("count")) }, "0")
end

return M
