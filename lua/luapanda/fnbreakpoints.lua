-- fnbreakpoints.lua: function breakpoints (protocol extension `setFunctionBreakPoint`, feature
-- `functionBreakpoints`). A name as a Lua programmer writes it (`Entity:update`, `util.helper`,
-- `love.update`, `tick`) is resolved to the Lua functions it denotes, looking only with rawget and
-- table-valued __index chains (no metamethod runs): a path from the globals; a path from a loaded
-- module (`package.loaded["util"]` for `util.helper`); a path from a table a loaded module or a
-- global table holds (`Cart:total` when `shop.Cart` is a class). `A:b` and `A.b` are the same field.
--
-- How it breaks (see Doc_Common.md, "Function breakpoints"): each resolved function's verdict
-- (breakpoints.lua) carries the breakpoint under the key 0, which no line event uses. The hook
-- sees the call of a function with a verdict anyway; when that verdict has a [0], it arms, and the
-- next line event — the function's first, before its body runs — fires the breakpoint. So a loop
-- back to that line never stops again, and a function without a function breakpoint pays nothing.
--
-- A name that resolves to nothing stays pending: while one is, the first verdict of each function
-- (the hook computes one per function, once) tries the pending names again, so a name that a
-- `require` made reachable binds before that function's first call goes on.
local breakpoints = require("luapanda.breakpoints")
local paths = require("luapanda.paths")
local events = require("luapanda.events")
local bprules = require("luapanda.bprules")

local M = {}

local getinfo, getmetatable = debug.getinfo, debug.getmetatable
local rawget, type, next = rawget, type, next

local list = {}            -- every function breakpoint, in the order the IDE sent them
local pending = {}         -- the ones that resolved to nothing yet
local pendingCount = 0
local bound = {}           -- notices for the IDE: results of pending names that resolved since
local NAMESPACES_LIMIT = 500 -- tables looked into per resolution for a name's first part
local INDEX_DEPTH = 8        -- __index tables followed per field

-- notifier(results): sends `functionBreakpointsBound` (M.init, by commands.lua; forgotten when the
-- breakpoints are cleared).
local notifier = nil

function M.init(callbacks)
  notifier = callbacks.notifier or notifier
end

local function isIdentifier(s)
  return string.match(s, "^[%a_][%w_]*$") ~= nil
end

