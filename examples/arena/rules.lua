-- The damage rules: power grows with the rounds.
local M = {}

function M.damage(attacker, round)
  return attacker.power + math.floor(round / 3)
end

return M
