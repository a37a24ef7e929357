-- The engine game's physics module (loaded by the host's searcher as @game/physics.lua): two loops
-- LuaJIT compiles, one short per frame and one long that holds a frame.
local physics = {}

local GRAVITY = 9.81

function physics.simulate(steps, dt)
  local v, e = 0, 0
  for _ = 1, steps do
    v = v + GRAVITY * dt * 1e-3
    e = e + v * 1e-6 -- @simulate
  end
  return e
end

-- Loops until the game's global Settling turns false (or a cap far beyond any test is reached).
function physics.settle()
  local steps, v = 0, 0
  while Settling and steps < 1e11 do
    steps = steps + 1 -- @settle
    v = v * 0.5 + 1
  end
  return steps + v * 0
end

return physics
