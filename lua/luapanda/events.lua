-- events.lua: how the runtime's modules learn what changed in the session without reading its
-- fields. The session announces; coroutines.lua and exceptions.lua keep what they need:
--   "link" (link or nil)   an IDE connection was taken up or dropped
--   "filters" (filters)    the exception filters the IDE set ({ uncaught, caught, assert })
local M = {}

local listeners = {}

--- Calls `fn` with the arguments of every later announcement of `name`.
function M.on(name, fn)
  local list = listeners[name]
  if not list then
    list = {}
    listeners[name] = list
  end
  list[#list + 1] = fn
end

function M.announce(name, ...)
  local list = listeners[name]
  if not list then return end
  for i = 1, #list do list[i](...) end
end

return M
