-- A library as a package manager installs it: checks its arguments and raises on bad ones.
local M = {}

function M.take(bag, item, count)
  local have = bag[item] or 0
  if have < count then
    error("inventory: not enough " .. item .. " (have " .. have .. ", need " .. count .. ")", 2) -- @library-raises
  end
  bag[item] = have - count
  return bag[item]
end

return M
