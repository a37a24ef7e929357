-- stack.lua: stack frames of a stop. Frames of the stopped thread are remembered by their
-- distance from the bottom of the stack, so any function of the runtime can turn them back into
-- a getinfo/getlocal level; frames of resuming threads (the coroutine resumer chain) are
-- remembered by thread and level. Frame ids start at 2, as upstream's `index`.
local compat = require("luapanda.compat")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")

local M = {}

local getinfo = debug.getinfo

--- Number of stack levels that exist from the caller's point of view (level 1 = the caller).
local function levelsFromCaller()
  -- Inside this function level 1 is itself, so the caller sees one level less.
  local lo, hi = 1, 2
  while getinfo(hi, "l") do lo = hi hi = hi * 2 end
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if getinfo(mid, "l") then lo = mid else hi = mid end
  end
  return lo - 1
end
M.levelsFromCaller = levelsFromCaller

--- Level (relative to the caller) of the frame that fired the hook `hookFn`: the hook's callbacks
--- (stepping.lua, stops.lua) find the code they stand for with it.
function M.codeLevel(hookFn)
  for l = 2, 200 do
    local info = getinfo(l, "f")
    if not info then return nil end
    if info.func == hookFn then return l end -- caller sees the hook at l - 1, its code at l
  end
end

local function levelsOfThread(co)
  local n = 0
  while getinfo(co, n, "l") do n = n + 1 end
  return n
end

--- The getinfo level (relative to the caller) of a frame of the stopped thread.
function M.level(frame)
  local total = levelsFromCaller() -- relative to M.level's caller? no: relative to M.level
  -- levelsFromCaller() counted from M.level's point of view (level 1 = M.level); the caller of
  -- M.level sees everything one level lower.
  return total - frame.fromBottom - 1
end

-- State of the current stop ----------------------------------------------------------------
local frames = {}     -- id -> frame
local list = {}       -- wire frames
local moduleNames = nil -- function -> "module.field", for the current stop (see addFrame)

function M.reset() frames, list, M.threadFrames, moduleNames = {}, {}, 0, nil end
function M.get(id) return frames[tonumber(id) or -1] end
function M.wire() return list end

local function describe(info)
  if info.what == "main" then return "main chunk" end
  local name = info.name
  if not name then
    -- Lua knows no name for a function called from C (a coroutine body, a callback, a metamethod
    -- in 5.1): name it by where it is defined, as Lua's own tracebacks do.
    local where = info.short_src and string.match(info.short_src, "[^/\\]*$")
    if where and info.linedefined and info.linedefined > 0 then
      return "function <" .. where .. ":" .. info.linedefined .. ">"
    end
    return "?"
  end
  if info.namewhat == "method" then return ":" .. name end
  return name
end

-- The functions of loaded modules by "module.field" (one level deep), built once per stop:
-- `util.checkHealth` names a frame better than the call site's `checkHealth`.
local MODULE_FIELDS_LIMIT = 5000

local function buildModuleNames()
  local names = setmetatable({}, { __mode = "k" })
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) ~= "table" then return names end
  local seen = 0
  for modname, mod in next, loaded do
    if type(modname) == "string" and type(mod) == "table" and modname ~= "_G"
      and modname ~= "LuaPanda" then
      for k, v in next, mod do
        seen = seen + 1
        if seen > MODULE_FIELDS_LIMIT then return names end -- bounded: a huge module
        if type(k) == "string" and type(v) == "function" and names[v] == nil then
          names[v] = modname .. "." .. k
        end
      end
    end
  end
  return names
end

local function moduleNameOf(fn)
  if type(fn) ~= "function" then return nil end
  moduleNames = moduleNames or buildModuleNames()
  return moduleNames[fn]
end

local function addFrame(info, record, coName)
  local source = info.source or "=?"
  local file, oPath = paths.frameFile(info)
  local id = #list + 2
  record.id = id
  record.func = info.func
  record.source = source
  record.currentline = info.currentline
  frames[id] = record
  list[#list + 1] = {
    file = file,
    oPath = oPath,
    line = tostring(info.currentline or 0),
    index = tostring(id),
    name = describe(info),
    coroutine = coName,
    -- Extensions: where the function is defined (the IDE reads its name from the source) and the
    -- loaded module that holds it, if any.
    defined = info.what ~= "main" and info.linedefined and info.linedefined > 0
      and tostring(info.linedefined) or nil,
    module = info.what ~= "main" and moduleNameOf(info.func) or nil,
  }
end

local function skipInfo(info)
  -- "tail": the level 5.1 keeps for a frame a tail call replaced; nothing is left to show of it.
  return info.what == "C" or info.what == "tail" or breakpoints.isOwnSource(info.source)
