-- A fighter: hit points and a shield that absorbs damage until it is used up.
local Fighter = {}
Fighter.__index = Fighter

function Fighter.new(name, hp, shield)
  return setmetatable({ name = name, hp = hp, shield = shield, power = 4 }, Fighter)
end

function Fighter:alive()
  return self.hp > 0
end

function Fighter:hit(damage)
  local absorbed = math.min(self.shield, damage)
  self.shield = self.shield - absorbed
  self.hp = self.hp - damage -- the planted bug: the absorbed part is not taken off
end

return Fighter
