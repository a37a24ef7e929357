-- Function breakpoints on the names the call stack shows, from the definitions: a local class of
-- the main chunk (Player), a field assigned a function (Player.reset), a local function (helper),
-- and local classes of modules required later (game/entity.lua; game/other.lua's is an Entity too).
local Player = {}
Player.__index = Player

function Player.new(name)
  return setmetatable({ name = name, x = 0 }, Player) -- @playerNew
end

function Player:move(dx)
  self.x = self.x + dx -- @move
end

Player.reset = function(self)
  self.x = 0 -- @reset
end

local function helper(n)
  return n * 2 -- @helper
end

local hero = Player.new("hero") -- @ready
hero:move(helper(1))
hero:reset()
local Entity = require("game.entity")
local orc = Entity.new("orc")
orc:update(0.5)
print(orc:describe())
local Other = require("game.other")
local ghost = Other.new()
ghost:update(3)
local rounds = 2 -- @late
for round = 1, rounds do
  orc:update(round)
  ghost:update(round)
end
print("done", hero.x, orc.x, ghost.x)
