-- compat.lua: every difference between Lua 5.1, 5.2, 5.3, 5.4 and LuaJIT 2.1 that the runtime
-- depends on, isolated here so no other module tests _VERSION.
local M = {}

local jitLib = rawget(_G, "jit")
M.isJIT = type(jitLib) == "table" and type(jitLib.version) == "string"
M.jit = M.isJIT and jitLib or nil
M.luaVersion = _VERSION .. (M.isJIT and (" " .. jitLib.version) or "")
M.is51 = _VERSION == "Lua 5.1" -- also LuaJIT
M.unpack = table.unpack or rawget(_G, "unpack")
M.pack = table.pack or function(...) return { n = select("#", ...), ... } end

-- Character class for bytes that need escaping in JSON strings ("\0" is not allowed in 5.1 patterns).
M.escapePattern = M.is51 and '[%z\1-\31"\\|\127]' or '[\0-\31"\\|\127]'

--- The library tables the program sees (the runtime's own code uses private copies, see
--- scripts/build-lua.mjs): what patches.lua changes while an IDE is attached.
M.libs = { coroutine = rawget(_G, "coroutine"), debug = rawget(_G, "debug"), jit = M.jit }

local rawLoadstring = rawget(_G, "loadstring")
local setfenv = rawget(_G, "setfenv")

--- Compiles `source` with `env` as its global environment. Returns fn or nil, message.
function M.compile(source, chunkname, env)
  if setfenv and rawLoadstring then
    local fn, err = rawLoadstring(source, chunkname)
    if fn and env then setfenv(fn, env) end
    return fn, err
  end
  return load(source, chunkname, "t", env)
end

--- True when `load`/`loadstring` can compile text at all (some engines remove it).
M.canCompile = (rawLoadstring ~= nil) or (type(load) == "function")

--- Varargs of a frame are reachable through negative getlocal indices (5.2+ and LuaJIT).
M.hasVarargLocals = (not M.is51) or M.isJIT

--- The current thread as a table key; the main thread of 5.1/LuaJIT has no handle.
M.MAIN = setmetatable({}, { __tostring = function() return "main" end })
local running = coroutine.running
function M.currentThread()
  local co, isMain = running()
  if co == nil or isMain then return M.MAIN, co end
  return co, co
end

--- The raw address form of a table/userdata/function, bypassing __tostring and __name.
local format = string.format
local dgetmetatable, dsetmetatable = debug.getmetatable, debug.setmetatable
local has54p = pcall(format, "%p", {})
function M.rawtostring(v)
  local t = type(v)
  if t ~= "table" and t ~= "userdata" then return tostring(v) end
  local mt = dgetmetatable(v)
  if mt == nil then return tostring(v) end
  if has54p then return t .. ": " .. format("%p", v) end
  local ok = pcall(dsetmetatable, v, nil)
  if not ok then return t .. ": ?" end
  local s = tostring(v)
  dsetmetatable(v, mt)
  return s
end

--- Monotonic-ish wall clock in seconds (luasocket's when present).
function M.clockSource(socketCore)
  if socketCore and type(socketCore.gettime) == "function" then return socketCore.gettime end
  return os.time
end

--- Arms `fn` to run after each full garbage-collection cycle, with no cost in between.
--- Returns a function that disarms it.
function M.onEveryGcCycle(fn)
  local armed = true
  local newproxy = rawget(_G, "newproxy")
  local getinfo = debug.getinfo
  local arm
  local function finalizer()
    -- While the state closes, no frame lies below the finalizer: stop for good (luasocket and
    -- other libraries may already be finalized).
    if not getinfo(2, "l") then armed = false return end
    if armed then
      M.inFinalizer = true
      pcall(fn)
      M.inFinalizer = false
      arm()
    end
  end
  arm = function()
    if not armed then return end
    if M.is51 and newproxy then
      local proxy = newproxy(true)
      getmetatable(proxy).__gc = finalizer
    else
      setmetatable({}, { __gc = finalizer })
    end
  end
  arm()
  return function() armed = false end
end

--- Turns the JIT compiler off (and flushes compiled traces) while breakpoints or steps need
--- every line to run through the hook; back on afterwards if the program wants it on (its own
--- jit.on/jit.off calls are kept by jitview.lua while attached). Returns false when LuaJIT refused
--- (every jit.* function raises "bad action while in __gc metamethod" inside a finalizer): the
--- caller must try again outside. Always true outside LuaJIT.
local jitForcedOff = false
M.programWantsJit = true
-- The originals: while attached, jit.on/off are jitview.lua's replacements.
local jitOn, jitOff, jitFlush = jitLib and jitLib.on, jitLib and jitLib.off, jitLib and jitLib.flush
local jitStatus = jitLib and jitLib.status
-- (Inside the heartbeat's finalizer the jit.* calls are not even tried: each would raise and be
-- caught, and under LuaJIT an error caught while the program's error handler runs makes a later
-- error in that handler be handled normally instead of as "error in error handling".)
M.inFinalizer = false
function M.setJitNeeded(off)
  if not M.isJIT then return true end
  if off then
    -- Called every time (jit.off is idempotent), also to find out whether we may act here.
    if M.inFinalizer or not pcall(jitOff) then return false end
    jitForcedOff = true
    -- Flush every time: loops compiled before must stop bypassing the hook.
    return (pcall(jitFlush))
  elseif jitForcedOff then
    if M.programWantsJit and (M.inFinalizer or not pcall(jitOn)) then return false end
    jitForcedOff = false
  end
  return true
end
function M.jitIsForcedOff() return jitForcedOff end

--- LuaJIT decides what to compile with 64 hot counters shared by all code, picked by bytecode
--- address: every call and loop iteration counts down one of them. The runtime's own functions
--- count too (jit.off keeps them from being compiled, not from counting), and where LuaJIT places
--- them in memory changes from run to run, so loading the runtime and attaching leave the
--- program's counters in a random state: a program function may be "hot" at its first call. A
--- recording that then aborts (NYI, return to C) is an error LuaJIT throws and catches on the
--- program's thread, and inside an xpcall message handler that clears LuaJIT's "in error handling"
--- mark: a nested error there was handled instead of giving "error in error handling"
--- (error_in_handler.lua, about one LuaJIT run in a thousand). Switching the compiler off and on
--- sets every counter back to its start value, as a program finds them when it begins; compiled
--- traces are kept. Only while the compiler is on (else turning it on resets them anyway), never
--- in a finalizer (LuaJIT raises there).
function M.resetJitCounters()
  if not M.isJIT or M.inFinalizer or not (jitStatus and jitStatus()) then return end
  if pcall(jitOff) then pcall(jitOn) end
end

--- Throws away every compiled trace (the compiler stays as it is): code compiled before a
--- breakpoint was set may run lines or calls the hook never sees. False when LuaJIT refused
--- (inside a finalizer); always true outside LuaJIT.
function M.flushJit()
  if not M.isJIT then return true end
  if M.inFinalizer then return false end
  return (pcall(jitFlush))
end

return M
