-- The collect scenario (launch.json says what the tests read): frames that lower the player's
-- hp, then idle ticks that sleep 10 ms each.
io.stdout:setvbuf("line")
local socket = require("socket")
local player = { hp = 100, name = "hero" }

local function damage(frame)
  local amount = frame % 4
  player.hp = player.hp - amount -- @damage
  return amount
end

local function idle(tick)
  local slept = socket.sleep(0.01) -- @idle
  if tick == 2 then
    slept = tick -- @rare
  end
  return slept
end

print("start") -- @ready
for frame = 1, 40 do
  damage(frame)
end
print("hp " .. player.hp)
for tick = 1, 300 do
  idle(tick)
  -- LuaJIT runs this loop compiled, and compiled code runs no debug hook: like a real game, it
  -- calls LuaPanda.tick() once a frame, where the debugger reads its commands.
  if jit and LuaPanda then LuaPanda.tick() end
end
print("done")