--- "A:b" / "a.b.c" -> { "A", "b" } / { "a", "b", "c" }; nil when it is not a Lua function name
--- (':' at most once, before the last part: `A:b` and `A.b` are the same field).
local function splitName(name)
  if type(name) ~= "string" then return nil end
  local text = string.gsub(string.gsub(name, "^%s+", ""), "%s+$", "")
  local colonAt = string.find(text, ":", 1, true)
  if colonAt then
    if string.find(text, "[.:]", colonAt + 1) then return nil end
    text = string.sub(text, 1, colonAt - 1) .. "." .. string.sub(text, colonAt + 1)
  end
  local parts = {}
  for part in string.gmatch(text .. ".", "([^.]*)%.") do
    if not isIdentifier(part) then return nil end
    parts[#parts + 1] = part
  end
  return #parts > 0 and parts or nil
end

--- t[k] as the program reads it without running code: rawget, then table-valued __index chains.
local function field(t, k)
  for _ = 1, INDEX_DEPTH do
    local v = rawget(t, k)
    if v ~= nil then return v end
    local mt = getmetatable(t)
    local index = type(mt) == "table" and rawget(mt, "__index")
    if type(index) ~= "table" then return nil end
    t = index
  end
  return nil
end

--- The value at parts[from..] below `root`, or nil.
local function walk(root, parts, from)
  local v = root
  for i = from, #parts do
    if type(v) ~= "table" then return nil end
    v = field(v, parts[i])
  end
  return v
end

local function add(found, v)
  if v ~= nil and not found.seen[v] then
    found.seen[v] = true
    found[#found + 1] = v
  end
end

--- Every value the name denotes (deduplicated, in a stable order of roots).
local function lookup(parts)
  local found = { seen = {} }
  add(found, walk(_G, parts, 1))
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) ~= "table" then return found end
  -- A module's own name as the root: "game.util.helper" is loaded["game.util"].helper or
  -- loaded["game"].util.helper; "tick" may be a module that is a function.
  for i = #parts, 1, -1 do
    local m = rawget(loaded, table.concat(parts, ".", 1, i))
    if m ~= nil then add(found, i == #parts and m or walk(m, parts, i + 1)) end
  end
  -- A table a module or a global table holds as the root: "Cart:total" for shop.Cart.
  if #parts >= 2 then
    local seen, n = {}, 0
    local function look(ns)
      if type(ns) ~= "table" or seen[ns] or ns == _G or ns == loaded then return end
      seen[ns] = true
      n = n + 1
      local head = rawget(ns, parts[1])
      if type(head) == "table" then add(found, walk(head, parts, 2)) end
    end
    for _, m in next, loaded do
      if n >= NAMESPACES_LIMIT then break end
      look(m)
    end
    for k, g in next, _G do
      if n >= NAMESPACES_LIMIT then break end
      if type(k) == "string" then look(g) end
    end
  end
  return found
end

--- The first line with code of `fn` (its first line event), else where it is defined.
local function firstLine(fn)
  local info = getinfo(fn, "SL")
  local best
  for line in pairs(info.activelines or {}) do
    if best == nil or line < best then best = line end
  end
  return best or info.linedefined, info.source
end

--- Binds `bp` to what its name denotes now; returns whether it is bound, and fills bp.result.
local function resolve(bp)
  local found = lookup(bp.parts)
  local fns, why = {}, nil
  for _, v in ipairs(found) do
    if type(v) == "function" then
      local info = getinfo(v, "S")
      if info.what == "C" then
        why = why or (bp.name .. " is a C function: it has no Lua line to stop on")
      elseif not breakpoints.isOwnSource(info.source) then
        fns[#fns + 1] = v
      end
    else
      why = why or (bp.name .. " is a " .. type(v) .. ", not a function")
    end
  end
  if #fns == 0 then
    bp.result = { name = bp.name, verified = false,
      message = why or ("not found yet: no loaded function is named " .. bp.name) }
    return false
  end
  local line, source = firstLine(fns[1])
  local result = { name = bp.name, verified = true, line = line }
  if paths.isFileSource(source) then
    result.file, result.oPath = paths.key(source), paths.oPath(source)
  else
    result.file = source
  end
  if #fns > 1 then result.message = "the name denotes " .. #fns .. " functions; it stops in each" end
  bp.result = result
  for _, fn in ipairs(fns) do
    if breakpoints.entries[fn] == nil then breakpoints.entries[fn] = bp end
  end
  return true
end

--- Tries the pending names again (called by breakpoints.lua while computing a verdict). Returns
--- whether one bound: the verdicts computed so far are stale then.
local function retryPending()
  if pendingCount == 0 then return false end
  local any = false
  for _, bp in ipairs(list) do -- (in the order set: the notices go out in that order)
    if pending[bp] and resolve(bp) then
      pending[bp] = nil
      pendingCount = pendingCount - 1
      bound[#bound + 1] = bp.result
      any = true
    end
  end
  return any
end

--- Sends the results of names that bound since the last call (after a verdict, never during).
local function flush()
  if #bound == 0 or not notifier then
    bound = {}
    return
  end
  local results = bound
  bound = {}
  notifier({ results = results })
end

function M.clear()
  list, pending, pendingCount, bound = {}, {}, 0, {}
  for fn in pairs(breakpoints.entries) do breakpoints.entries[fn] = nil end
  breakpoints.setFunctionCount(0)
end

--- Replaces every function breakpoint; returns one result per spec, in order:
--- { name, verified, file?, oPath?, line?, message? }.
function M.set(specs)
  M.clear()
  local results = {}
  if type(specs) ~= "table" then specs = {} end
  for _, spec in ipairs(specs) do
    local name = type(spec) == "table" and spec.name
    local parts = splitName(name)
    local result
    if not parts then
      result = { name = tostring(name), verified = false,
        message = "'" .. tostring(name) .. "' is not a Lua function name (like Entity:update, util.helper or tick)" }
    else
      local bp, err = bprules.make(spec)
      if not bp then
        result = { name = name, verified = false, message = err }
      else
        bp.name, bp.parts, bp.isFunction = name, parts, true
        list[#list + 1] = bp
        if not resolve(bp) then
          pending[bp] = true
          pendingCount = pendingCount + 1
        end
        result = bp.result
      end
    end
    results[#results + 1] = result
  end
  breakpoints.setFunctionCount(#list)
  return results
end

function M.count() return #list end

breakpoints.init({ retryPending = retryPending, flushFunctions = flush })
-- A disconnect clears every breakpoint (breakpoints.clear): these too, and the IDE is gone.
events.on("cleared", function()
  M.clear()
  notifier = nil
end)

--- One line per function breakpoint: "name: file:line" or "name: (pending)".
function M.describe()
  local out = {}
  for _, bp in ipairs(list) do
    local r = bp.result or {}
    out[#out + 1] = bp.name .. ": " .. (r.verified and (tostring(r.file) .. ":" .. tostring(r.line)) or "(pending)")
  end
  return out
end

M.splitName = splitName

return M
