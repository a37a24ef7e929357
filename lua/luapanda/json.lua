-- json.lua: the JSON codec of the wire protocol. Encoding always yields valid JSON whatever bytes
-- a Lua string holds: control characters, DEL and `|` are \u00XX escapes (so no frame contains the
-- `|*|` delimiter before its end) and each byte of invalid UTF-8 becomes the \u00XX of that byte.
-- An empty table encodes as `[]` (as upstream). Decoding keeps numbers as Lua numbers; readers of
-- fields use tonumber/tostring, so `41` and `"41"` are equivalent.
local compat = require("luapanda.compat")

local M = {}

local byte, char, format, sub, gsub, find, concat =
  string.byte, string.char, string.format, string.sub, string.gsub, string.find, table.concat
local floor, huge = math.floor, math.huge

-- The encoder calls no Lua function from C (no gsub callback, no sort comparator, no generic
-- `for`): a reply sent from a stop deep in C calls (gsub callbacks, metamethods) must not need
-- C-call levels of its own, or it fails with "C stack overflow" where the stop itself was sent.
local asciiEscapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
for b = 0, 127 do
  local c = char(b)
  if asciiEscapes[c] == nil and (b < 32 or b == 127 or c == "|") then asciiEscapes[c] = format("\\u%04x", b) end
end

local function isContinuation(d) return d ~= nil and d >= 0x80 and d <= 0xBF end

-- Length of the valid UTF-8 sequence whose lead byte c (>= 0x80) is at byte i of s, or nil.
local function utf8Length(s, i, c)
  local a, b, d = byte(s, i + 1, i + 3)
  if c >= 0xC2 and c <= 0xDF then return isContinuation(a) and 2 or nil end
  if c >= 0xE0 and c <= 0xEF then
    if not (isContinuation(a) and isContinuation(b)) then return nil end
    if (c == 0xE0 and a < 0xA0) or (c == 0xED and a > 0x9F) then return nil end
    return 3
  end
  if c >= 0xF0 and c <= 0xF4 then
    if not (isContinuation(a) and isContinuation(b) and isContinuation(d)) then return nil end
    if (c == 0xF0 and a < 0x90) or (c == 0xF4 and a > 0x8F) then return nil end
    return 4
  end
  return nil
end

