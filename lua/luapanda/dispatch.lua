-- dispatch.lua: one frame from the IDE to its command handler. The handlers (commands.lua) fill
-- M.handlers; every handler runs under pcall: nothing the IDE sends can raise an error into the
-- debugged program, and a request whose handler failed still gets an (empty) reply.
local json = require("luapanda.json")
local link = require("luapanda.link")
local state = require("luapanda.state")

local M = {}

--- command name -> function(info, callbackId): true when it resumed the program.
M.handlers = {}
local handlers = M.handlers

local function isResumeCommand(cmd)
  return cmd == "continue" or cmd == "stopOnStep" or cmd == "stopOnStepIn" or cmd == "stopOnStepOut" or cmd == "stopRun"
end

--- Handles one frame's text. Returns true when it resumed the program.
function M.handle(text)
  local msg, err = json.decode(text)
  if type(msg) ~= "table" then
    if not state.initialized then
      -- Garbage instead of a handshake: a stranger, not an IDE.
      local reason = "refused a malformed frame before the handshake"
      link.remember(reason)
      if link.current() then link.send("error", { error = reason }, "0") end
      state.handshakeRefused = reason
      return false
    end
    link.log("LuaPanda: ignored a malformed frame (" .. tostring(err or "not an object") .. ")", 2)
    return false
  end
  local cmd = msg.cmd
  local id = msg.callbackId
  if id == nil or id == "" or tostring(id) == "0" then id = "0" else id = tostring(id) end
  -- Nothing but the handshake before it succeeded: no evaluation, variables, reload or paths for
  -- a peer that has not proved who it is (pairing.lua); the link is dropped (attach.lua).
  if not state.initialized and cmd ~= "initSuccess" then
    local reason = "refused " .. tostring(cmd) .. ": nothing is obeyed before the handshake (initSuccess)"
    link.remember(reason)
    if link.current() then link.send(type(cmd) == "string" and cmd or "error", { error = reason }, id) end
    state.handshakeRefused = reason
    return false
  end
  local handler = type(cmd) == "string" and handlers[cmd]
  if not handler then
    link.log("LuaPanda: ignored unknown command " .. tostring(cmd), 1)
    return false
  end
  local info = msg.info
  if type(info) ~= "table" then info = {} end
  if state.config.trace then link.trace("command " .. cmd .. (id ~= "0" and (" #" .. id) or "")
    .. (state.stopped and " (stopped)" or " (running)")) end
  local ok, result = pcall(handler, info, id)
  if not ok then
    link.log("LuaPanda: command " .. cmd .. " failed: " .. tostring(result), 2)
    if link.current() and id ~= "0" and not isResumeCommand(cmd) then link.send(cmd, {}, id) end
    return false
  end
  return result == true
end

return M
