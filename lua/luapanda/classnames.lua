-- classnames.lua: the name under which a table is reachable from the program's globals or loaded
-- modules (`Entity` for _G.Entity, `entities.player` for package.loaded["entities.player"],
-- `entities.Player` for a field of a loaded module or of a global table), so that previews can
-- say which class an object belongs to. Built once per stop, on first use, by walking _G and
-- package.loaded one level deep with raw `next` (no metamethod runs), within a fixed budget;
-- weak keys, so the cache keeps no program table alive. A class reachable only as a module or a
-- field is named as its source names it where its own functions say (see sourceName).
local M = {}

local getupvalue, rawequal = debug.getupvalue, rawequal

local SCAN_LIMIT = 5000 -- table entries visited to build the map, in all
local FIELDS_PER_TABLE = 200 -- entries visited per namespace table (a data module may be huge)

local keywords = {}
for _, k in ipairs({ "and", "break", "do", "else", "elseif", "end", "false", "for", "function",
  "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until",
  "while" }) do
  keywords[k] = true
end

--- True when `s` can be written bare in Lua source (`t.s`, `{s = 1}`).
function M.isIdentifier(s)
  return type(s) == "string" and string.match(s, "^[%a_][%w_]*$") ~= nil and not keywords[s]
end

local names, ranks, sourceNames = nil, nil, nil

function M.reset()
  names, ranks, sourceNames = nil, nil, nil
end

-- A name is kept when it is the best seen so far: lower rank (globals, then modules, then
-- fields), then shorter, then alphabetical, so that the choice does not depend on `next` order.
local function offer(t, name, rank)
  local old = ranks[t]
  if old ~= nil then
    if old < rank then return end
    local current = names[t]
    if old == rank and (#current < #name or (#current == #name and current <= name)) then return end
  end
  names[t], ranks[t] = name, rank
end

local function build()
  names = setmetatable({}, { __mode = "k" })
  ranks = setmetatable({}, { __mode = "k" })
  local budget = SCAN_LIMIT
  local namespaces = {}
  for k, v in next, _G do
    budget = budget - 1
    if budget <= 0 then break end
    if type(v) == "table" and M.isIdentifier(k) then
      offer(v, k, 1)
      if v ~= _G then namespaces[#namespaces + 1] = { k, v } end
    end
  end
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) == "table" then
    for k, v in next, loaded do
      budget = budget - 1
      if budget <= 0 then break end
      if type(k) == "string" and type(v) == "table" and v ~= _G then
        offer(v, k, 2)
        namespaces[#namespaces + 1] = { k, v }
      end
    end
  end
  for _, ns in ipairs(namespaces) do
    if budget <= 0 then break end
    local prefix, t, seen = ns[1], ns[2], 0
    if t ~= loaded then
      for k, v in next, t do
        seen = seen + 1
        if seen > FIELDS_PER_TABLE then break end
        if type(v) == "table" and M.isIdentifier(k) then offer(v, prefix .. "." .. k, 3) end
      end
      budget = budget - seen
    end
  end
end

--- The name of table `t` (nil when it is reachable under no name).
function M.nameOf(t)
  if names == nil then build() end
  return names[t]
end

--- The name the source gives class table `t`: the upvalue under which its own functions hold it
--- (`local Entity = {}` … `function Entity.new() return setmetatable({}, Entity) end`), so that a
--- preview says `Entity`, as the call stack does (`Entity:update`), not the module key `entity`.
--- Only reads upvalue names (nothing of the program runs); the shortest, then first in order,
--- of the names found, so the choice does not depend on `next` order. False when none.
local function sourceName(t)
  if sourceNames == nil then sourceNames = setmetatable({}, { __mode = "k" }) end
  local known = sourceNames[t]
  if known ~= nil then return known end
  local best, seen = false, 0
  for _, v in next, t do
    seen = seen + 1
    if seen > FIELDS_PER_TABLE then break end
    if type(v) == "function" then
      local i = 1
      while true do
        local name, value = getupvalue(v, i)
        if name == nil then break end
        if rawequal(value, t) and M.isIdentifier(name)
          and (not best or #name < #best or (#name == #best and name < best)) then
          best = name
        end
        i = i + 1
      end
    end
  end
  sourceNames[t] = best
  return best
end

--- The name of a class table: a global's name as it is; a module's or a field's, the name its
--- source gives it where its functions say (sourceName), else that module or field name.
local function className(t)
  local name = M.nameOf(t)
  if name and ranks[t] > 1 then return sourceName(t) or name end
  return name
end

--- The class of an object with metatable `mt`: the metatable's `__name`, else the name of the
--- metatable or of its `__index` table. Nil when none is known.
function M.classOf(mt)
  if type(mt) ~= "table" then return nil end
  local name = rawget(mt, "__name")
  if type(name) == "string" then return name end
  local own = mt ~= _G and className(mt)
  if own then return own end
  -- A table that falls back on the globals (a sandbox, a module environment) is no object of "_G".
  local index = rawget(mt, "__index")
  if type(index) == "table" and index ~= _G then return className(index) end
  return nil
end

return M