-- Keeps valid UTF-8 sequences and escapes every other byte >= 0x80; spans of valid text are
-- copied whole.
local function escapeHigh(s)
  local out, kept, i = {}, 1, 1
  while true do
    i = find(s, "[\128-\255]", i)
    if not i then break end
    local c = byte(s, i)
    local len = utf8Length(s, i, c)
    if len then
      i = i + len
    else
      out[#out + 1] = sub(s, kept, i - 1)
      out[#out + 1] = format("\\u%04x", c)
      i = i + 1
      kept = i
    end
  end
  out[#out + 1] = sub(s, kept)
  return concat(out)
end

local escapePattern = compat.escapePattern
function M.encodeString(s)
  if find(s, escapePattern) then s = gsub(s, escapePattern, asciiEscapes) end
  if find(s, "[\128-\255]") then s = escapeHigh(s) end
  return '"' .. s .. '"'
end

local function encodeNumber(n)
  if n ~= n or n == huge or n == -huge then return M.encodeString(tostring(n)) end
  if floor(n) == n and n > -1e15 and n < 1e15 then return format("%d", n) end
  return format("%.17g", n)
end

local encodeValue
-- Tables are walked with next() in while loops: a generic `for` calls its iterator through a C
-- boundary, one C-call level more.
local function isArray(t)
  local n = #t
  local count, k = 0, next(t)
  while k ~= nil do
    count = count + 1
    k = next(t, k)
  end
  return count == n, n
end

encodeValue = function(v, out, depth)
  local t = type(v)
  if t == "string" then
    out[#out + 1] = M.encodeString(v)
  elseif t == "number" then
    out[#out + 1] = encodeNumber(v)
  elseif t == "boolean" then
    out[#out + 1] = v and "true" or "false"
  elseif t == "table" then
    if depth > 64 then out[#out + 1] = "null" return end
    local array, n = isArray(v)
    if array then
      out[#out + 1] = "["
      for i = 1, n do
        if i > 1 then out[#out + 1] = "," end
        encodeValue(v[i], out, depth + 1)
      end
      out[#out + 1] = "]"
    else
      -- Members sorted by name with the built-in string order (no comparator, see above); keys
      -- that are not strings are named by tostring, and names that collide are all kept.
      local names, byName, collided = {}, {}, nil
      local k, value = next(v)
      while k ~= nil do
        local name = type(k) == "string" and k or tostring(k)
        if byName[name] == nil then
          names[#names + 1] = name
          byName[name] = value
        else
          collided = collided or {}
          local list = collided[name] or {}
          collided[name] = list
          list[#list + 1] = value
        end
        k, value = next(v, k)
      end
      table.sort(names)
      out[#out + 1] = "{"
      local members = 0
      local function member(encodedName, memberValue)
        if members > 0 then out[#out + 1] = "," end
        members = members + 1
        out[#out + 1] = encodedName
        out[#out + 1] = ":"
        encodeValue(memberValue, out, depth + 1)
      end
      for i = 1, #names do
        local name = names[i]
        local encodedName = M.encodeString(name)
        member(encodedName, byName[name])
        local more = collided and collided[name]
        if more then
          for j = 1, #more do member(encodedName, more[j]) end
        end
      end
      out[#out + 1] = "}"
    end
  else
    out[#out + 1] = "null"
  end
end

--- Encodes a Lua value. Tables with keys exactly 1..n are arrays; an empty table is `[]`.
function M.encode(v)
  local out = {}
  encodeValue(v, out, 0)
  return concat(out)
end

-- Decoding -------------------------------------------------------------------------------------

local decodeValue

local function decodeError(_text, pos, what)
  error({ json = true, message = format("malformed JSON at byte %d: %s", pos, what) }, 0)
end

local function skip(text, pos)
  local _, e = find(text, "^[ \t\r\n]*", pos)
  return e + 1
end

local function utf8Char(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then return char(0xC0 + floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return char(0xE0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return char(0xF0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64, 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
end

local escapeChars = { b = "\b", f = "\f", n = "\n", r = "\r", t = "\t", ['"'] = '"', ["\\"] = "\\", ["/"] = "/" }

local function decodeString(text, pos)
  local out = {}
  local i = pos + 1
  while true do
    local s, e = find(text, '^[^"\\]+', i)
    if s then out[#out + 1] = sub(text, s, e) i = e + 1 end
    local c = sub(text, i, i)
    if c == '"' then return concat(out), i + 1 end
    if c == "" then decodeError(text, i, "unterminated string") end
    -- backslash
    local esc = sub(text, i + 1, i + 1)
    if esc == "u" then
      local hex = sub(text, i + 2, i + 5)
      local cp = string.match(hex, "^%x%x%x%x$") and tonumber(hex, 16)
      if not cp then decodeError(text, i, "bad \\u escape") end
      i = i + 6
      if cp >= 0xD800 and cp <= 0xDBFF and sub(text, i, i + 1) == "\\u" then
        local lowHex = sub(text, i + 2, i + 5)
        local low = string.match(lowHex, "^%x%x%x%x$") and tonumber(lowHex, 16)
        if low and low >= 0xDC00 and low <= 0xDFFF then
          cp = 0x10000 + (cp - 0xD800) * 1024 + (low - 0xDC00)
          i = i + 6
        end
      end
      out[#out + 1] = utf8Char(cp)
    else
      local mapped = escapeChars[esc]
      if not mapped then decodeError(text, i, "bad escape") end
      out[#out + 1] = mapped
      i = i + 2
    end
  end
end

local function decodeArray(text, pos, depth)
  local result, n = {}, 0
  pos = skip(text, pos + 1)
  if sub(text, pos, pos) == "]" then return result, pos + 1 end
  while true do
    local value
    value, pos = decodeValue(text, pos, depth + 1)
    n = n + 1
    result[n] = value
    pos = skip(text, pos)
    local c = sub(text, pos, pos)
    if c == "]" then return result, pos + 1 end
    if c ~= "," then decodeError(text, pos, "expected ',' or ']'") end
    pos = skip(text, pos + 1)
  end
end

local function decodeObject(text, pos, depth)
  local result = {}
  pos = skip(text, pos + 1)
  if sub(text, pos, pos) == "}" then return result, pos + 1 end
  while true do
    if sub(text, pos, pos) ~= '"' then decodeError(text, pos, "expected a string key") end
    local key
    key, pos = decodeString(text, pos)
    pos = skip(text, pos)
    if sub(text, pos, pos) ~= ":" then decodeError(text, pos, "expected ':'") end
    local value
    value, pos = decodeValue(text, skip(text, pos + 1), depth + 1)
    result[key] = value
    pos = skip(text, pos)
    local c = sub(text, pos, pos)
    if c == "}" then return result, pos + 1 end
    if c ~= "," then decodeError(text, pos, "expected ',' or '}'") end
    pos = skip(text, pos + 1)
  end
end

decodeValue = function(text, pos, depth)
  if depth > 200 then decodeError(text, pos, "nesting too deep") end
  pos = skip(text, pos)
  local c = sub(text, pos, pos)
  if c == "{" then return decodeObject(text, pos, depth) end
  if c == "[" then return decodeArray(text, pos, depth) end
  if c == '"' then return decodeString(text, pos) end
  if sub(text, pos, pos + 3) == "true" then return true, pos + 4 end
  if sub(text, pos, pos + 4) == "false" then return false, pos + 5 end
  if sub(text, pos, pos + 3) == "null" then return nil, pos + 4 end
  local s, e = find(text, "^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
  if s then
    local n = tonumber(sub(text, s, e))
    if n then return n, e + 1 end
  end
  decodeError(text, pos, "unexpected " .. (c == "" and "end of text" or ("'" .. c .. "'")))
end

--- Decodes `text`; returns value or nil, message. Never raises.
function M.decode(text)
  if type(text) ~= "string" then return nil, "not a string" end
  local ok, value, pos = pcall(decodeValue, text, 1, 0)
  if not ok then
    return nil, type(value) == "table" and value.message or tostring(value)
  end
  pos = skip(text, pos)
  if pos <= #text then return nil, format("malformed JSON at byte %d: trailing text", pos) end
  return value
end

-- Base64 (upstream's isNeedB64EncodeStr option) -----------------------------------------------
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
function M.base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = byte(s, i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local c1 = floor(n / 262144) % 64 + 1
    local c2 = floor(n / 4096) % 64 + 1
    local c3 = floor(n / 64) % 64 + 1
    local c4 = n % 64 + 1
    out[#out + 1] = sub(alphabet, c1, c1) .. sub(alphabet, c2, c2)
      .. (b and sub(alphabet, c3, c3) or "=") .. (c and sub(alphabet, c4, c4) or "=")
  end
  return concat(out)
end

return M
