-- variables.lua: the Var lists of getVariable (protocol doc 9): scopes (locals 10000, globals
-- 20000, upvalues 30000 of a frame) and children of tables, functions (their upvalues),
-- userdata (their metatable) and varargs. References live for one stop. Children come in a
-- stable order (array part first, then other keys sorted by type and value) so that paging by
-- start/count is consistent; a table is never traversed through metamethods. Values are shown
-- as previews (preview.lua), children named as keys are written in Lua (`name`, `[1]`, `["a b"]`).
local stack = require("luapanda.stack")
local eval = require("luapanda.eval")
local preview = require("luapanda.preview")
local classnames = require("luapanda.classnames")
-- The IDE's options (base64, pagingLimit) are read from the session's state where the handshake
-- put them: this module is compiled on first use (a stop), not at the handshake.
local ideConfig = require("luapanda.state").config

local M = {}

local getupvalue = debug.getupvalue
local dgetmetatable = debug.getmetatable
local format = string.format

M.SCOPE_LOCALS, M.SCOPE_GLOBALS, M.SCOPE_UPVALUES = 10000, 20000, 30000
local MAX_REF = 9999

local refs, refByValue, nextRef = {}, {}, 1

function M.reset()
  refs, refByValue, nextRef = {}, {}, 1
  classnames.reset()
end

local isIdentifier = preview.isIdentifier

local function childCountOf(value)
  local t = type(value)
  local n = 0
  if t == "table" then
    for _ in next, value do n = n + 1 end
    if dgetmetatable(value) ~= nil then n = n + 1 end
  elseif t == "function" then
    while getupvalue(value, n + 1) ~= nil do n = n + 1 end
  elseif t == "userdata" then
    if dgetmetatable(value) ~= nil then n = 1 end
  end
  return n
end

local function refFor(value, kind, extra)
  local key = kind == "varargs" and extra or value
  local existing = refByValue[key]
  if existing then return existing end
  if nextRef > MAX_REF then return nil end
  local id = nextRef
  nextRef = nextRef + 1
  refs[id] = { kind = kind, value = value, extra = extra }
  refByValue[key] = id
  return id
end

--- The display string of a value: its preview (protocol doc 9.1 keeps the field, not the form).
function M.display(value, stringLimit)
  return preview.describe(value, stringLimit)
end

--- One Var element.
function M.var(name, value, evaluateName, extra, stringLimit)
  local t = type(value)
  local v = { name = name, type = t, value = M.display(value, stringLimit), variablesReference = "0" }
  if t == "string" and ideConfig.base64 then v.value = require("luapanda.json").base64(v.value) end
  local expandable = (t == "table") or (t == "function" and getupvalue(value, 1) ~= nil)
    or (t == "userdata" and dgetmetatable(value) ~= nil)
  if expandable then
    local id = refFor(value, t)
    if id then
      v.variablesReference = id
      v.childCount = childCountOf(value)
    end
  end
  if evaluateName then v.evaluateName = evaluateName end
  if extra then for k, x in pairs(extra) do v[k] = x end end
  return v
end

local keyLess, keyName = preview.keyLess, preview.keyName

local function childEvaluateName(parent, k)
  if not parent then return nil end
  if isIdentifier(k) then return parent .. "." .. k end
  local t = type(k)
  if t == "string" then return parent .. "[" .. string.gsub(format("%q", k), "\\\n", "\\n") .. "]" end
  if t == "number" or t == "boolean" then return parent .. "[" .. tostring(k) .. "]" end
  return nil
end

