-- linemap.lua: names a line of the bundled LuaPanda.lua the way the sources name it
-- (`luapanda/hook.lua:157`), from the line map scripts/build-lua.mjs writes into the bundle, so
-- that an error of the runtime points at the module to fix rather than at line 6123 of a
-- generated file. The runtime's error reports pass through `M.rewrite`. Without a bundle (the
-- modules loaded as files from lua/) every line names its own file already: nothing changes.
local M = {}

-- The map: triples of first bundle line, last bundle line, file under lua/.
local found, map = pcall(require, "luapanda.bundlemap")
if not found or type(map) ~= "table" then map = nil end

-- The bundle's name as error messages and tracebacks write it (short_src).
local bundleName = debug.getinfo(1, "S").short_src

local function escapePattern(text)
  return (string.gsub(text, "[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"))
end

local linePattern = map and (escapePattern(bundleName) .. ":(%d+):") or nil

--- The file and line of bundle line `n`, or nil when the map does not cover it.
function M.locate(n)
  if not map or type(n) ~= "number" then return nil end
  for i = 1, #map, 3 do
    if n >= map[i] and n <= map[i + 1] then return map[i + 2], n - map[i] + 1 end
  end
  return nil
end

--- `text` with each "<bundle>:<line>:" (an error position, a traceback line) written as
--- "<module>:<line>:"; anything else is left as it is.
function M.rewrite(text)
  if linePattern == nil or type(text) ~= "string" then return text end
  return (string.gsub(text, linePattern, function(n)
    local file, line = M.locate(tonumber(n))
    if file then return file .. ":" .. string.format("%d", line) .. ":" end
    return nil
  end))
end

return M
