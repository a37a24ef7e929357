-- A module whose class is a local, as most games write one: no global or module field is named
-- Entity, yet the call stack names its methods Entity.new and Entity:update.
local Entity = {}
Entity.__index = Entity

function Entity.new(name)
  local self = setmetatable({ name = name, x = 0 }, Entity) -- @new
  return self
end

function Entity:update(dt)
  self.x = self.x + dt -- @update
end

function Entity:describe()
  return self.name .. " at " .. self.x -- @describe
end

return Entity
