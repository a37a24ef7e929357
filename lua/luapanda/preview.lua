-- preview.lua: how a value is shown wherever the IDE shows one (Variables, hover, watch, REPL,
-- the MCP tools): tables as Lua literals of their first fields (`Entity {name = "hero", x = 0,
-- …}`, `{1, 2, 3, … (200)}`), strings quoted and escaped as in Lua source, functions by where
-- they are defined. A preview never runs program code but a value's own `__tostring`, bounded
-- (safe.lua); tables are read with rawget/next only, and the work is bounded whatever the size
-- of the table: it stops once the preview is full.
local compat = require("luapanda.compat")
local safe = require("luapanda.safe")
local classnames = require("luapanda.classnames")

local M = {}

M.LIMIT = 200 -- bytes of a preview at most, all included (class, fields, `… (n)}`, __tostring)
local SUFFIX_ROOM = 20 -- room kept for the end of a cut preview: `, … (1234567)}`
M.STRING_LIMIT = M.LIMIT - 5 -- bytes of a string shown on its own (its quotes and `…` make 200)
local INNER_STRING_LIMIT = 40 -- characters of a string inside a table preview
local TOSTRING_LIMIT = 100 -- characters of a __tostring result shown beside a preview
local TOSTRING_BUDGET = 100000 -- instructions a preview's __tostring may run
local KEY_SCAN_LIMIT = 200 -- keys of a table visited to choose the ones shown

local format, byte, sub, gsub, match = string.format, string.byte, string.sub, string.gsub, string.match
local concat, sort = table.concat, table.sort
local dgetmetatable, getinfo = debug.getmetatable, debug.getinfo
local costatus = coroutine.status
local rawlen = rawlen
local isIdentifier = classnames.isIdentifier
M.isIdentifier = isIdentifier

local ELLIPSIS = "\226\128\166" -- "…" in UTF-8

--- tostring of a number, boolean or nil without a metatable's __tostring (debug.setmetatable can
--- give those types one: it would be program code).
local function plain(v)
  if dgetmetatable(v) == nil then return tostring(v) end
  local t = type(v)
  if t == "number" then
    if v ~= v then return "nan" end
    if v == math.floor(v) and v > -1e15 and v < 1e15 then return format("%d", v) end
    return format("%.14g", v)
  end
  if t == "boolean" then return v and "true" or "false" end
  if t == "nil" then return "nil" end
  return t
end

local escapes = {
  ["\\"] = "\\\\", ['"'] = '\\"', ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
  ["\a"] = "\\a", ["\b"] = "\\b", ["\f"] = "\\f", ["\v"] = "\\v",
}

local function escapeOne(c, digit)
  local e = escapes[c]
  if e then return e .. digit end
  -- A decimal escape takes up to three digits: pad it when a digit follows, as Lua's %q does.
  if digit ~= "" then return format("\\%03d", byte(c)) .. digit end
  return "\\" .. byte(c)
end

-- `s` cut after `limit` bytes, at a UTF-8 character boundary; true when it was cut.
local function cut(s, limit)
  if not limit or #s <= limit then return s, false end
  local n = limit
  -- Back up while the next byte continues a character, so no sequence is split.
  while n > 0 and (byte(s, n + 1) or 0) >= 0x80 and (byte(s, n + 1) or 0) < 0xC0 do n = n - 1 end
  return sub(s, 1, n), true
end

--- `s` as a Lua string literal, cut after `limit` bytes with `…`.
function M.quote(s, limit)
  local text, wasCut = cut(s, limit)
  return '"' .. gsub(text, '([%c"\\])(%d?)', escapeOne) .. '"' .. (wasCut and ELLIPSIS or "")
end

local unescapes = {
  n = "\n", r = "\r", t = "\t", a = "\a", b = "\b", f = "\f", v = "\v",
  ["\\"] = "\\", ['"'] = '"', ["'"] = "'", ["\n"] = "\n",
}

