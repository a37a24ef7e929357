-- Stepping through recursion: fact(3) recurses down to its base case.
local function fact(n)
  if n <= 1 then -- @test
    return 1 -- @base
  end
  local rest = fact(n - 1) -- @recurse
  return n * rest -- @multiply
end

local result = fact(3) -- @call
print("fact", result)
