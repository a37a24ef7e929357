-- Another module with a local class named Entity: a function breakpoint on Entity:update denotes
-- this one too, and stops in both.
local Entity = {}
Entity.__index = Entity

function Entity.new()
  return setmetatable({ x = 10 }, Entity) -- @otherNew
end

function Entity:update(dt)
  self.x = self.x * dt -- @otherUpdate
end

return Entity
