-- argerrors.lua: a wrapped library function that is called with wrong arguments must fail exactly
-- as the original does. The original computes the message (its own checks, its version's words);
-- this module names the function as the program's call would have named the original, and
-- raises it at the program's position.
local compat = require("luapanda.compat")

local M = {}

local getinfo = debug.getinfo

--- The name an argument error gives a function called at `level` (relative to the caller):
--- the call site's name, else (5.2+) the library name the interpreter looks up, else "?".
local function calledName(level, qualified)
  local info = getinfo(level + 1, "n")
  if info and info.name then return info.name end
  if not compat.is51 then return qualified end
  return "?"
end

--- Calls original(...) (expected to fail) and raises its error as the original would have raised
--- it for the program's call of the wrapper at `level` (relative to the caller). Returns only if
--- the original did not fail.
function M.reraise(original, qualified, level, ...)
  local ok, message = pcall(original, ...)
  if ok then return end
  if type(message) == "string" then
    local name = calledName(level + 1, qualified)
    message = string.gsub(message, "^bad argument #(%d+) to '[^']*'", function(n)
      return "bad argument #" .. n .. " to '" .. name .. "'"
    end)
    error(message, level + 1)
  end
  error(message, 0)
end

return M
