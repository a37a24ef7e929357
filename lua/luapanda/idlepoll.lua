-- idlepoll.lua: Lua 5.1 without the native accelerator, while no IDE is attached: a count hook on
-- the main thread reaches the safe point a few times a second however little the game allocates
-- (an engine that calls Lua from C every frame and never calls tick()). Lua 5.1's VM pays a count
-- hook with one decrement per instruction (5.2+ call a function per instruction once any hook is
-- set, and LuaJIT's compiled code counts nothing), and the period adapts to the game: when the hook
-- comes sooner than PERIOD / 2 or later than PERIOD * 2, the count is scaled in one step by
-- PERIOD / elapsed (growth capped at MAX_GROWTH a firing, so a clock too coarse to see the time
-- pass cannot jump to MAX_COUNT at once), so a busy game sees about 1 / PERIOD calls a second and an
-- idle one is reached within about PERIOD. It starts at START_COUNT, low, because an idle engine
-- may run only a few thousand instructions a second: halving from a high count took seconds. Invisible to the program, like the one-shot hook (wakeup.lua): debug.gethook
-- answers as if no hook were set; a hook the program sets replaces ours (and clearing it brings
-- ours back); coroutines are created while ours is off, so they inherit no hook — Lua 5.1 copies
-- the creator's hook into a new thread, and a hook table entry left by a dead thread at the same
-- address would then call the program's old hook function.
local compat = require("luapanda.compat")
local patches = require("luapanda.patches")
local argerrors = require("luapanda.argerrors")

local M = {}

local realSethook, realGethook = debug.sethook, debug.gethook
local realCreate, realWrap = coroutine.create, coroutine.wrap
local running, getinfo, frexp = coroutine.running, debug.getinfo, math.frexp

local PERIOD = 0.1      -- seconds between two calls of the hook, aimed at
-- Counts are powers of two, so the few a long session uses are remembered (usedCounts) in a table
-- of at most 24 entries however often the game's pace changes.
local MIN_COUNT = 128   -- instructions: an idle game's few instructions a frame still poll
local MAX_COUNT = 2 ^ 30
local START_COUNT = 1024
local MAX_GROWTH = 64   -- a busy game reaches its period in a few firings (1024 * 64^3 = 2^28)

-- Set by M.init (attach.lua): isDue(), onSafePoint(), afterSafePoint(), isInside(),
-- isOwnSource(source), and clock() (seconds).
local host = nil
local active = false
local count = START_COUNT
local last = 0
-- Every count the hook was set with: a thread made by an original coroutine.create the program
-- kept from before start() inherits our count without our function (see M.gethook).
local usedCounts = {}

-- Our hook may still be on the main thread, which a coroutine cannot reach in Lua 5.1: the
-- gethook replacement stays until the hook removes itself there (idleHook).
local gethookKept = false

local idleHook
idleHook = function()
  if not active then
    -- Stopped while this thread was not the main one (Lua 5.1 names no main thread): gone now.
    realSethook()
    if gethookKept then
      gethookKept = false
      patches.revert(compat.libs.debug, "gethook")
    end
    pcall(host.afterSafePoint)
    return
  end
  local now = host.clock()
  local elapsed = now - last
  last = now
  local next = count
  if elapsed < PERIOD / 2 or elapsed > PERIOD * 2 then
    local scaled = elapsed > 0 and count * PERIOD / elapsed or count * MAX_GROWTH
    if scaled > count * MAX_GROWTH then scaled = count * MAX_GROWTH end
    if scaled > MAX_COUNT then scaled = MAX_COUNT end
    if scaled < MIN_COUNT then scaled = MIN_COUNT end
    local mantissa, exponent = frexp(scaled) -- scaled = mantissa * 2^exponent, 0.5 <= mantissa < 1
    next = 2 ^ (mantissa >= 0.7071 and exponent or exponent - 1)
  end
  if next ~= count then
    count = next
    usedCounts[count] = true
    realSethook(idleHook, "", count)
  end
  if host.isInside() or not host.isDue() then return end
  local info = getinfo(2, "S")
  if info and host.isOwnSource(info.source) then return end
  pcall(host.onSafePoint)
end

local function onMain() return running() == nil end

local function arm()
  usedCounts[count] = true
  last = host.clock()
  realSethook(idleHook, "", count)
end

-- The replacements, while the count hook is on (patches.lua restores the originals) ---------------

--- debug.gethook: ours is no hook, on the thread that carries it and on a thread that inherited it.
local function replacedGethook(...)
  local fn, mask, n = realGethook(...)
  if fn == idleHook or (fn == nil and mask == "" and usedCounts[n]) then return nil, "", 0 end
  return fn, mask, n
end

-- A thread that never runs, where a program's debug.sethook arguments are checked by the
-- original itself before anything is set (proghooks.lua does the same).
local checker = realCreate(function() end)
-- (The original under the name a hook of the program sees it by, in the call event of the tail
-- call below: "sethook", as when the program calls debug.sethook.)
local sethook = realSethook

--- debug.sethook: once the program sets a hook of its own (on any thread), ours steps aside for
--- good — removed, and our replacements with it, before the program's hook is set, by a tail call
--- that is the last thing this function does — so a program that uses hooks (a profiler, a
--- sandbox's budget) meets nothing of ours in them. Clearing a hook changes nothing of ours.
local function replacedSethook(...)
  local first = ...
  local onThread = type(first) == "thread"
  local ok
  if onThread then ok = pcall(sethook, checker, select(2, ...))
  else ok = pcall(sethook, checker, ...) end
  sethook(checker)
  if not ok then
    argerrors.reraise(sethook, "sethook", ...)
  end
  local fn
  if onThread then fn = select(2, ...) else fn = first end
  if fn ~= nil then M.stepAside() end
  return sethook(...)
end

--- Runs `make(...)` (coroutine.create or wrap) with our hook off, so the new thread inherits none.
local function withoutOurs(make, ...)
  local ours = realGethook() == idleHook
  if ours then realSethook() end
  local ok, made = pcall(make, ...)
  if ours then realSethook(idleHook, "", count) end
  return ok, made
end

-- (Each wrapper raises an argument error itself: argerrors names the call the program made.)
local function replacedCreate(...)
  local ok, made = withoutOurs(realCreate, ...)
  if ok then return made end
  argerrors.reraise(realCreate, "create", ...)
  error(made, 0)
end

local function replacedWrap(...)
  local ok, made = withoutOurs(realWrap, ...)
  if ok then return made end
  argerrors.reraise(realWrap, "wrap", ...)
  error(made, 0)
end

-- -----------------------------------------------------------------------------------------------

function M.init(callbacks) host = callbacks end

--- Whether this interpreter gains from it: Lua 5.1 itself (not LuaJIT), unless the settings say no.
function M.applies(settings)
  return compat.is51 and not compat.isJIT and settings.idleCountHook ~= false
end

local function install()
  local libs = compat.libs -- (the tables the program sees; the runtime's own are copies)
  patches.replace(libs.debug, "gethook", patches.visible(replacedGethook))
  patches.replace(libs.debug, "sethook", patches.visible(replacedSethook))
  patches.replace(libs.coroutine, "create", patches.visible(replacedCreate))
  patches.replace(libs.coroutine, "wrap", patches.visible(replacedWrap))
end

local function uninstall(keepGethook)
  local libs = compat.libs
  patches.revert(libs.coroutine, "wrap")
  patches.revert(libs.coroutine, "create")
  patches.revert(libs.debug, "sethook")
  if keepGethook then gethookKept = true else patches.revert(libs.debug, "gethook") end
end

-- The program set a hook of its own: ours stays off for the rest of the process.
local asideForGood = false

--- Starts it when it applies and the main thread runs with no hook (none of the program's ever);
--- true when on.
function M.start(settings)
  if active then return true end
  if asideForGood or not host or not M.applies(settings) or not onMain() or realGethook() ~= nil then
    return false
  end
  active, gethookKept = true, false
  install()
  arm()
  return true
end

--- The program is about to set a hook of its own (the replaced debug.sethook).
function M.stepAside()
  asideForGood = true
  M.stop()
end

--- Ends it (an IDE attached, or stopAttach()). From a coroutine the main thread's hook cannot be
--- reached: it removes itself when it next fires.
function M.stop()
  if not active then return end
  active = false
  local main = onMain()
  if main and realGethook() == idleHook then realSethook() end
  uninstall(not main)
end

function M.isActive() return active end

--- For getInfo(): the hook's period now, in instructions.
function M.describe()
  if asideForGood then return "no count hook: the program sets debug hooks of its own (Lua 5.1)" end
  if not active then return nil end
  return "a count hook on the main thread every " .. count .. " instructions (Lua 5.1)"
end

return M
