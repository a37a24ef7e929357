-- quietload.lua: loads a library (luasocket's core, the native accelerator) the way `require`
-- finds it — package.preload, package.path, package.cpath, an engine's own searchers — but
-- without registering it in package.loaded or leaving globals behind, so that the program's view
-- of its modules stays exactly what it would be without the debugger. A library the program
-- already loaded is used as it is.
local M = {}

--- Keys of a table (raw), as a set.
local function keysOf(t)
  local set = {}
  for k in next, t do set[k] = true end
  return set
end

--- Removes from `t` every key absent from `before`.
local function forgetAdded(t, before)
  local added = {}
  for k in next, t do
    if not before[k] then added[#added + 1] = k end
  end
  for _, k in ipairs(added) do rawset(t, k, nil) end
end

--- The value of the library `name`, or nil and the reason (require's own wording when no
--- searcher finds it).
function M.load(name)
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) ~= "table" then return nil, "this Lua has no package library" end
  local existing = rawget(loaded, name)
  if existing ~= nil then return existing end
  local searchers = rawget(package, "searchers") or rawget(package, "loaders")
  if type(searchers) ~= "table" then return nil, "this Lua has no package searchers" end
  local messages = {}
  local i = 1
  while true do
    local searcher = rawget(searchers, i)
    if type(searcher) ~= "function" then break end
    local ok, loader, extra = pcall(searcher, name)
    if ok and type(loader) == "function" then
      local loadedBefore, globalsBefore = keysOf(loaded), keysOf(_G)
      local okLoad, value = pcall(loader, name, extra)
      -- Some libraries register themselves (luaL_openlib on 5.1): take that back.
      forgetAdded(loaded, loadedBefore)
      forgetAdded(_G, globalsBefore)
      if not okLoad then return nil, tostring(value) end
      if value == nil then return nil, "loading module '" .. name .. "' returned nothing" end
      return value
    elseif ok and type(loader) == "string" then
      -- (5.1's searchers start their words with "\n\t"; 5.4's leave that to require.)
      if string.sub(loader, 1, 1) ~= "\n" then loader = "\n\t" .. loader end
      messages[#messages + 1] = loader
    end
    i = i + 1
  end
  return nil, "module '" .. name .. "' not found:" .. table.concat(messages)
end

return M
