-- proghooks.lua: the program's own debug hooks while an IDE is attached. A thread has one hook,
-- and the debugger needs it, so debug.sethook and debug.gethook are replaced (patches.lua): the
-- program's hook is recorded per thread and the debugger's hook on that thread passes it every
-- event the program asked for (hook.lua), while gethook answers with the program's own hook.
-- Each record is also kept, for real, on a private thread that never runs: the interpreter
-- itself validates the arguments and says what gethook returns, so both answer exactly as the
-- originals. Detaching gives every thread its program hook back.
local compat = require("luapanda.compat")
local patches = require("luapanda.patches")

local M = {}

local realSethook, realGethook = debug.sethook, debug.gethook
local getinfo = debug.getinfo
local create = coroutine.create

-- thread key -> { fn = function, mask = string, count = number, dummy = thread, thread = handle }
local records = setmetatable({}, { __mode = "k" })
local GLOBAL = {} -- LuaJIT: one hook for every thread
local emptyDummy = create(function() end)
local mainHandle = nil
local onChange = nil -- function(key, handle): the debugger re-installs its hook on that thread
local isOurs = nil   -- function(hookValue): whether a hook found on a thread is the debugger's

local function dummy() return create(function() end) end

-- Lua 5.1 keeps each thread's hook function in a registry table keyed by the thread's address,
-- and an entry outlives its thread: a later thread at the same address shows it to
-- debug.gethook. So nothing stays set on a private thread: the interpreter validates the
-- arguments there, says what gethook answers, and the hook is taken off again.
local function storeOnDummy(r, ...)
  realSethook(r.dummy, ...)
  r.answer = compat.pack(realGethook(r.dummy))
  realSethook(r.dummy)
end

--- The record key of a thread handle (nil: the running thread), and the handle to set it on.
local function keyOf(thread)
  if compat.isJIT then return GLOBAL, nil end
  if thread == nil then
    local key, handle = compat.currentThread()
    if key == compat.MAIN and handle then mainHandle = handle end
    return key, handle
  end
  if mainHandle and rawequal(thread, mainHandle) then return compat.MAIN, thread end
  return thread, thread
end

--- The program's hook of a thread key: { fn, mask, count, wants = { call, ret, line, count } }.
function M.get(key)
  if compat.isJIT then key = GLOBAL end
  local r = records[key]
  if r and r.fn then return r end
  return nil
end

--- LuaJIT has one hook for all threads, so the record cannot live on a private thread: this is
--- what its debug.sethook stores and its debug.gethook answers (lib_debug.c), kept by hand.
local function jitRecord(r, fn, smask, count)
  if fn == nil then
    r.jit = { fn = nil, mask = "", count = 0 }
    return
  end
  count = tonumber(count) or 0
  count = count >= 0 and math.floor(count) or math.ceil(count)
  local mask = ""
  for _, c in ipairs({ "c", "r", "l" }) do
    if string.find(tostring(smask), c, 1, true) then mask = mask .. c end
  end
  local hooked = mask ~= "" or count > 0
  r.jit = { fn = fn, mask = hooked and mask or "", count = count, active = hooked }
end

local function readRecord(r)
  if r.jit then
    local j = r.jit
    return j.active and j.fn or nil, j.mask, j.count, j.fn
  end
  return compat.unpack(r.answer, 1, r.answer.n)
end

local function refresh(r)
  local fn, mask, count = readRecord(r)
  r.fn = type(fn) == "function" and fn or nil
  mask = type(mask) == "string" and mask or ""
  r.count = tonumber(count) or 0
  r.wants = {
    call = string.find(mask, "c", 1, true) ~= nil,
    ret = string.find(mask, "r", 1, true) ~= nil,
    line = string.find(mask, "l", 1, true) ~= nil,
    count = r.count > 0,
  }
  r.mask = mask
end