end

-- A snapshot's frame with its function's "S" fields; 5.1's tail-call level has no function.
local function completed(info)
  local fn = info.func
  if fn == nil then
    info.what = "tail"
    return info
  end
  for k, v in next, getinfo(fn, "S") do
    if info[k] == nil then info[k] = v end
  end
  return info
end

--- Captures the stack of the stopped thread starting at `base` (a level relative to the
--- caller), then the resumer chain given by `resumerOf(threadKey) -> key, handle`; `thread`: a
--- dead coroutine, or a list of them, whose frames come first.
function M.capture(base, resumerOf, thread, threadError)
  M.reset()
  local total = levelsFromCaller() - 1 -- relative to M.capture's caller
  local key = compat.currentThread()
  local coName = key == compat.MAIN and "main" or tostring(key)
  -- A coroutine that died of an error keeps its stack: its frames come first, as it resumed
  -- from the running code (a list: coroutines that died of the same error, innermost first).
  for _, dead in ipairs(type(thread) == "table" and thread or { thread }) do
    local l = 0
    while true do
      local info = getinfo(dead, l, "nSlf")
      if not info then break end
      if not skipInfo(info) then
        if #list == 0 and (info.currentline or -1) < 0 and type(threadError) == "string" then
          -- LuaJIT forgets the line of a coroutine that died; its error message still names it.
          local src, line = string.match(threadError, "^(.-):(%d+): ")
          if src == info.short_src then info.currentline = tonumber(line) end
        end
        addFrame(info, { thread = dead, level = l }, tostring(dead))
      end
      l = l + 1
    end
  end
  M.threadFrames = #list
  -- levels below are relative to M.capture: the caller's level L is L + 1 here.
  local level = base + 1
  while true do
    local info = getinfo(level, "nSlf")
    if not info then break end
    if not skipInfo(info) then
      addFrame(info, { fromBottom = (total + 1) - level }, coName)
    end
    level = level + 1
  end
  local seen = { [key] = true }
  local nextKey, nextHandle, snapshot = resumerOf(key)
  while nextKey and not seen[nextKey] do
    seen[nextKey] = true
    if snapshot then
      local name = nextKey == compat.MAIN and "main" or tostring(nextKey)
      for _, raw in ipairs(snapshot) do
        local info = completed(raw)
        if not skipInfo(info) then addFrame(info, { noVars = true }, name) end
      end
    elseif nextHandle and type(nextHandle) == "thread" then
      local name = nextKey == compat.MAIN and "main" or tostring(nextKey)
      local l = 0
      while true do
        local info = getinfo(nextHandle, l, "nSlf")
        if not info then break end
        if not skipInfo(info) then
          addFrame(info, { thread = nextHandle, level = l }, name)
        end
        l = l + 1
      end
    end
    nextKey, nextHandle, snapshot = resumerOf(nextKey)
  end
  return list
end

--- Descriptions (getinfo tables, no variables) of the caller's frames from `base` down, taken at
--- every resume from a thread whose frames cannot be read later (the main thread of 5.1/LuaJIT):
--- only what the frame alone knows (its name, line and function). What belongs to the function
--- (source, kind) is added at a stop (completed): half the cost of a resume's snapshot.
function M.snapshot(base)
  local out, level = {}, base + 1
  while true do
    local info = getinfo(level, "nlf")
    if not info then break end
    out[#out + 1] = info
    level = level + 1
  end
  return out
end

--- getlocal / setlocal / getinfo on a captured frame (stopped thread or another thread).
function M.getlocal(frame, i)
  if frame.noVars then return nil end
  if frame.thread then
    local name, value = debug.getlocal(frame.thread, frame.level, i)
    return name, value
  end
  local level = M.level(frame)
  local name, value = debug.getlocal(level, i)
  return name, value
end

function M.setlocal(frame, i, v)
  if frame.noVars then return nil end
  if frame.thread then
    local name = debug.setlocal(frame.thread, frame.level, i, v)
    return name
  end
  local level = M.level(frame)
  local name = debug.setlocal(level, i, v)
  return name
end

--- The varargs of a captured frame as `{ ..., n = count }` (empty where the interpreter
--- cannot list them: Lua 5.1 has no negative getlocal indices).
function M.varargs(frame)
  local varargs, j = { n = 0 }, -1
  if not compat.hasVarargLocals then return varargs end
  while true do
    local _, value = M.getlocal(frame, j)
    if _ == nil then break end
    varargs[-j] = value
    j = j - 1
  end
  varargs.n = -j - 1
  return varargs
end

M.levelsOfThread = levelsOfThread

return M
