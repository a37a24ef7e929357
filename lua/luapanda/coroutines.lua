-- coroutines.lua: wrappers around coroutine.create/resume/wrap, installed while an IDE is attached.
-- They give every coroutine the debug hook of the current state (PUC Lua hooks are per thread),
-- remember who resumed whom (the resumer chain of stack frames), hand an unfinished step over to
-- the resumer when the stepping coroutine yields or ends, and make coroutine.wrap bodies
-- debuggable. Coroutines created before the IDE attached are adopted on their next resume.
local compat = require("luapanda.compat")
local hook = require("luapanda.hook")
local threads = require("luapanda.hookthreads")
local hooknative = require("luapanda.hooknative")
local stack = require("luapanda.stack")
local patches = require("luapanda.patches")
local argerrors = require("luapanda.argerrors")
local native = require("luapanda.native")
local events = require("luapanda.events")
local stepping = require("luapanda.stepping")
local threadscan = require("luapanda.threadscan")
local breakpoints = require("luapanda.breakpoints")
local paths = require("luapanda.paths")

local M = {}

local raw = {
  create = coroutine.create, resume = coroutine.resume, wrap = coroutine.wrap,
  status = coroutine.status, close = rawget(coroutine, "close"),
}
M.raw = raw
local known = setmetatable({}, { __mode = "k" }) -- co -> entry, see adopt
local onDeath = nil -- function(co, err, entry, marker, protected): a coroutine ended with an error
local isProtected = nil -- function(level): whether an error raised there is caught (exceptions.lua)
local connected = false -- an IDE is connected (the session's "link" announcement)
events.on("link", function(link) connected = link ~= nil end)
local isStepping, onThreadLeft = stepping.isStepping, stepping.onThreadLeft
local isJIT = compat.isJIT
local currentThread = compat.currentThread
local status = raw.status
local pack, unpack = compat.pack, compat.unpack
local holdsThreads = threads.hooksHoldThreads -- Lua 5.2: see hookthreads.afterResume

-- 5.1 (not LuaJIT) keeps a level for a frame a tail call replaced: the finishing functions below,
-- reached by tail calls, stand one level higher there than the functions that called them.
local TAIL = (compat.is51 and not isJIT) and 1 or 0

function M.info(co) return known[co] end

--- The thread that resumed `key` (key, handle, snapshot of its frames or nil), while it runs.
function M.resumerOf(key)
  local e = known[key]
  if e and e.by ~= nil then return e.by, e.byHandle, e.snapshot end
  return nil
end

-- What the runtime knows of a coroutine: { wrap = made by coroutine.wrap; while a resume runs it:
-- by, byHandle = the resuming thread (key, handle), snapshot = that thread's frames when it has no
-- handle; inner = { threads, err }: coroutines it resumed that died of the error it is dying of }.
local function adopt(co)
  local e = known[co]
  if not e then
    e = {}
    known[co] = e
    threads.prepare(co)
  end
  return e
end

--- Adopts the coroutines that existed before the IDE attached (threadscan.lua): each gets its
--- hook, however it is resumed. Returns how many, and whether the search ended early.
function M.adoptExisting(settings)
  if not threadscan.needed or settings.adoptCoroutines == false then return 0, false end
  local mod = native.module()
  local upvalueOf = mod and type(mod.upvalue) == "function" and mod.upvalue or nil
  local found, truncated = threadscan.find(function(co) return known[co] ~= nil end, upvalueOf,
    breakpoints.isOwnSource)
  for _, co in ipairs(found) do adopt(co) end
  return #found, truncated
end

local finish
-- The native module's thread(): the caller's thread, the main one of 5.1/LuaJIT included (M.install).
local threadOf = nil

-- The hot path of every resume: no table, no stack walk unless something could stop. What only
-- matters when the coroutine has died or a step was left in it is done after it returns.
local function resume(...)
  local co = ...
  if type(co) ~= "thread" then
    -- Fail as the original does (its message, the program's position; `...` keeps "no value").
    argerrors.reraise(raw.resume, "coroutine.resume", ...)
  end
  local entry = known[co] or adopt(co)
  -- Running or resuming another: the resume fails, as the original says; nothing to record.
  if entry.by ~= nil then return raw.resume(...) end
  local key, handle = currentThread()
  -- The main thread of 5.1/LuaJIT has no handle the program can get; the native module gives it.
  if handle == nil and threadOf then handle = threadOf() end
  entry.by, entry.byHandle = key, handle
  if handle == nil and connected and hook.anyActive() then
    -- Pure Lua there: keep a description of its frames (no variables) for the resumer chain,
    -- only while something could stop.
    entry.snapshot = stack.snapshot(2)
  end
  threads.switchTo(co)
  if holdsThreads then threads.beforeResume(co) end
  return finish(co, entry, key, hook.generation, raw.resume(...))
end
M.resume = resume

finish = function(co, entry, key, generation, ok, ...)
  entry.by, entry.byHandle, entry.snapshot = nil, nil, nil
  if holdsThreads or status(co) == "dead" then threads.afterResume(co) end
  threads.switchTo(nil)
  if not isJIT and generation ~= hook.generation then
    -- The debugger changed state while the coroutine ran (a step, new breakpoints): the resuming
    -- thread may have no handle to be updated from there, so update it now.
    threads.refresh()
  end
  if not ok and onDeath and connected and status(co) == "dead" then
    -- Whether the error is caught where a coroutine.wrap function was called (2: that caller).
    local protected = entry.wrap and isProtected(2 + TAIL)
    pcall(onDeath, co, (...), entry, finish, protected)
  end
  if connected and isStepping() then
    onThreadLeft(co, key, stack.levelsFromCaller() - 1 - TAIL - patches.extraLevels())
  end
  return ok, ...
end

-- Where the native wrappers (native/coresume.c) hand over after a resume that needs more than
-- their bookkeeping (`changed`: hooks changed while it ran). Reached from C where the Lua path's
-- C face stands, by a tail call, so `finish` sees the frames it sees on the Lua path.
local function finishFromC(co, entry, key, changed, ...)
  return finish(co, entry, key, changed and -1 or hook.generation, ...)
end

--- The dead thread of a coroutine.wrap function (the interpreter's C closure over its thread)
--- standing at `level` (relative to the caller), which is raising its coroutine's error; or nil.
function M.deadWrapThreadAt(level)
  local info = debug.getinfo(level + 1, "fS")
  if not info or info.what ~= "C" or type(info.func) ~= "function" then return nil end
  local _, co = debug.getupvalue(info.func, 1)
  if type(co) == "thread" and raw.status(co) == "dead" then return co end
  return nil
end

--- Registers what runs when a coroutine this module resumed dies of an error (its stack is kept),
--- and how to tell whether an error raised at a level is caught there.
function M.setOnDeath(fn, protectedAt)
  onDeath = fn
  isProtected = protectedAt
end

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

-- A wrap function's results are read back in its own frame, so that an error is raised from
-- there (the program's traceback names that frame as it names the interpreter's wrap function;
-- a tail call would lose the name; the values go back by one, which raises nothing). `buf`, one per wrap function, holds them meanwhile: up to
-- three values in its slots (no table per call), more in a packed table. Nothing of the program
-- stays in it once read.
local function keep(buf, ok, ...)
  local n = select("#", ...)
  buf.n = n
  if n <= 3 then
    buf[1], buf[2], buf[3] = ...
  else
    buf.all = pack(...)
  end
  return ok
end

-- Empties `buf` and returns the rest of its arguments.
local function release(buf, ...)
  buf[1], buf[2], buf[3], buf.all = nil, nil, nil, nil
  return ...
end

-- The error a wrap function raises for its coroutine's error `err`, and whether it gets the
-- caller's position in front.
local function wrapError(co, bodyRan, err)
  if closesOnError and bodyRan and status(co) == "dead" then
    local closed, closeErr = raw.close(co)
    if not closed then err = closeErr end
  end
  local t = type(err)
  return err, t == "string" or (t == "number" and positionsNumbers)
end

-- The native wrappers' C functions (see M.install): makeResume(impl), makeWrap(impl, co, entry,
-- buf); nil without the native module.
local makeResume, makeWrap = nil, nil

local function wrap(...)
  local f = ...
  if type(f) ~= "function" then argerrors.reraise(raw.wrap, "coroutine.wrap", ...) end
  local co = create(f)
  local entry = known[co]
  entry.wrap = true
  local buf = {}
  local function impl(...)
    local bodyRan = closesOnError and status(co) == "suspended"
    if keep(buf, resume(co, ...)) then return release(buf, unpack(buf.all or buf, 1, buf.n)) end
    local err, positioned = wrapError(co, bodyRan, release(buf, (buf.all or buf)[1]))
    -- The caller's position: 2 is the caller, or the C function this stands behind (patches.lua).
    if positioned then error(err, 2 + patches.extraLevels()) end
    error(err, 0)
  end
  if makeWrap then return makeWrap(impl, co, entry, buf) end
  return patches.visible(impl)
end

-- The native wrap function's hand-over: stands where `impl` above stands (behind the C function),
-- with the resume already done (`...`: its results).
local function wrapFromC(co, entry, key, changed, bodyRan, buf, ...)
  if keep(buf, finishFromC(co, entry, key, changed, ...)) then
    return release(buf, unpack(buf.all or buf, 1, buf.n))
  end
  local err, positioned = wrapError(co, bodyRan, release(buf, (buf.all or buf)[1]))
  if positioned then error(err, 2 + patches.extraLevels()) end
  error(err, 0)
end

--- While an IDE is attached: the program's coroutine functions are replaced (patches.lua).
function M.install()
  local lib = compat.libs.coroutine
  if type(lib) ~= "table" then return end
  -- With the native module the common case runs in C (native/coresume.c); Lua 5.2's hooks hold
  -- threads, which takes the Lua path on every resume anyway.
  local mod = native.module()
  threadOf = mod and mod.thread or nil
  if mod and mod.coroutinefast and not holdsThreads then
    makeResume, makeWrap = mod.coroutinefast(raw.resume, known, compat.MAIN, finishFromC, wrapFromC)
    hooknative.setResumeState(mod.resumestate)
  end
  patches.replace(lib, "create", patches.visible(create))
  patches.replace(lib, "resume", makeResume and makeResume(resume) or patches.visible(resume))
  patches.replace(lib, "wrap", patches.visible(wrap))
end

-- The order of the list: the coroutines on the stop's resume chain first, dead ones last.
local STATUS_RANK = { running = 1, normal = 2, suspended = 3, dead = 4 }

--- Where a coroutine stands: its first frame that is the program's Lua code (past yield, resume
--- and the runtime's own frames), as { file, oPath, line, name }; nil when there is none.
local function placeOf(co)
  for l = 0, 50 do
    local info = debug.getinfo(co, l, "nSl")
    if not info then return nil end
    if info.what ~= "C" and info.what ~= "tail" and not breakpoints.isOwnSource(info.source) then
      local file, oPath = paths.frameFile(info)
      local name = info.name
      if info.what == "main" then name = "main chunk" end
      return { file = file, oPath = oPath, line = tostring(info.currentline or 0), name = name }
    end
  end
  return nil
end

--- The coroutines the runtime knows (created, resumed or adopted while an IDE was attached; see
--- M.adoptExisting), at most `max` of them, with their status and where each stands; and how many
--- it knows. Read at a stop only (the IDE's `listCoroutines`): a walk of the known set, no more.
function M.list(max)
  local all = {}
  for co in next, known do
    local s = status(co)
    all[#all + 1] = { co = co, status = s, rank = STATUS_RANK[s] or 5, id = tostring(co) }
  end
  table.sort(all, function(a, b)
    if a.rank ~= b.rank then return a.rank < b.rank end
    return a.id < b.id
  end)
  local out = {}
  for i = 1, math.min(#all, max) do
    local e = all[i]
    local entry = { id = e.id, status = e.status, wrap = known[e.co] and known[e.co].wrap or nil }
    -- The running one is where the stop shows it; a dead one's frames say nothing of its state.
    if e.status == "suspended" or e.status == "normal" then
      local at = placeOf(e.co)
      if at then
        entry.file, entry.oPath, entry.line, entry.name = at.file, at.oPath, at.line, at.name
      end
    end
    out[i] = entry
  end
  return out, #all
end

function M.uninstall()
  local lib = compat.libs.coroutine
  if type(lib) ~= "table" then return end
  patches.revert(lib, "create")
  patches.revert(lib, "resume")
  patches.revert(lib, "wrap")
end

return M
