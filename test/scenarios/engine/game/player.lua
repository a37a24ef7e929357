-- The player module of the engine game: a local class, loaded through the host's searcher.
local Player = {}
Player.__index = Player

function Player:move(dt)
  self.x = self.x + self.speed * dt -- @move
end

function Player:hit(damage)
  self.hp = self.hp - damage -- @hit
  return self.hp
end

return setmetatable({ name = "hero", x = 0, speed = 2, hp = 10 }, Player)
