-- An error an xpcall with a message handler catches, one call below the protected function.
local function check(v)
  if v < 0 then error("negative: " .. v) end
  return v
end

local function guarded(values)
  local handled
  local ok = xpcall(function() -- @xpcall-here
    for _, v in ipairs(values) do check(v) end
  end, function(message) handled = message return message end)
  return ok, handled
end

print(guarded({ 1, -2 }))
