-- bprules.lua: a breakpoint's rules, parsed and checked when it is set (a bad one comes back
-- unverified with a message): its condition compiles, its hit condition ("> N", "% N", …) parses,
-- its logpoint template splits into text and expressions; and, when its line is reached, whether
-- its hit count lets it fire. hits.lua evaluates the rest where the hook fires (conditions.lua).
local compat = require("luapanda.compat")

local M = {}

--- Parses a hit condition: "> N", ">= N", "== N" (or "= N"), "< N", "<= N", "% N" (or
--- "% N == 0") or a bare "N" (>= N): the grammar of src/session/breakpoints/hitCondition.ts, whose cases
--- (test/scenarios/breakpointRules/hitConditions.json) run against both.
local function parseHitCondition(text)
  local s = string.gsub(string.gsub(tostring(text), "^%s+", ""), "%s+$", "")
  if s == "" then return nil end
  local op, n = string.match(s, "^([<>=%%]=?)%s*(%d+)$")
  if not op then
    n = string.match(s, "^%%%s*(%d+)%s*==%s*0$")
    op = n and "%"
  end
  if not op then
    n = string.match(s, "^(%d+)$")
    op = n and ">="
  end
  if op == "=" then op = "==" end
  local valid = { [">"] = true, [">="] = true, ["=="] = true, ["<"] = true, ["<="] = true, ["%"] = true }
  if not op or not valid[op] then
    return nil, "invalid hit condition '" .. s .. "' (use > N, >= N, == N, < N, <= N, % N or N)"
  end
  n = tonumber(n)
  if op == "%" and n == 0 then return nil, "invalid hit condition '% 0'" end
  return { op = op, n = n }
end

local function hitConditionMet(hc, hits)
  local op, n = hc.op, hc.n
  if op == ">" then return hits > n end
  if op == ">=" then return hits >= n end
  if op == "==" then return hits == n end
  if op == "<" then return hits < n end
  if op == "<=" then return hits <= n end
  return hits % n == 0
end

--- Splits a log message into literal text and `{expr}` parts; `{{`/`}}` are literal braces.
local function parseTemplate(message)
  local parts, i, n, literal = {}, 1, #message, {}
  while i <= n do
    local c = string.sub(message, i, i)
    if c == "{" and string.sub(message, i + 1, i + 1) == "{" then
      literal[#literal + 1] = "{" i = i + 2
    elseif c == "}" and string.sub(message, i + 1, i + 1) == "}" then
      literal[#literal + 1] = "}" i = i + 2
    elseif c == "{" then
      local close = string.find(message, "}", i + 1, true)
      if not close then return nil, "unclosed '{' in log message" end
      if #literal > 0 then parts[#parts + 1] = table.concat(literal) literal = {} end
      local expr = string.sub(message, i + 1, close - 1)
      local fn, err = compat.compile("return " .. expr, "=(log)", {})
      if not fn then return nil, "log message expression {" .. expr .. "}: " .. tostring(err) end
      parts[#parts + 1] = { expr = expr }
      i = close + 1
    else
      literal[#literal + 1] = c i = i + 1
    end
  end
  if #literal > 0 then parts[#parts + 1] = table.concat(literal) end
  return parts
end

local function compileCheck(expr, what)
  if not compat.canCompile then return true end
  local fn, err = compat.compile("return " .. expr, "=(" .. what .. ")", {})
  if not fn then return nil, what .. " '" .. expr .. "': " .. tostring(err) end
  return true
end

--- A breakpoint's rules, checked when set: `type` (0 condition, 1 logpoint, 2 plain; a function
--- breakpoint without a type is a logpoint when it has a logMessage), condition, hit condition,
--- log template. Returns the breakpoint, or nil and why.
function M.make(spec)
  local kind = tonumber(spec.type)
  if kind == nil then
    kind = (type(spec.logMessage) == "string" and string.find(spec.logMessage, "%S")) and 1 or 2
  end
  local bp = { kind = kind, hits = 0 }
  local condition = spec.condition
  if type(condition) == "string" and string.find(condition, "%S") and kind ~= 1 then
    local ok, err = compileCheck(condition, "condition")
    if not ok then return nil, err end
    bp.condition = condition
  end
  if spec.hitCondition ~= nil and string.find(tostring(spec.hitCondition), "%S") then
    local hc, err = parseHitCondition(spec.hitCondition)
    if not hc then return nil, err end
    bp.hitCondition = hc
  end
  if kind == 1 then
    local parts, err = parseTemplate(tostring(spec.logMessage or ""))
    if not parts then return nil, err end
    bp.log = parts
  end
  return bp
end

--- Counts a hit of a breakpoint that matched its line (and its condition): whether it fires.
function M.countHit(bp)
  bp.hits = bp.hits + 1
  if bp.hitCondition then return hitConditionMet(bp.hitCondition, bp.hits) end
  return true
end

M.parseHitCondition = parseHitCondition

return M
