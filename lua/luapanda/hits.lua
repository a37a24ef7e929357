-- hits.lua: whether a breakpoint the program reached fires: its condition (a failing one counts as
-- false, and the IDE is told once), its hit count, and a logpoint's message (logged, never a stop);
-- collecting breakpoints on the line (collect.lua) run first, and never stop.
local bprules = require("luapanda.bprules")
local conditions = require("luapanda.conditions")
local safe = require("luapanda.safe")
local link = require("luapanda.link")

local M = {}

--- The logpoint's text, its expressions evaluated in the frame at `level` (relative to the caller).
local function interpolate(bp, level, line)
  local out = {}
  for _, part in ipairs(bp.log) do
    if type(part) == "string" then
      out[#out + 1] = part
    else
      local ok, value = conditions.evaluate(part.expr, level + 1, line)
      out[#out + 1] = ok and (type(value) == "string" and value or safe.tostring(value)) or ("{" .. part.expr .. ": " .. tostring(value) .. "}")
    end
  end
  return table.concat(out)
end

--- Decides whether a breakpoint reached at `line` fires. `base` relative to the caller.
function M.fires(bp, base, fn, line)
  if bp.kind == 3 then
    -- Collecting breakpoints (collect.lua) never stop; the user's breakpoint there, if any, decides.
    bp.run(bp.collect, base + 1, fn, line or bp.line)
    local under = bp.under
    if not under then return false end
    local fired = M.fires(under, base + 1, fn, line)
    return fired
  end
  line = line or bp.line
  if bp.condition then
    local ok, value = conditions.evaluate(bp.condition, base + 1, line, fn)
    if not ok then
      -- Said once per breakpoint: a condition that fails is false, and the user should know why.
      if not bp.conditionError then
        bp.conditionError = tostring(value)
        local what = bp.isFunction and ("function breakpoint " .. bp.name)
          or ("breakpoint at line " .. tostring(bp.line))
        link.log("LuaPanda: the condition of the " .. what .. " ("
          .. bp.condition .. ") failed: " .. bp.conditionError .. "; it counts as false", 2)
      end
      return false
    end
    if not value then return false end
  end
  if not bprules.countHit(bp) then return false end
  if bp.kind == 1 then
    link.log("[LogPoint Output]: " .. interpolate(bp, base + 1, line), 2, 2)
    return false
  end
  return true
end

return M
