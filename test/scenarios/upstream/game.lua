-- A game that runs Tencent's upstream LuaPanda.lua, unchanged, and attaches to the IDE.
-- usage: lua game.lua PORT UPSTREAM_DIR [FRAMES]   (tests find lines by their markers)
package.path = arg[2] .. "/?.lua;" .. package.path
local frames = tonumber(arg[3]) or 3
require("LuaPanda").start("127.0.0.1", tonumber(arg[1]))
local title = "upstream game"
score = 0
local config = { name = "panda", size = 3, nested = { level = 2, list = { 10, 20, 30 } } }
local hits = 0
local function add(a, b)
  hits = hits + 1 -- @hitsUp
  return a + b
end
local function tick(frame)
  local value = frame * 10 -- @value
  local total = add(value, 1) -- @callAdd
  score = score + total -- @scoreUp
  return total -- @returnTotal
end
local function spin(n)
  return n + 1
end
local keep = {}
for frame = 1, frames do
  tick(frame) -- @callTick
  local t0, n = os.clock(), 0
  while os.clock() - t0 < 0.02 do
    n = spin(n)
    keep[(n % 64) + 1] = { n } -- a game allocates as it runs
  end
end
print("game over", score, hits, config.size)
