-- The example game: a few entities, each updated by its own coroutine, for five frames.
-- Poisoned entities should die; run it under the debugger to find out why they do not.
package.path = "./?.lua;" .. package.path
local Entity = require("entity")

local entities = {
  Entity.new("slime", 12, 3),
  Entity.new("bat", 8, 0),
  Entity.new("ghost", 20, 5),
}

local brains = {}
for i, entity in ipairs(entities) do
  brains[i] = coroutine.create(function()
    entity:brain()
  end)
end

for frame = 1, 5 do
  for i, entity in ipairs(entities) do
    if entity.alive then
      assert(coroutine.resume(brains[i]))
    end
  end
end

for _, entity in ipairs(entities) do
  print(string.format("%s: hp=%d alive=%s", entity.name, entity.hp, tostring(entity.alive)))
end
