-- The runtime tests' program: starts the runtime itself (`lua attach.lua <port>` in this folder),
-- then runs main.lua.
require("LuaPanda").start("127.0.0.1", tonumber(arg[1]))
dofile("main.lua")
