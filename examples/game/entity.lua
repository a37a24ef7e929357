-- An entity of the example game: a name, hit points and a poison level. Each entity's behaviour
-- runs as a coroutine that advances one step per frame.
local Entity = {}
Entity.__index = Entity

function Entity.new(name, hp, poison)
  return setmetatable({ name = name, hp = hp, poison = poison or 0, alive = true }, Entity)
end

-- One step of poison per frame: a poisoned entity should lose hit points and eventually die.
function Entity:brain()
  while self.alive do
    local damage = self.poison * 2
    self.hp = self.hp + damage -- the planted bug: poison heals instead of hurting
    if self.hp <= 0 then
      self.alive = false
    end
    coroutine.yield(self.hp)
  end
end

return Entity
