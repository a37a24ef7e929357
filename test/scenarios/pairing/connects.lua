-- A game that connects to the IDE (start) under a pairing secret and keeps running: arguments
-- port, secret ("-" for none). It prints "alive <n>" every few frames until the global `treasure`
-- is set to "stop" (through the debugger) or 60 s have passed.
local port, secret = tonumber(arg[1]), arg[2]
local LuaPanda = require("LuaPanda")
LuaPanda.settings.pairingBackoffMaxSec = 0.5
LuaPanda.start("127.0.0.1", port, { secret = secret ~= "-" and secret or nil })
local socket = require("socket")
treasure = "the game's own secret state"
local frames = 0
local deadline = socket.gettime() + 60
while socket.gettime() < deadline and treasure ~= "stop" do
  frames = frames + 1 -- @frame
  if frames % 10 == 0 then
    print("alive " .. frames)
    io.stdout:flush()
  end
  LuaPanda.tick()
  socket.sleep(0.01)
end
print("done")
