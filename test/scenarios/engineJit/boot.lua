-- The boot script of an engine game whose frames spend their time in loops LuaJIT compiles, run
-- by the test engine host (test/hosts/engine.c): Update(dt) is called from C every frame under
-- lua_pcall. From frame 3 on the game "settles" its world in one long loop that runs compiled
-- (no call, no allocation, no tick()) until the global Settling is set to false or a cap of
-- iterations is reached, the way a loading step can hold a frame for seconds.
local port = ...
if port then require("LuaPanda").start("127.0.0.1", tonumber(port)) end

local physics = require("game.physics")

-- LuaJIT tells the program when it finishes recording a trace (jit.v's mechanism): the game
-- prints how many it saw, so a run shows its loops were compiled.
local traces = 0
if jit and jit.attach then
  jit.attach(function(what) if what == "stop" then traces = traces + 1 end end, "trace")
end

local frame = 0
Settling = true

function Update(dt)
  frame = frame + 1
  local energy = physics.simulate(100000, dt)
  print(string.format("frame %d: energy %.4f", frame, energy)) -- @frame
  if frame == 3 then
    print(string.format("settling (traces so far: %d)", traces))
    local steps = physics.settle()
    print(string.format("settled after %s steps", steps > 1e6 and "many" or "few"))
  end
end
