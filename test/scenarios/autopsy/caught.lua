-- An error a pcall in the user's code catches: the "caught" filter stops where it is raised, and
-- the autopsy says where it is caught.
local function parse(text)
  local n = tonumber(text)
  if not n then error("not a number: " .. text) end -- @raised
  return n
end

local function sumAll(values)
  local total = 0
  for _, text in ipairs(values) do
    local ok, n = pcall(parse, text) -- @caught-here
    if ok then total = total + n end
  end
  return total
end

print("total", sumAll({ "1", "two", "3" }))
