-- A coroutine that yields twice, resumed from the main chunk.
local function worker(name, count)
  for i = 1, count do -- @loop
    local label = name .. i
    coroutine.yield(label) -- @yield
  end
  return "done"
end

local co = coroutine.create(worker)
local seen = {}
while true do
  local ok, value = coroutine.resume(co, "job", 2) -- @resume
  seen[#seen + 1] = value -- @afterResume
  if coroutine.status(co) == "dead" then
    break
  end
end
print("seen", #seen, ok)
