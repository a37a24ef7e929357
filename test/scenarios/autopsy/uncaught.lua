-- An error raised by a library (lua_modules/inventory.lua) three calls deep into the user's code.
package.path = "lua_modules/?.lua;" .. package.path
local inventory = require("inventory")

local function craft(bag, recipe)
  local cost = recipe.cost
  local left = inventory.take(bag, recipe.item, cost) -- @craft-calls-library
  return left
end

local function buildSword(bag)
  local recipe = { item = "iron", cost = 5 }
  return craft(bag, recipe) + 0 -- @build-calls-craft
end

local function turn(player)
  local bag = player.bag
  local left = buildSword(bag) -- @turn-calls-build
  print("iron left", left)
end

turn({ name = "hero", bag = { iron = 3 } }) -- @main-calls-turn
