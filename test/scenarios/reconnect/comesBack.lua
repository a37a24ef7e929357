-- A game that drops its debug connection and comes back (autoReconnect).
-- usage: lua reconnect.lua PORT (output unbuffered, so that a failing test can show it)
local port = tonumber(arg[1]); io.stdout:setvbuf("no")
local LuaPanda = require("LuaPanda")
print("attached at start", LuaPanda.start("127.0.0.1", port))
local function phase(n)
  local label = "phase" .. n -- @label
  return label
end
phase(1)
LuaPanda.disconnect()
local recent, t0 = {}, os.clock()
while not LuaPanda.isConnected() and os.clock() - t0 < 10 do
  recent[#recent % 50 + 1] = { os.clock() } -- a game allocates as it runs
end
phase(2)
print("reconnected", LuaPanda.isConnected())
