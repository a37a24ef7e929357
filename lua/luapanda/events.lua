-- events.lua: how the runtime's modules learn what changed in the session without reading its
-- fields. The session's parts announce; the others keep what they need in their own upvalues:
--   "link" (link or nil)            an IDE connection was taken up or dropped (link.lua);
--                                   followed by coroutines, exceptions, stepping and stops
--   "filters" (filters, conditions) the exception filters the IDE set ({ uncaught, caught,
--                                   assert }) and their conditions on the message (errorfilters.lua);
--                                   followed by exceptions
--   "drop" (reason)                 the link failed or the IDE ended the session (link.drop);
--                                   attach.lua detaches
--   "verdicts"                      the per-function verdicts were emptied (breakpoints.lua);
--                                   native.lua empties the C hook's cache of them
--   "cleared"                       every breakpoint was cleared (breakpoints.clear, at a
--                                   disconnect); fnbreakpoints.lua clears its own
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
