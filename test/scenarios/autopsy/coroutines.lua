-- Coroutines in several states at a breakpoint: two suspended (one made by coroutine.wrap), one
-- resuming another (normal), the one that runs, and one finished (dead).
local function producer(name)
  for i = 1, 3 do
    coroutine.yield(name .. i) -- @producer-yields
  end
end

local a = coroutine.create(producer)
coroutine.resume(a, "a")
local w = coroutine.wrap(function()
  local step = 0
  while true do
    step = step + 1
    coroutine.yield(step) -- @wrap-yields
  end
end)
w()
local done = coroutine.create(function() return 1 end)
coroutine.resume(done)

local inner = coroutine.create(function()
  local here = "inner"
  print(here) -- @inner-runs
end)
local outer = coroutine.create(function()
  coroutine.resume(inner) -- @outer-resumes
end)
coroutine.resume(outer)
print(coroutine.status(a), coroutine.status(done))
