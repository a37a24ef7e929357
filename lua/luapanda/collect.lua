-- collect.lua: collecting breakpoints (feature `collect`, Docs/Protocol_Extensions.md): at a line,
-- without stopping, evaluate a few expressions in the frame and send them with the first frames
-- to the IDE as a `collectHit`, until the collector's hit limit. A user's breakpoint on the same
-- line behaves as before (breakpoints.lua wraps both; hits.lua runs the collector first).
local compat = require("luapanda.compat")
local conditions = require("luapanda.conditions")
local preview = require("luapanda.preview")
local paths = require("luapanda.paths")
local link = require("luapanda.link")

local M = {}

local getinfo = debug.getinfo
local VALUE_LIMIT = 80 -- bytes of a value's preview
local FRAMES = 3 -- frames sent per hit
local EXPRESSIONS = 10 -- expressions per collector at most
local LIMIT_CEILING = 1000 -- hits per collector at most

local function compiles(text, what)
  if not compat.canCompile then return true end
  local fn, err = compat.compile("return " .. text, "=(" .. what .. ")", {})
  if not fn then return nil, what .. " '" .. text .. "': " .. tostring(err) end
  return true
end

--- A collector from the IDE's spec ({id, path, line, exprs, condition, limit}), or nil and why.
function M.make(spec)
  if type(spec) ~= "table" then return nil, "not a collector" end
  local line = tonumber(spec.line)
  if type(spec.id) ~= "string" or spec.id == "" then return nil, "collector without an id" end
  if type(spec.path) ~= "string" or spec.path == "" or not line then
    return nil, "collector without a path and line"
  end
  local exprs = {}
  if type(spec.exprs) ~= "table" then return nil, "collector without expressions" end
  for i, e in ipairs(spec.exprs) do
    if i > EXPRESSIONS then return nil, "at most " .. EXPRESSIONS .. " expressions" end
    if type(e) ~= "string" or not string.find(e, "%S") then return nil, "an empty expression" end
    local ok, err = compiles(e, "expression")
    if not ok then return nil, err end
    exprs[#exprs + 1] = e
  end
  if #exprs == 0 then return nil, "collector without expressions" end
  local c = { id = spec.id, path = spec.path, line = line, exprs = exprs, hits = 0 }
  if type(spec.condition) == "string" and string.find(spec.condition, "%S") then
    local ok, err = compiles(spec.condition, "condition")
    if not ok then return nil, err end
    c.condition = spec.condition
  end
  local limit = math.floor(tonumber(spec.limit) or 20)
  if limit < 1 then limit = 1 end
  if limit > LIMIT_CEILING then limit = LIMIT_CEILING end
  c.limit = limit
  return c
end

--- The first frames from `level` (relative to the caller): name, file as stack frames name it.
local function frames(level)
  local out = {}
  for l = level + 1, level + FRAMES do
    local info = getinfo(l, "nSl")
    if not info then break end
    local file, oPath = paths.frameFile(info)
    local name = info.what == "main" and "main chunk" or info.name or "?"
    out[#out + 1] = { name = name, file = file, oPath = oPath, line = info.currentline or 0 }
  end
  return out
end

--- One collector reached at `line` of the frame at `level` (relative to the caller), `fn` its
--- function: its condition, then its expressions; sends the hit. Errors are the hit's, as text.
local function collectOne(c, level, fn, line)
  if c.hits >= c.limit then return end
  if c.condition then
    local ok, value = conditions.evaluate(c.condition, level + 1, line, fn)
    if not ok then
      if not c.conditionError then
        c.conditionError = tostring(value)
        link.send("collectHit", { id = c.id, conditionError = c.conditionError }, "0")
      end
      return
    end
    if not value then return end
  end
  c.hits = c.hits + 1
  local values = {}
  for i, e in ipairs(c.exprs) do
    local ok, value = conditions.evaluate(e, level + 1, line, fn)
    if ok then
      values[i] = { value = preview.describe(value, VALUE_LIMIT), type = type(value) }
    else
      values[i] = { error = tostring(value) }
    end
  end
  link.send("collectHit", { id = c.id, hit = c.hits, values = values, frames = frames(level + 1) }, "0")
end

--- The collectors `list` reached at `line` in the frame at `level` (relative to the caller).
function M.hit(list, level, fn, line)
  for i = 1, #list do collectOne(list[i], level + 1, fn, line) end
end

return M
