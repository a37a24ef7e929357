-- coroutines.lua: wrappers around coroutine.create/resume/wrap, installed when the runtime loads.
-- They give every coroutine the debug hook of the current state (PUC Lua hooks are per thread),
-- remember who resumed whom (the resumer chain of stack frames), hand an unfinished step over to
-- the resumer when the stepping coroutine yields or ends, and make coroutine.wrap bodies
-- debuggable. Coroutines created before the runtime loaded are adopted on their next resume.
local compat = require("luapanda.compat")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")

local M = {}
local pcall, error = pcall, error -- the originals, before exceptions.lua wraps them

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

local function resume(co, ...)
  if type(co) ~= "thread" then
    -- Raise the error as the original would, at the caller's position.
    local expected = compat.is51 and "coroutine expected" or ("thread expected, got " .. type(co))
    error("bad argument #1 to 'resume' (" .. expected .. ")", 2)
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
  local generation = hook.generation
  local r = pack(raw.resume(co, ...))
  resumers[co] = nil
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
    session.onThreadLeft(co, key, stack.levelsFromCaller() - 1)
  end
  return unpack(r, 1, r.n)
end
M.resume = resume

--- Registers what runs when a coroutine this module resumed dies of an error (its stack is kept).
function M.setOnDeath(fn) onDeath = fn end

local function create(f)
  local co = raw.create(f)
  adopt(co)
  return co
end

local function wrap(f)
  local co = create(f)
  known[co].wrap = true
  return function(...)
    local r = pack(resume(co, ...))
    if r[1] then return unpack(r, 2, r.n) end
    local err = r[2]
    if raw.close then pcall(raw.close, co) end
    if type(err) == "string" or type(err) == "number" then error(err, 2) end
    error(err, 0)
  end
end

function M.install(s)
  session = s
  session.setResumerLookup(M.resumerOf)
  coroutine.create = create
  coroutine.resume = resume
  coroutine.wrap = wrap
end

return M
