-- paths.lua: turns a chunk's `source` into the `file` and `oPath` of stack frames and into the
-- key breakpoints are stored under (protocol doc 11.2/11.3). autoPathMode keys by file name,
-- exact mode by the full normalised path. Results are cached per source string.
local M = {}

local config = {
  autoPathMode = true,
  caseSensitive = false,
  luaFileExtension = "",
  cwd = "",
  truncatedOPath = "",
  distinguishSameNameFile = false,
  windows = false,
}
local keyCache, oPathCache = {}, {}

function M.configure(settings)
  for k, v in pairs(settings) do config[k] = v end
  keyCache, oPathCache = {}, {}
end

function M.config() return config end

--- Normalises separators, `.` and `..` segments and case (genUnifiedPath).
function M.unify(path)
  if not config.caseSensitive then path = string.lower(path) end
  path = string.gsub(path, "\\", "/")
  local absolute = string.sub(path, 1, 1) == "/"
  local parts = {}
  for segment in string.gmatch(path, "[^/]+") do
    if segment == ".." then
      if #parts > 0 and parts[#parts] ~= ".." and not string.match(parts[#parts], "^%a:$") then
        parts[#parts] = nil
      elseif not absolute then
        parts[#parts + 1] = ".."
      end
    elseif segment ~= "." then
      parts[#parts + 1] = segment
    end
  end
  local result = table.concat(parts, "/")
  if absolute then result = "/" .. result end
  if config.windows then
    result = string.gsub(result, "^(%a):", function(d) return string.lower(d) .. ":" end)
  end
  return result
end

--- Applies luaFileExtension (doc 11.2 step 3) and require-style dotted names (`a.b.c`).
local function applyExtension(path)
  local ext = config.luaFileExtension
  -- A bare module name such as "game.player" (no slash, no .lua) becomes game/player.
  if not string.find(path, "[/\\]") and not string.find(path, "%.lua$") and ext == "" and string.find(path, "%.") then
    path = string.gsub(path, "%.", "/") .. ".lua"
  end
  if ext ~= "" then
    if string.find(ext, "%%%d") then
      path = string.gsub(path, "%.[%w%.]+$", ext)
    else
      path = string.gsub(path, "%.[%w%.]+$", "") .. "." .. ext
    end
  end
  return path
end

local function stripSource(source)
  if string.sub(source, 1, 1) == "@" then source = string.sub(source, 2) end
  return source
end

--- True when a chunk comes from a file (not a string given to load).
function M.isFileSource(source)
  local c = string.sub(source, 1, 1)
  return c == "@" or (c ~= "=" and not string.find(source, "[\n;=]"))
end

--- The key a source's breakpoints are stored under; also the stack frame's `file`.
function M.key(source)
  local cached = keyCache[source]
  if cached then return cached end
  local path = string.gsub(stripSource(source), "^%./", "")
  path = applyExtension(path)
  if not config.autoPathMode then
    if not string.find(path, "^/") and not string.find(path, "^%a:") and config.cwd ~= "" then
      if not string.find(path, config.cwd, 1, true) then path = config.cwd .. "/" .. path end
    end
  end
  path = M.unify(path)
  if config.autoPathMode then path = string.match(path, "([^/]*)$") end
  keyCache[source] = path
  return path
end

--- The chunk's path as the key is built (extension rules, normalised) but neither joined to cwd
--- nor cut to a file name: what same-name files are told apart by.
function M.chunkPath(source)
  return M.unify(applyExtension(string.gsub(stripSource(source), "^%./", "")))
end

--- How a frame's file reads in stack data: its key and `oPath` for a file chunk, its short_src
--- (twice) for a chunk loaded from a string. `info` is a getinfo table with "S".
function M.frameFile(info)
  local source = info.source or "=?"
  if M.isFileSource(source) then return M.key(source), M.oPath(source) end
  local short = info.short_src or "?"
  return short, short
end

--- The key of a breakpoint path sent by the IDE.
function M.breakpointKey(path)
  local unified = M.unify(tostring(path))
  if config.autoPathMode then return string.match(unified, "([^/]*)$"), unified end
  return unified, unified
end

--- The stack frame's `oPath`: the most complete path we have (doc 11.3).
function M.oPath(source)
  local cached = oPathCache[source]
  if cached then return cached end
  local path = string.gsub(stripSource(source), "^%./", "/")
  path = M.unify(path)
  local trunc = config.truncatedOPath
  if trunc and trunc ~= "" then
    if not config.caseSensitive then trunc = string.lower(trunc) end
    local ok, _, e = pcall(string.find, path, trunc)
    if ok and e then path = string.sub(path, e + 1) end
  end
  oPathCache[source] = path
  return path
end

--- How many trailing folders/file names two unified paths share, and the shorter one's count.
function M.commonTail(a, b)
  local sa, sb = {}, {}
  -- A leading ".." names a folder we cannot know; it is left out of the comparison.
  for seg in string.gmatch(a, "[^/]+") do if seg ~= ".." then sa[#sa + 1] = seg end end
  for seg in string.gmatch(b, "[^/]+") do if seg ~= ".." then sb[#sb + 1] = seg end end
  local n = 0
  while n < #sa and n < #sb and sa[#sa - n] == sb[#sb - n] do n = n + 1 end
  return n, math.min(#sa, #sb)
end

return M
