-- The arena: fighters trade blows for ten rounds; a fighter's shield should absorb damage first.
-- Run it under the debugger to find out why the knight, with the strongest shield, falls first.
package.path = "./?.lua;" .. package.path
local Fighter = require("fighter")
local rules = require("rules")

local fighters = {
  Fighter.new("knight", 40, 12),
  Fighter.new("rogue", 30, 2),
  Fighter.new("monk", 35, 6),
}

for round = 1, 10 do
  for i, attacker in ipairs(fighters) do
    local target = fighters[i % #fighters + 1]
    if attacker:alive() and target:alive() then
      target:hit(rules.damage(attacker, round))
    end
  end
end

for _, f in ipairs(fighters) do
  print(string.format("%s: hp=%d shield=%d", f.name, f.hp, f.shield))
end
