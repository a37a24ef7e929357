-- errorfilters.lua: which errors the IDE's exception filters stop on, with their conditions on
-- the error message (feature exceptionConditions). A condition is plain text the message must
-- contain (string.find with plain = true: no pattern, nothing of the program runs for it), tested
-- here before any stop, so an error that does not match costs no round trip to the IDE. A filter
-- with several conditions stops when the message contains any of them; a filter without one
-- stops on every error of its kind. The message is the text the stop would show (tostring of an
-- error value that is not a string).
local M = {}

local find = string.find
local KNOWN = { uncaught = true, caught = true, assert = true }

--- The filters and conditions a setExceptionBreakpoints `info` asks for: `filters` (every filter
--- that is on) and `conditions` (filter -> list of texts, for those that stop only on a matching
--- message). Unknown names, empty texts and conditions of filters that are off are left out.
function M.parse(info)
  local filters = { uncaught = false, caught = false, assert = false }
  if type(info.filters) == "table" then
    for _, f in ipairs(info.filters) do
      if KNOWN[f] then filters[f] = true end
    end
  end
  local conditions = {}
  if type(info.conditions) == "table" then
    for f, list in pairs(info.conditions) do
      if filters[f] and type(list) == "table" then
        local texts = {}
        for _, text in ipairs(list) do
          if type(text) == "string" and text ~= "" then texts[#texts + 1] = text end
        end
        if #texts > 0 then conditions[f] = texts end
      end
    end
  end
  return filters, conditions
end

local function passes(f, filters, conditions, text)
  if not filters[f] then return false end
  local texts = conditions[f]
  if texts == nil then return true end
  for i = 1, #texts do
    if find(text, texts[i], 1, true) then return true end
  end
  return false
end

--- Whether an error with message `text` stops: uncaught or caught, and a failed assert() (the
--- "assert" filter stops on those, caught or not).
function M.allows(filters, conditions, text, uncaught, assertion)
  if passes(uncaught and "uncaught" or "caught", filters, conditions, text) then return true end
  return (assertion and passes("assert", filters, conditions, text)) or false
end

return M
