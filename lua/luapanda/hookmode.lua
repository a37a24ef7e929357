-- hookmode.lua: hook.lua's configuration from the session's state — hooked while a link is up,
-- every line while something is pending (stepping.lua) — called whenever that state changes;
-- with trace lines on, each change of mode is traced.
local hook = require("luapanda.hook")
local stepping = require("luapanda.stepping")
local link = require("luapanda.link")
local state = require("luapanda.state")

local M = {}

-- The hook mode last traced, so that only changes are told.
local tracedMode = nil

--- The hook mode in words, as hook.lua chose it.
local function hookMode()
  local h = hook.state()
  local mode = not h.enabled and "off"
    or h.slow and "line hooks everywhere (a step, pause, entry stop or BP() is pending)"
    or h.bpMode and h.linesAllowed and "call hooks or the line filter, per thread (breakpoints are set)"
    or h.bpMode and "call hooks (breakpoints are set)"
    or "idle (polling for commands only)"
  return "hook mode: " .. mode .. (h.native and ", native" or "")
end

function M.update()
  local settings, connected = state.settings, link.current() ~= nil
  hook.configure({ enabled = connected, pollEvery = settings.pollInstructions, slow = stepping.slowNeeded(),
    jitOff = settings.jitOffWhileAttached, hookStrategy = settings.hookStrategy })
  if state.config.trace and connected then
    local mode = hookMode()
    if mode ~= tracedMode then
      tracedMode = mode
      link.trace(mode)
    end
  end
end

--- A new IDE asked for trace lines: its first trace names the mode.
function M.forgetTraced() tracedMode = nil end

return M