-- Children of a reference: list of { name, value, evaluateName } built once per stop.
local function tableChildren(t, parentName)
  local list, n = {}, 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  for i = 1, n do
    list[i] = { name = "[" .. i .. "]", value = rawget(t, i), evaluateName = childEvaluateName(parentName, i) }
  end
  local others = {}
  for k in next, t do
    if not (type(k) == "number" and k >= 1 and k <= n and k == math.floor(k)) then
      others[#others + 1] = k
    end
  end
  pcall(table.sort, others, keyLess)
  for _, k in ipairs(others) do
    list[#list + 1] = { name = keyName(k), value = rawget(t, k), evaluateName = childEvaluateName(parentName, k) }
  end
  local mt = dgetmetatable(t)
  if mt ~= nil then list[#list + 1] = { name = "_Metatable_", value = mt } end
  return list
end

local function children(ref)
  if ref.list then return ref.list end
  local value, list = ref.value, {}
  if ref.kind == "table" then
    list = tableChildren(value, ref.evaluateName)
  elseif ref.kind == "function" then
    local i = 1
    while true do
      local name, v = getupvalue(value, i)
      if name == nil then break end
      list[#list + 1] = { name = name, value = v }
      i = i + 1
    end
  elseif ref.kind == "userdata" then
    list[1] = { name = "_Metatable_", value = dgetmetatable(value) }
  elseif ref.kind == "varargs" then
    for i = 1, value.n or #value do list[i] = { name = "[" .. i .. "]", value = value[i] } end
  end
  ref.list = list
  return list
end

local function page(list, start, count)
  start = tonumber(start)
  count = tonumber(count)
  if not start and not count then
    local pagingLimit = ideConfig.pagingLimit
    if pagingLimit and #list > pagingLimit then return 1, pagingLimit end
    return 1, #list
  end
  start = math.max(0, math.floor(start or 0))
  count = count and math.max(0, math.floor(count)) or (#list - start)
  return start + 1, math.min(#list, start + count)
end

local function render(list, start, count, withIndex)
  local out = {}
  local first, last = page(list, start, count)
  for i = first, last do
    local item = list[i]
    local v = M.var(item.name, item.value, item.evaluateName, withIndex and item.index and { index = item.index } or nil)
    if item.evaluateName then
      local r = refs[tonumber(v.variablesReference) or 0]
      if r and not r.evaluateName then r.evaluateName = item.evaluateName end
    end
    out[#out + 1] = v
  end
  return out
end

local function localsList(frame)
  local byName, order, i = {}, {}, 1
  while true do
    local name, value = stack.getlocal(frame, i)
    if name == nil then break end
    -- The interpreter's own slots ("(for state)", "(temporary)", "(*temporary)"…) are not the
    -- program's variables.
    if string.sub(name, 1, 1) ~= "(" then
      local entry = byName[name]
      if entry then
        entry.value, entry.index = value, i
      else
        entry = { name = name, value = value, index = i, evaluateName = isIdentifier(name) and name or nil }
        byName[name] = entry
        order[#order + 1] = entry
      end
    end
    i = i + 1
  end
  local varargs = stack.varargs(frame)
  if varargs.n > 0 then
    varargs.n = nil -- listed as the children 1..n only
    order[#order + 1] = { name = "...", value = varargs }
  end
  return order
end

local function upvaluesList(frame)
  local list = {}
  if type(frame.func) ~= "function" then return list end
  local i = 1
  while true do
    local name, value = getupvalue(frame.func, i)
    if name == nil then break end
    list[#list + 1] = { name = name, value = value, evaluateName = isIdentifier(name) and name or nil }
    i = i + 1
  end
  return list
end

local function globalsList()
  local keys = {}
  for k in next, _G do keys[#keys + 1] = k end
  pcall(table.sort, keys, keyLess)
  local list = {}
  for _, k in ipairs(keys) do
    list[#list + 1] = { name = isIdentifier(k) and k or keyName(k), value = rawget(_G, k),
                        evaluateName = isIdentifier(k) and k or nil }
  end
  return list
end

--- getVariable: returns the Var array for `varRef` (scope id with `stackId`, or object ref).
function M.list(varRef, stackId, start, count)
  local ref = tonumber(varRef)
  if not ref then return {} end
  if ref >= M.SCOPE_LOCALS then
    local scopeId = ref >= M.SCOPE_UPVALUES and M.SCOPE_UPVALUES or ref >= M.SCOPE_GLOBALS and M.SCOPE_GLOBALS or M.SCOPE_LOCALS
    if scopeId == M.SCOPE_GLOBALS then return render(globalsList(), start, count) end
    local frame = stack.get(stackId)
    if not frame then return {} end
    if scopeId == M.SCOPE_UPVALUES then return render(upvaluesList(frame), start, count) end
    local list = localsList(frame)
    return render(list, start, count, true)
  end
  local r = refs[ref]
  if not r then return {} end
  return render(children(r), start, count)
end

local function parseNewValue(frame, text)
  local s = string.gsub(string.gsub(tostring(text), "^%s+", ""), "%s+$", "")
  -- A string literal as the Variables view shows one (escaped): the string it stands for.
  local q = preview.unquote(s)
  if q then return true, q end
  if s == "nil" then return true, nil end
  if s == "true" then return true, true end
  if s == "false" then return true, false end
  local n = tonumber(s)
  if n then return true, n end
  if not frame then return false, "cannot evaluate '" .. s .. "' without a frame" end
  return eval.watch(frame, s)
end

-- The key of a child of table `t` from its listed name: `name`, `[1]`, `["a b"]`, `[true]`, a
-- reference key by its listed name (`[table: 0x…]`), or upstream's forms (`"name"`, `1`).
local function parseKey(name, t)
  if isIdentifier(name) then return name end
  local inside = string.match(name, "^%[(.*)%]$")
  if inside then
    local q = preview.unquote(inside)
    if q then return q end
    local n = tonumber(inside)
    if n then return n end
    if inside == "true" then return true end
    if inside == "false" then return false end
    for k in next, t do
      if keyName(k) == name then return k end
    end
    return nil
  end
  local q = preview.unquote(name) or string.match(name, '^"(.*)"$')
  if q then return q end
  local n = tonumber(name)
  if n then
    if rawget(t, n) ~= nil or rawget(t, name) == nil then return n end
    return name
  end
  if name == "true" then return true end
  if name == "false" then return false end
  return name
end

local function result(ok, name, value, tip)
  if not ok then return { success = "false", name = name, tip = tip, type = "string", value = tip, variablesReference = "0" } end
  local v = M.var(name, value)
  return { success = "true", name = name, type = v.type, value = M.display(value),
           variablesReference = v.variablesReference, tip = "variable " .. name .. " set" }
end

--- setVariable: returns the reply object.
function M.set(varRef, stackId, varName, newValue)
  local ref = tonumber(varRef) or -1
  -- Upstream IDEs send stackId "NaN" for table children: evaluate in the top frame then.
  local frame = stack.get(stackId) or stack.get(2)
  local name = tostring(varName or "")
  local ok, value = parseNewValue(frame, newValue)
  if not ok then return result(false, name, nil, tostring(value)) end
  if ref == M.SCOPE_GLOBALS then
    local key = parseKey(name, _G)
    if key == nil then return result(false, name, nil, "no global named " .. name) end
    rawset(_G, key, value)
    return result(true, name, value)
  elseif ref >= M.SCOPE_UPVALUES or ref == M.SCOPE_LOCALS or (ref > M.SCOPE_LOCALS and ref < M.SCOPE_GLOBALS) then
    if not frame then return result(false, name, nil, "unknown frame " .. tostring(stackId)) end
    if ref < M.SCOPE_GLOBALS then
      local index, i = nil, 1
      while true do
        local n = stack.getlocal(frame, i)
        if n == nil then break end
        if n == name then index = i end
        i = i + 1
      end
      if index then
        stack.setlocal(frame, index, value)
        return result(true, name, value)
      end
    end
    if type(frame.func) == "function" then
      local i = 1
      while true do
        local n = getupvalue(frame.func, i)
        if n == nil then break end
        if n == name then
          debug.setupvalue(frame.func, i, value)
          return result(true, name, value)
        end
        i = i + 1
      end
    end
    return result(false, name, nil, "no variable named " .. name .. " in this scope")
  end
  local r = refs[ref]
  if not r then return result(false, name, nil, "unknown variable reference " .. tostring(varRef)) end
  if r.kind == "table" then
    if name == "_Metatable_" then return result(false, name, nil, "the metatable cannot be replaced here") end
    local key = parseKey(name, r.value)
    if key == nil then return result(false, name, nil, "no field " .. name .. " in this table") end
    rawset(r.value, key, value)
    r.list = nil
    return result(true, name, value)
  elseif r.kind == "function" then
    local i = 1
    while true do
      local n = getupvalue(r.value, i)
      if n == nil then break end
      if n == name then
        debug.setupvalue(r.value, i, value)
        r.list = nil
        return result(true, name, value)
      end
      i = i + 1
    end
  end
  return result(false, name, nil, "cannot set " .. name .. " here")
end

--- The single Var of a watch/REPL reply. `values` holds every result ({n = count, ...}): one is
--- shown as itself; several as their previews joined (`5, 8`), expandable into `[1]`, `[2]`…;
--- none (a statement, a call that returns nothing) as an empty value.
function M.evalResult(name, ok, values, failureSuccessValue, stringLimit)
  local json = require("luapanda.json")
  if not ok then
    local v = { name = name, type = "string", value = tostring(values), variablesReference = "0", isSuccess = failureSuccessValue }
    if ideConfig.base64 then v.value = json.base64(v.value) end
    return v
  end
  local n = values.n or 0
  if n == 1 then
    local v = M.var(name, values[1], nil, nil, stringLimit)
    v.isSuccess = "true"
    return v
  end
  local shown, types = {}, {}
  for i = 1, n do
    shown[i] = M.display(values[i])
    types[i] = type(values[i])
  end
  local v = { name = name, type = n == 0 and "nil" or table.concat(types, ", "),
              value = table.concat(shown, ", "), variablesReference = "0", isSuccess = "true" }
  if n > 1 then
    local id = refFor(values, "varargs", values)
    if id then
      v.variablesReference = id
      v.childCount = n
    end
  end
  return v
end

return M
