-- What changed since the last stop: a method called in a loop, where a local, a field of `self`
-- and an upvalue change between its stops while others do not, with a different function
-- stopping in between (its local has the same name, on purpose).
local Player = {}
Player.__index = Player

local function newPlayer(name)
  return setmetatable({ name = name, hp = 10, gold = 0 }, Player)
end

local ticks = 0

function Player:tick(dt)
  local damage = dt * 2
  local label = "tick"
  self.hp = self.hp - damage
  ticks = ticks + 1
  return damage, label -- @tick
end

local function report(round)
  local damage = round * 100
  return damage -- @report
end

local player = newPlayer("orc")
for round = 1, 3 do
  player:tick(round)
  report(round)
end
print(player.hp, ticks)
