-- session.lua: one debug session with an IDE, tied together from its parts:
--   state.lua     what the parts share: settings, the IDE's configuration, the stop position
--   link.lua      the link and the frames sent on it (replies, log and trace lines)
--   attach.lua    connecting, the handshake, polling while running, reattaching, detaching
--   dispatch.lua  one frame to its handler; commands.lua  what each IDE command does
--   stepping.lua  pending steps, pause, entry stop and BP(): the decisions on every line
--   stops.lua     the stop loop and the hook's breakpoint stops; hits.lua  whether a breakpoint fires
--   hookmode.lua  hook.lua's mode from that state
-- Error stops are exceptions.lua's. Modules outside the session follow the link and the exception
-- filters through announcements (events.lua), not by reading these parts. This file wires the
-- parts that call up the stack (the hook's callbacks, stepping's stop) and is the face that
-- lua/LuaPanda.lua uses.
local hook = require("luapanda.hook")
local initinfo = require("luapanda.initinfo")
local stepping = require("luapanda.stepping")
local hookmode = require("luapanda.hookmode")
local stops = require("luapanda.stops")
local attach = require("luapanda.attach")
local link = require("luapanda.link")
local state = require("luapanda.state")
local wakeup = require("luapanda.wakeup")
require("luapanda.commands") -- fills dispatch.lua's table of handlers

local S = {}

S.VERSION = initinfo.VERSION
S.RUNTIME_VERSION = initinfo.RUNTIME_VERSION
S.settings = state.settings
S.logLines = link.logLines

-- The hook's callbacks, each the part whose job it is (hook.lua keeps them in upvalues).
hook.init({
  onPoll = attach.onPoll,
  onSlowLine = stepping.onSlowLine,
  isDuplicate = stepping.isDuplicate,
  guardReturn = stepping.guardReturn,
  dropGuards = stepping.dropGuards,
  onBreakpoint = stops.onBreakpoint,
  onEntry = stops.onEntry,
})
stepping.init(stops.stop)

S.log = link.log
S.connect = attach.connect
S.stopAttach = attach.stopAttach
S.disconnect = attach.disconnect

function S.isConnected() return link.current() ~= nil end
function S.isStopped() return state.stopped end
function S.setGameName(name) state.gameName = name end
--- Where the runtime attaches: mode ("client" | "server"), host, port.
function S.target() return attach.mode, attach.host, attach.port end

function S.tick() wakeup.tick() end

--- LuaPanda.BP(): stop at the next line of the calling thread.
function S.requestBP()
  if not link.current() then return nil end
  stepping.requestBP()
  hookmode.update()
  return true
end


return S
