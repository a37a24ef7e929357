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
--
-- Local classes and local functions (`local Entity = {}` … `function Entity:update`, `local
-- function helper`) are reachable under no name. For them the IDE, which reads the workspace's
-- sources, sends each name's definition sites: the file (a path as `setBreakPoint` carries it)
-- and the function's `linedefined`/`lastlinedefined`. A function whose chunk is that file and
-- whose lines are those is the one named, loaded or not yet: its verdict carries the breakpoint as
-- a resolved function's does. A site counts as bound once code of its file has run (as a line
-- breakpoint's file is "loaded" then).
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
-- Definition sites of every function breakpoint by key and path, as line breakpoints are stored:
-- sitesByKey[key][fullPath] = { site, … }; a site is { bp, path, key, full, first, last, line,
-- source = the chunk source once code of its file has been seen }.
local sitesByKey, siteCount = {}, 0
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

--- The sites (lists of sitesByKey[key]) that apply to chunk `source`, or nil.
local function sitesOf(source)
  if siteCount == 0 or not paths.isFileSource(source) then return nil end
  local group = sitesByKey[paths.key(source)]
  return group and breakpoints.choose(group, source)
end

--- Whether `site` is where chunk `source` comes from.
local function siteIn(site, source)
  for _, sites in ipairs(sitesOf(source) or {}) do
    if sites == sitesByKey[site.key][site.full] then return true end
  end
  return false
end

--- The function breakpoint whose definition site the function `info` (getinfo "S") is, or nil
--- (breakpoints.lua asks while computing the function's verdict).
local function siteFor(info)
  if siteCount == 0 or info.what ~= "Lua" then return nil end
  for _, sites in ipairs(sitesOf(info.source) or {}) do
    for _, site in ipairs(sites) do
      if site.first == info.linedefined and site.last == info.lastlinedefined then return site.bp end
    end
  end
  return nil
end

--- "entity.lua:5, player.lua:9": where the sites are defined, for messages.
local function placesOf(sites)
  local out = {}
  for _, site in ipairs(sites) do
    out[#out + 1] = (string.match(site.path, "([^/\\]*)$") or site.path) .. ":" .. site.first
  end
  return table.concat(out, ", ")
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
  -- Sites of functions the name found are not counted twice.
  local loadedSites, waiting = {}, {}
  for _, site in ipairs(bp.sites) do
    local known = false
    for _, fn in ipairs(fns) do
      local info = getinfo(fn, "S")
      if info.linedefined == site.first and info.lastlinedefined == site.last and siteIn(site, info.source) then
        known = true
      end
    end
    if not known then
      if site.source then loadedSites[#loadedSites + 1] = site else waiting[#waiting + 1] = site end
    end
  end
  if #fns == 0 and #loadedSites == 0 then
    local message = why or ("not found yet: no loaded function is named " .. bp.name)
    if #waiting > 0 then
      message = "not loaded yet: " .. bp.name .. " is defined at " .. placesOf(waiting) ..
        "; it binds when that file's code runs"
    end
    bp.result = { name = bp.name, verified = false, message = message }
    return false
  end
  local result = { name = bp.name, verified = true }
  local line, source
  if #fns > 0 then
    line, source = firstLine(fns[1])
  else
    line, source = loadedSites[1].line, loadedSites[1].source
  end
  result.line = line
  if paths.isFileSource(source) then
    result.file, result.oPath = paths.key(source), paths.oPath(source)
  else
    result.file = source
  end
  local total = #fns + #loadedSites + #waiting
  if total > 1 then
    result.message = "the name denotes " .. total .. " functions; it stops in each"
    if #waiting > 0 then
      result.message = result.message .. " (not loaded yet: " .. placesOf(waiting) .. ")"
    end
  end
  bp.result = result
  for _, fn in ipairs(fns) do
    if breakpoints.entries[fn] == nil then breakpoints.entries[fn] = bp end
  end
  return true
end

--- Tries the pending names again (called by breakpoints.lua while computing a verdict of a
--- function of chunk `source`, whose file is loaded then). Returns whether one bound: the
--- verdicts computed so far are stale then.
local function retryPending(source)
  if pendingCount == 0 then return false end
  for _, sites in ipairs(sitesOf(source) or {}) do
    for _, site in ipairs(sites) do site.source = site.source or source end
  end
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
  sitesByKey, siteCount = {}, 0
  for fn in pairs(breakpoints.entries) do breakpoints.entries[fn] = nil end
  breakpoints.setFunctionCount(0)
end

--- The definition sites of a spec ({ path, first, last, line } each), stored under their keys.
local function addSites(bp, specSites)
  bp.sites = {}
  if type(specSites) ~= "table" then return end
  for _, s in ipairs(specSites) do
    local first, last = type(s) == "table" and tonumber(s.first), type(s) == "table" and tonumber(s.last)
    if first and last and type(s.path) == "string" then
      local key, full = paths.breakpointKey(s.path)
      local site = { bp = bp, path = s.path, key = key, full = full, first = first, last = last,
        line = tonumber(s.line) or first }
      local group = sitesByKey[key] or {}
      sitesByKey[key] = group
      group[full] = group[full] or {}
      table.insert(group[full], site)
      bp.sites[#bp.sites + 1] = site
      siteCount = siteCount + 1
    end
  end
end

--- Replaces every function breakpoint; returns one result per spec, in order:
--- { name, verified, file?, oPath?, line?, message? }.
function M.set(specs)
  M.clear()
  local results = {}
  if type(specs) ~= "table" then specs = {} end
  local accepted = {}
  for i, spec in ipairs(specs) do
    local name = type(spec) == "table" and spec.name
    local parts = splitName(name)
    if not parts then
      results[i] = { name = tostring(name), verified = false,
        message = "'" .. tostring(name) .. "' is not a Lua function name (like Entity:update, util.helper or tick)" }
    else
      local bp, err = bprules.make(spec)
      if not bp then
        results[i] = { name = name, verified = false, message = err }
      else
        bp.name, bp.parts, bp.isFunction = name, parts, true
        addSites(bp, spec.sites)
        list[#list + 1] = bp
        accepted[i] = bp
      end
    end
  end
  -- Which sites' files are loaded (every site is stored first: same-name files choose among all).
  if siteCount > 0 then breakpoints.noteModules() end
  for _, group in pairs(sitesByKey) do
    for _, sites in pairs(group) do
      for _, site in ipairs(sites) do
        site.source = breakpoints.loadedSource(function(source) return siteIn(site, source) end)
      end
    end
  end
  for i = 1, #specs do
    local bp = accepted[i]
    if bp then
      if not resolve(bp) then
        pending[bp] = true
        pendingCount = pendingCount + 1
      end
      results[i] = bp.result
    end
  end
  breakpoints.setFunctionCount(#list)
  return results
end

function M.count() return #list end

breakpoints.init({ retryPending = retryPending, siteFor = siteFor, flushFunctions = flush })
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
