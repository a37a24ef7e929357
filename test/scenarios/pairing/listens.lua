-- A game that listens for the IDE (startServer) and keeps running: arguments port, host ("-" for
-- startServer's default), secret ("-" for none), "insecure" or "-". It prints whether
-- startServer took, then "alive <n>" every few frames, for at most 60 s.
local port, host, secret, mode = tonumber(arg[1]), arg[2], arg[3], arg[4]
local options = {}
if secret ~= "-" then options.secret = secret end
if mode == "insecure" then options.insecure = true end
local LuaPanda = require("LuaPanda")
-- Strangers in a test come quickly one after another: the backoff stays short there.
LuaPanda.settings.pairingBackoffMaxSec = 0.5
LuaPanda.settings.pairingTimeoutSec = 1
local ok = LuaPanda.startServer(host ~= "-" and host or nil, port, options)
print("startServer " .. tostring(ok))
io.stdout:flush()
local socket = require("socket")
-- What a stranger would like to read or change.
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
