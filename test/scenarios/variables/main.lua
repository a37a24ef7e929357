-- Values of every kind, to inspect, evaluate and set.
local count = 42
local ratio = 0.5
local name = "panda"
local greeting = "你好, wörld"
local flag = true
local nothing = nil
local config = { size = 3, nested = { list = { 10, 20, 30 }, tag = "deep" } }
local function helper() return count end
print(count, ratio, name, greeting, flag, nothing, config.size, helper()) -- @print
