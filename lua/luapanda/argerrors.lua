-- argerrors.lua: a wrapped library function that is called with wrong arguments must fail exactly
-- as the original does. The original computes the message (its own checks, its version's words);
-- this module names the function as the program's call would have named the original, and
-- raises it at the program's position.
local compat = require("luapanda.compat")
local patches = require("luapanda.patches")

local M = {}

local getinfo = debug.getinfo

--- Calls original(...) (expected to fail) and raises its error as the original would have raised
--- it where the program called the wrapper; must be called by the wrapper itself. The name is the
--- call site's (level 2 here is the wrapper), else — as 5.2+ does — the library name, else "?".
--- Returns only if the original did not fail.
function M.reraise(original, qualified, ...)
  local ok, message = pcall(original, ...)
  if ok then return end
  if type(message) == "string" then
    -- 1 here, 2 the wrapper (behind a C function of its own, patches.lua, one more), then the
    -- program's call.
    local extra = patches.extraLevels()
    local info = getinfo(2 + extra, "n")
    local name = (info and info.name) or (not compat.is51 and qualified) or "?"
    message = string.gsub(message, "^bad argument #(%d+) to '[^']*'", function(n)
      return "bad argument #" .. n .. " to '" .. name .. "'"
    end)
    error(message, 3 + extra)
  end
  error(message, 0)
end

return M
