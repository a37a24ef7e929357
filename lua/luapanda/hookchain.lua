-- hookchain.lua: the runtime's hook in front of the program's own (proghooks.lua). When the
-- program set a hook on a thread, the installed function runs the runtime's hook one level deeper
-- and then passes the program every event it asked for, by a tail call, so that its hook sees the
-- stack exactly as if the interpreter had called it (Lua 5.1 keeps a "(tail call)" level), except
-- that it is a tail call, which getinfo's namewhat/istailcall and a traceback show. With the
-- native accelerator (PUC Lua) a C hook calls the program's function itself: nothing differs.
local compat = require("luapanda.compat")
local breakpoints = require("luapanda.breakpoints")

local M = {}

local getinfo = debug.getinfo
local find = string.find
local isOwnSource = breakpoints.isOwnSource
-- LuaJIT drops return events when a count hook runs without a line hook.
local RETURNS_NEED_LINES = compat.isJIT

-- hook.lua's side (M.init): isInside(), whether the runtime's own code runs.
local isInside

function M.init(callbacks)
  isInside = callbacks.isInside
end

local LETTERS, EVENTS = { "c", "r", "l" }, { c = "call", r = "ret", l = "line" }

--- The function to install for `hook` on a thread where the program's hook is `prog`
--- ({ fn, wants, count }), the same for the native accelerator's C hook (native/chainhook.c:
--- `decide` runs our side and returns the program's function, which the C hook calls itself, as
--- the interpreter would: then it is named "hook" and is no tail call), and maskFor(mask, count,
--- pollEvery) -> mask, count: what to install so that both get their events.
function M.wrap(hook, prog)
  local wants, fn = prog.wants, prog.fn
  local countEvery, countTicks = 1, 0 -- with the program's count hook: poll on every n-th count
  -- Whether our hook gets this event (a count: on every countEvery-th, never inside our code).
  local function ours(event)
    if event ~= "count" then return true end
    if isInside() then return false end
    countTicks = countTicks + 1
    if countTicks < countEvery then return false end
    countTicks = 0
    return true
  end
  -- The program's function when it gets this event; levels: 1 here, 2 me or decide, 3 the code.
  local function theirs(event)
    local wanted
    if event == "line" then wanted = wants.line
    elseif event == "count" then wanted = wants.count
    elseif event == "call" or event == "tail call" then wanted = wants.call
    else wanted = wants.ret end
    if not wanted or isInside() then return nil end
    -- The runtime's own code (its coroutine wrappers, its API) is not the program's, nor are
    -- the C functions it calls.
    local info = getinfo(3, "S")
    if info and isOwnSource(info.source) then return nil end
    if info and info.what == "C" and event ~= "line" and event ~= "count" then
      -- A C function: whose is it? The first Lua function below it called it.
      local level, caller = 4, getinfo(4, "S")
      while caller and caller.what == "C" do
        level = level + 1
        caller = getinfo(level, "S")
      end
      if caller and isOwnSource(caller.source) then return nil end
    end
    return fn
  end
  -- (Both call `hook` themselves: it must stand one level below the function the interpreter or
  -- the C hook called.)
  local me = function(event, line)
    if ours(event) then hook(event, line) end
    local f = theirs(event)
    if f then return f(event, line) end
  end
  local decide = function(event, line)
    if ours(event) then hook(event, line) end
    local f = theirs(event) -- (not a tail call: theirs counts this level)
    return f
  end
  local function maskFor(mask, count, pollEvery)
    -- With its own count hook the mask stays the same in every mode: each debug.sethook would
    -- start its count anew, and its count events must come on time.
    mask = wants.count and "crl" or mask
    for _, c in ipairs(LETTERS) do
      if wants[EVENTS[c]] and not find(mask, c, 1, true) then mask = mask .. c end
    end
    if RETURNS_NEED_LINES and wants.ret and count > 0 and not find(mask, "l", 1, true) then
      mask = mask .. "l"
    end
    if prog.count > 0 then
      count = prog.count
      countEvery = pollEvery > 0 and math.max(1, math.floor(pollEvery / prog.count)) or math.huge
    end
    return mask, count
  end
  return me, maskFor, decide
end

return M