--- The string a Lua string literal (`"a\nb"`, `'x'`) stands for, or nil when `s` is not exactly
--- one such literal (`"a" .. "b"` is an expression, not a literal).
function M.unquote(s)
  local q = sub(s, 1, 1)
  if (q ~= '"' and q ~= "'") or #s < 2 or sub(s, -1) ~= q then return nil end
  local body = sub(s, 2, -2)
  local out, i, n = {}, 1, #body
  while i <= n do
    local c = sub(body, i, i)
    if c == q then return nil end
    if c ~= "\\" then
      out[#out + 1] = c
      i = i + 1
    else
      local d = sub(body, i + 1, i + 1)
      local digits = match(body, "^%d%d?%d?", i + 1)
      local hex = d == "x" and match(body, "^%x%x", i + 2)
      if unescapes[d] then
        out[#out + 1] = unescapes[d]
        i = i + 2
      elseif digits and tonumber(digits) <= 255 then
        out[#out + 1] = string.char(tonumber(digits))
        i = i + 1 + #digits
      elseif hex then
        out[#out + 1] = string.char(tonumber(hex, 16))
        i = i + 4
      else
        return nil
      end
    end
  end
  return concat(out)
end

-- Free text on one line: control characters escaped, cut after `limit` bytes with `…`.
local function oneLine(s, limit)
  local text, wasCut = cut(s, limit)
  return gsub(text, "(%c)(%d?)", escapeOne) .. (wasCut and ELLIPSIS or "")
end

local function fileOf(info)
  local source = info.source or "?"
  if sub(source, 1, 1) == "@" then return match(sub(source, 2), "[^/\\]*$") end
  return info.short_src or "?"
end

--- `function <file.lua:12>`, `function <main.lua>` (a main chunk), `function: builtin` (C).
function M.functionText(f)
  local ok, info = pcall(getinfo, f, "S")
  if not ok or type(info) ~= "table" then return "function" end
  if info.what == "C" then return "function: builtin" end
  if info.what == "main" then return "function <" .. fileOf(info) .. ">" end
  return "function <" .. fileOf(info) .. ":" .. tostring(info.linedefined) .. ">"
end

--- The address part of tostring(v) (`0x55d0c3a0`), read without any __tostring or __name.
local function address(v)
  local s = compat.rawtostring(v)
  return match(s, ":%s*(.*)$") or s
end

local function threadText(co)
  local ok, status = pcall(costatus, co)
  local text = "thread: " .. (ok and status or "?")
  if dgetmetatable(co) == nil then text = text .. " (" .. address(co) .. ")" end
  return text
end

--- The length of the array part as `#` sees it, without `__len`.
local function rawLength(t)
  if rawlen then return rawlen(t) end
  -- Lua 5.1 and LuaJIT: a border by doubling and bisection, with rawget only.
  if rawget(t, 1) == nil then return 0 end
  local i, j = 1, 2
  while rawget(t, j) ~= nil do
    i, j = j, j * 2
    if j > 2 ^ 40 then return i end
  end
  while j - i > 1 do
    local m = math.floor((i + j) / 2)
    if rawget(t, m) == nil then j = m else i = m end
  end
  return i
end

local typeOrder = { number = 1, string = 2, boolean = 3, table = 4, ["function"] = 5, userdata = 6, thread = 7 }

--- The order of table keys everywhere (children and previews): numbers, strings, booleans, then
--- the rest by address.
function M.keyLess(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (typeOrder[ta] or 9) < (typeOrder[tb] or 9) end
  if ta == "number" or ta == "string" then return a < b end
  if ta == "boolean" then return (not a) and b end
  return compat.rawtostring(a) < compat.rawtostring(b)
end

local inner

--- A key as written in a table constructor: `name`, `[1]`, `["a b"]`, `[true]`.
local function keyText(k, refText)
  local t = type(k)
  if t == "string" then
    if isIdentifier(k) then return k end
    return "[" .. M.quote(k, refText and INNER_STRING_LIMIT or nil) .. "]"
  end
  if t == "number" or t == "boolean" then return "[" .. plain(k) .. "]" end
  if refText then return "[" .. inner(k) .. "]" end
  return "[" .. compat.rawtostring(k) .. "]"
end

--- The name of a table's child in the Variables view: `name`, `[1]`, `["a b"]`, and for keys
--- that are tables, functions… their address (`[table: 0x55…]`), so every name is unique.
function M.keyName(k)
  return keyText(k, false)
end

--- A value inside a table preview: short, never expanded further.
function inner(v)
  local t = type(v)
  if t == "string" then return M.quote(v, INNER_STRING_LIMIT) end
  if t == "table" then
    local mt = dgetmetatable(v)
    local class = mt ~= nil and classnames.classOf(mt) or nil
    local body = next(v) == nil and "{}" or ("{" .. ELLIPSIS .. "}")
    return class and (class .. " " .. body) or body
  end
  if t == "function" then return M.functionText(v) end
  if t == "userdata" then
    local mt = dgetmetatable(v)
    return (mt ~= nil and classnames.classOf(mt)) or "userdata"
  end
  if t == "thread" then return "thread" end
  return plain(v)
end

-- Adds `text` to `parts` when it fits in the preview; false when the preview is full.
local function add(parts, state, text)
  if state.used + #text + SUFFIX_ROOM > M.LIMIT then return false end
  parts[#parts + 1] = text
  state.used = state.used + #text + 2
  return true
end

--- `{1, 2, 3, … (200)}`, `{name = "orc", hp = 60, …}`: the first fields that fit in what is left
--- of the preview once `used` bytes are taken.
local function tableBody(t, used)
  local parts, state = {}, { used = used + 1 }
  local n, full = 0, false
  while true do
    local v = rawget(t, n + 1)
    if v == nil then break end
    if not add(parts, state, inner(v)) then full = true break end
    n = n + 1
  end
  if full then
    parts[#parts + 1] = ELLIPSIS .. " (" .. rawLength(t) .. ")"
    return "{" .. concat(parts, ", ") .. "}"
  end
  -- The other keys: at most KEY_SCAN_LIMIT of them are looked at, and the smallest shown, in the
  -- order the children are listed (stable from run to run, unlike `next`).
  local keys, visited, more = {}, 0, false
  for k in next, t do
    visited = visited + 1
    if visited > KEY_SCAN_LIMIT then more = true break end
    if not (type(k) == "number" and k >= 1 and k <= n and k == math.floor(k)) then keys[#keys + 1] = k end
  end
  pcall(sort, keys, M.keyLess)
  for _, k in ipairs(keys) do
    if not add(parts, state, keyText(k, true) .. " = " .. inner(rawget(t, k))) then more = true break end
  end
  if more then parts[#parts + 1] = ELLIPSIS end
  return "{" .. concat(parts, ", ") .. "}"
end

--- The display string of any value: what the IDE shows as its `value`.
function M.describe(v, stringLimit)
  local t = type(v)
  if t == "string" then return M.quote(v, stringLimit or M.STRING_LIMIT) end
  if t == "function" then return M.functionText(v) end
  if t == "thread" then return threadText(v) end
  if t ~= "table" and t ~= "userdata" then return plain(v) end
  local mt = dgetmetatable(v)
  local class = mt ~= nil and classnames.classOf(mt) or nil
  local tail = ""
  if mt ~= nil then
    -- Beside the preview, as a Lua comment: what the object says of itself, or why it could not
    -- (an error's position shortened to the file name: the message is what matters here).
    local s, why = safe.previewTostring(v, mt, TOSTRING_BUDGET)
    local said = s or (why and gsub(why, "[^%s]*[/\\]([^/\\%s]+:%d+:)", "%1"))
    if said then tail = " -- " .. oneLine(said, TOSTRING_LIMIT) end
  end
  local text
  if t == "table" then
    local head = class and (class .. " ") or ""
    text = head .. tableBody(v, #head + #tail)
  else
    text = (class or "userdata") .. ": " .. address(v)
  end
  text = text .. tail
  return text
end

return M
