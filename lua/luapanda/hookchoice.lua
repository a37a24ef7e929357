-- hookchoice.lua: which of two ways the pure-Lua hook watches for line breakpoints, decided for
-- each thread from what its code does (hook.lua keeps the counts and switches; under LuaJIT, whose
-- hook is global, the thread whose hook runs decides for all).
--   calls: hook.lua's modes. A call hook everywhere that reads the called function (a getinfo,
--          which allocates); below and inside a function with breakpoints, returns and lines too.
--   lines: a line hook everywhere that returns at once unless the line's number is one that a
--          breakpoint is on (the line filter); only those lines read their function.
-- Which costs less depends on the code: game code with methods and vector maths runs several
-- calls per line (lines cost a third of calls there, or less below a function with breakpoints),
-- a numeric loop runs no call at all (calls cost nothing more there, lines ×15). A thread in lines
-- counts its line events; every few count ticks a short one counts its calls too, and the thread
-- goes over to calls when they would clearly cost less. A thread in calls tries lines again after
-- a while, later each time lines lost.
local M = {}

M.CALLS, M.LINES = 1, 2

-- What a call event costs in calls, in line events of the filter: its getinfo and the table it
-- leaves for the collector. Measured: ~185 ns against ~65 ns on a call-heavy loop with a small
-- heap (Lua 5.4), ~250 against ~55 on the game-loop bench, where the collector has more to walk.
-- The lower ratio, rounded: calls are chosen only where they are cheaper on any heap. Below a
-- function with breakpoints every call has its return, which costs as much.
M.CALL_COST = 3
-- Calls must cost less than this share of what lines cost before a thread switches: a sample is
-- one count tick, and the code of the next may differ.
M.MARGIN = 0.8
-- Count ticks in lines between two samples of the calls (a sample tick hooks calls as well).
M.SAMPLE_EVERY = 16
-- A sample is a short tick: this share of a tick's lines. Every call event of a sample is a hook
-- call too, so a full tick of sampling cost 3 % of a game-loop frame, and a coroutine that runs a
-- few lines per frame spent tens of frames in its first sample.
M.SAMPLE_SHARE = 8
-- Seconds of CPU time in calls before a thread tries lines again: at first, and at most (the
-- delay doubles each time lines lose, and starts over when they win). A try costs one count tick
-- in lines, which in a loop without calls is slow: the delay is at least TRY_SHARE times what the
-- last one took, so that tries cost at most a twentieth of the time.
M.RETRY_FIRST = 0.1
M.RETRY_MAX = 3.2
M.TRY_SHARE = 20

--- Whether calls would cost clearly less than lines, from one count tick's `lines` and `calls`
--- events. `mode`: "elsewhere" (no function with breakpoints on the thread's stack), "below" (one
--- is, lower down: calls then pay every return too) or "inside" (the running function has
--- breakpoints: calls pay its lines too, taken here as all of them).
function M.callsCheaper(lines, calls, mode)
  local callsCost = calls * M.CALL_COST
  if mode ~= "elsewhere" then callsCost = callsCost * 2 end
  if mode == "inside" then callsCost = callsCost + lines end
  return callsCost < lines * M.MARGIN
end

--- The delay before the next try of lines, after a try that took `tried` seconds and `lost` (or
--- won), `delay` after the one before.
function M.nextRetry(delay, lost, tried)
  if not lost then return M.RETRY_FIRST end
  return math.max(math.min(delay * 2, M.RETRY_MAX), (tried or 0) * M.TRY_SHARE)
end

return M
