-- coroutines.lua: wrappers around coroutine.create/resume/wrap, installed while an IDE is attached.
-- They give every coroutine the debug hook of the current state (PUC Lua hooks are per thread),
-- remember who resumed whom (the resumer chain of stack frames), hand an unfinished step over to
-- the resumer when the stepping coroutine yields or ends, and make coroutine.wrap bodies
-- debuggable. Coroutines created before the IDE attached are adopted on their next resume.
local compat = require("luapanda.compat")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")
local patches = require("luapanda.patches")
local argerrors = require("luapanda.argerrors")

local M = {}

local raw = {
  create = coroutine.create, resume = coroutine.resume, wrap = coroutine.wrap,
  status = coroutine.status, close = rawget(coroutine, "close"),
}
M.raw = raw
local pack, unpack = compat.pack, compat.unpack
local known = setmetatable({}, { __mode = "k" })     -- co -> { wrap = bool, protected = bool }
local resumers = setmetatable({}, { __mode = "k" })  -- co -> { key, handle }
local session
local onDeath = nil -- function(co, err, entry, marker): a coroutine ended with an error

function M.info(co) return known[co] end

--- The thread that resumed `key` (key, handle), or nil.
function M.resumerOf(key)
  local r = resumers[key]
  if r then return r.key, r.handle, r.snapshot end
  return nil
end

local function adopt(co)
  if not known[co] then
    known[co] = {}
    hook.prepare(co)
  end
  return known[co]
end

local function resume(...)
  local co = ...
  if type(co) ~= "thread" then
    -- Fail as the original does (its message, the program's position; `...` keeps "no value").
    argerrors.reraise(raw.resume, "coroutine.resume", ...)
  end
  local entry = adopt(co)
  local key, handle = compat.currentThread()
  local record = { key = key, handle = handle }
  if handle == nil and session.link then
    -- The main thread of 5.1/LuaJIT has no handle: keep a description of its frames (no
    -- variables) for the resumer chain, only while something could stop.
    local state = hook.state()
    if state.bpMode or state.slow then record.snapshot = stack.snapshot(2) end
  end
  resumers[co] = record
  if session.link and entry.wrap then entry.protected = session.isProtected and session.isProtected(2) end
  hook.switchTo(co)
  hook.beforeResume(co)
  local generation = hook.generation
  local r = pack(raw.resume(...))
  resumers[co] = nil
  hook.afterResume(co)
  hook.switchTo(nil)
  if not compat.isJIT and generation ~= hook.generation then
    -- The debugger changed state while the coroutine ran (a step, new breakpoints): the resuming
    -- thread may have no handle to be updated from there, so update it now.
    hook.refresh()
  end
  if not r[1] and onDeath and session.link and raw.status(co) == "dead" then
    pcall(onDeath, co, r[2], entry, resume)
  end
  if session.link and session.isStepping() then
    session.onThreadLeft(co, key, stack.levelsFromCaller() - 1 - patches.extraLevels())
  end
  return unpack(r, 1, r.n)
end
M.resume = resume

--- The dead thread of a coroutine.wrap function (the interpreter's C closure over its thread)
--- standing at `level` (relative to the caller), which is raising its coroutine's error; or nil.
function M.deadWrapThreadAt(level)
  local info = debug.getinfo(level + 1, "fS")
  if not info or info.what ~= "C" or type(info.func) ~= "function" then return nil end
  local _, co = debug.getupvalue(info.func, 1)
  if type(co) == "thread" and raw.status(co) == "dead" then return co end
  return nil
end

--- Registers what runs when a coroutine this module resumed dies of an error (its stack is kept).
function M.setOnDeath(fn) onDeath = fn end

local function create(...)
  local f = ...
  if type(f) ~= "function" then argerrors.reraise(raw.create, "coroutine.create", ...) end
  local co = raw.create(f)
  adopt(co)
  return co
end

-- coroutine.wrap, resumed through `resume` above (so the resumer chain, a step leaving the
-- coroutine, LuaJIT's one global hook following the running thread, and an error that ends the
-- coroutine stopping with the coroutine's own frames all work). What the program gets back is
-- what the interpreter's wrap gives: the values, or the error raised again in the caller the way
-- this version does it: 5.4 first closes the dead coroutine's to-be-closed variables (an error in
-- a __close replaces the first one); a string gets the caller's position in front (5.1 and 5.2
-- also turn a number into such a string; LuaJIT and 5.3+ leave numbers alone).
local positionsNumbers = compat.is51 and not compat.isJIT or _VERSION == "Lua 5.2"
local closesOnError = raw.close ~= nil

local function wrap(...)
  local f = ...
  if type(f) ~= "function" then argerrors.reraise(raw.wrap, "coroutine.wrap", ...) end
  local co = create(f)
  known[co].wrap = true
  return patches.visible(function(...)
    local bodyRan = raw.status(co) == "suspended"
    local r = pack(resume(co, ...))
    if r[1] then return unpack(r, 2, r.n) end
    local err = r[2]
    if closesOnError and bodyRan and raw.status(co) == "dead" then
      local closed, closeErr = raw.close(co)
      if not closed then err = closeErr end
    end
    local t = type(err)
    -- The caller's position: 2 is the caller, or the C function this stands behind (patches.lua).
    if t == "string" or (t == "number" and positionsNumbers) then error(err, 2 + patches.extraLevels()) end
    error(err, 0)
  end)
end

--- While an IDE is attached: the program's coroutine functions are replaced (patches.lua).
function M.install(s)
  session = s
  session.setResumerLookup(M.resumerOf)
  local lib = compat.libs.coroutine
  if type(lib) ~= "table" then return end
  patches.replace(lib, "create", patches.visible(create))
  patches.replace(lib, "resume", patches.visible(resume))
  patches.replace(lib, "wrap", patches.visible(wrap))
end

function M.uninstall()
  local lib = compat.libs.coroutine
  if type(lib) ~= "table" then return end
  patches.revert(lib, "create")
  patches.revert(lib, "resume")
  patches.revert(lib, "wrap")
end

return M
