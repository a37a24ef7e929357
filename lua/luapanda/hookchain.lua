-- hookchain.lua: the runtime's hook in front of the program's own (proghooks.lua). When the
-- program set a hook on a thread, the installed function runs the runtime's hook one level deeper
-- and then passes the program every event it asked for, by a tail call, so that its hook sees the
-- stack exactly as if the interpreter had called it (Lua 5.1 keeps a "(tail call)" level).
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
--- ({ fn, wants, count }), and maskFor(mask, count, pollEvery) -> mask, count: what to install
--- so that both get their events.
function M.wrap(hook, prog)
  local wants, fn = prog.wants, prog.fn
  local countEvery, countTicks = 1, 0 -- with the program's count hook: poll on every n-th count
  local me = function(event, line)
    if event ~= "count" then
      hook(event, line)
    elseif not isInside() then
      countTicks = countTicks + 1
      if countTicks >= countEvery then
        countTicks = 0
        hook(event, line)
      end
    end
    local wanted
    if event == "line" then wanted = wants.line
    elseif event == "count" then wanted = wants.count
    elseif event == "call" or event == "tail call" then wanted = wants.call
    else wanted = wants.ret end
    if not wanted or isInside() then return end
    -- The runtime's own code (its coroutine wrappers, its API) is not the program's, nor are
    -- the C functions it calls.
    local info = getinfo(2, "S")
    if info and isOwnSource(info.source) then return end
    if info and info.what == "C" and event ~= "line" and event ~= "count" then
      -- A C function: whose is it? The first Lua function below it called it.
      local level, caller = 3, getinfo(3, "S")
      while caller and caller.what == "C" do
        level = level + 1
        caller = getinfo(level, "S")
      end
      if caller and isOwnSource(caller.source) then return end
    end
    return fn(event, line)
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
  return me, maskFor
end

return M
