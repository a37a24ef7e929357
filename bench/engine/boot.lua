-- The boot script the attach bench (bench/attach.ts) runs in the test engine hosts
-- (test/hosts/engine.c): a game shaped like an engine's, which the host calls from C every frame
-- (Update under lua_pcall, a job coroutine resumed with lua_resume) with a little Lua per frame —
-- a few calls, a small table and a string — and no LuaPanda.tick(). It calls start() while no IDE
-- listens and prints "ready" with whether that connected, so that the bench knows its retry phase;
-- the heap is the host's (--ballast-mb). Argument: the port. Ends when the IDE sets the global
-- `running` to false (the host stops at the next frame through `Quit`).
local port = tonumber((...))
local lp = require("LuaPanda")
lp.start("127.0.0.1", port)
running = true
print("ready", lp.isConnected())

local player = { x = 0, y = 0, name = "hero" }
local function move(p, dt)
  p.x = p.x + dt * 3
  p.y = p.y + dt
end

local frames = 0
function Update(dt)
  if not running then
    Quit = true
    return
  end
  frames = frames + 1
  move(player, dt)
  local label = { text = player.name .. frames % 10 }
  if label.text == "" then print("never") end
end

local function job(dt)
  local travelled = 0
  while true do
    travelled = travelled + dt
    dt = coroutine.yield(travelled)
  end
end

Jobs = { coroutine.create(job) }