--- Raises an argument error of the program's debug.sethook call as the original would have: the
--- record call passed one argument more (the private thread) when the program passed none.
local function raiseArgError(message, shifted)
  if type(message) ~= "string" then error(message, 0) end
  -- 1 here, 2 sethook (behind a C function of its own, one more: the name the program's call
  -- gave it is that level's), then the program's caller.
  local extra = patches.extraLevels()
  local info = getinfo(2 + extra, "n")
  local name = (info and info.name) or (not compat.is51 and "debug.sethook") or "?"
  -- (The original was called from the runtime's Lua code, whose position its message names: the
  -- program's call gets the position of its own caller from error() below instead.)
  message = string.gsub(message, "^[^\n]-:%d+: (bad argument)", "%1")
  message = string.gsub(message, "^bad argument #(%d+) to '[^']*'", function(n)
    return "bad argument #" .. (shifted and tonumber(n) - 1 or n) .. " to '" .. name .. "'"
  end)
  error(message, 3 + extra)
end

--- Whether LuaJIT's debug.sethook accepts these arguments (it checks before it acts).
local function jitArgsValid(fn, smask, count)
  if fn == nil then return true end
  local st = type(smask)
  if st ~= "string" and st ~= "number" then return false end
  if type(fn) ~= "function" then return false end
  return count == nil or tonumber(count) ~= nil
end

local function sethook(...)
  local first = ...
  local explicit = type(first) == "thread"
  local key, handle = keyOf(explicit and first or nil)
  local r = records[key]
  if not r then
    r = { dummy = dummy(), answer = compat.pack(nil, "", 0) }
    records[key] = r
  end
  if compat.isJIT then
    local fn, smask, count
    if explicit then fn, smask, count = select(2, ...) else fn, smask, count = ... end
    if not jitArgsValid(fn, smask, count) then
      -- The original raises the error before it changes anything.
      local ok, err = pcall(realSethook, ...)
      if not ok then raiseArgError(err, false) end
    end
    jitRecord(r, fn, smask, count)
    refresh(r)
    if onChange then onChange(key, handle) end
    return
  end
  local ok, err
  if explicit then
    ok, err = pcall(storeOnDummy, r, select(2, ...))
  else
    ok, err = pcall(storeOnDummy, r, ...)
  end
  if not ok then raiseArgError(err, not explicit) end
  refresh(r)
  r.thread = handle
  if onChange then onChange(key, handle) end
end

local function gethook(...)
  local first = ...
  local thread = type(first) == "thread" and first or nil
  local key = keyOf(thread)
  local r = records[key]
  if r and r.jit then
    local j = r.jit
    return j.fn, j.mask, j.count
  end
  if r then return readRecord(r) end
  -- Never set while attached: the thread's own hook, unless it is the debugger's.
  local current
  if thread then current = realGethook(thread) else current = realGethook() end
  if current ~= nil and not isOurs(current) then
    if thread then return realGethook(thread) end
    return realGethook()
  end
  if compat.isJIT then return nil, "", 0 end -- what LuaJIT answers before any sethook
  return realGethook(emptyDummy)
end

--- Attached: the program's hooks found on the running thread and `threads` become records, and
--- debug.sethook/gethook are replaced. `changed(key, handle)` re-installs the debugger's hook.
function M.install(threads, ours, changed)
  onChange, isOurs = changed, ours
  local function adopt(thread)
    local fn, mask, count
    if thread then fn, mask, count = realGethook(thread) else fn, mask, count = realGethook() end
    if fn == nil or isOurs(fn) then return end
    local key, handle = keyOf(thread)
    local r = { dummy = dummy(), thread = handle }
    if compat.isJIT then
      jitRecord(r, fn, mask, count)
    elseif type(fn) == "function" then
      storeOnDummy(r, fn, mask, count)
    else
      r.answer = compat.pack(nil, "", 0)
    end
    refresh(r)
    records[key] = r
  end
  adopt(nil)
  if not compat.isJIT then
    for thread in pairs(threads) do
      if coroutine.status(thread) ~= "dead" and not rawequal(thread, mainHandle) then adopt(thread) end
    end
  end
  local lib = compat.libs.debug
  if type(lib) == "table" then
    patches.replace(lib, "sethook", patches.visible(sethook))
    patches.replace(lib, "gethook", patches.visible(gethook))
  end
end

--- Detached: the records' hooks go back on their threads for real (the caller has removed its
--- own hooks first). The main thread of Lua 5.1 has no handle: reachable only while it runs.
function M.uninstall()
  local lib = compat.libs.debug
  if type(lib) == "table" then
    patches.revert(lib, "sethook")
    patches.revert(lib, "gethook")
  end
  local running = compat.currentThread()
  for key, r in pairs(records) do
    if r.fn then
      if key == GLOBAL or (key == running and r.thread == nil) then
        realSethook(r.fn, r.mask, r.count)
      elseif r.thread and coroutine.status(r.thread) ~= "dead" then
        realSethook(r.thread, r.fn, r.mask, r.count)
      end
    end
    records[key] = nil
  end
end

return M
