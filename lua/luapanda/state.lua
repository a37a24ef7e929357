-- state.lua: what the parts of the session share: the user's settings, the IDE's configuration
-- from initSuccess, how far the handshake got, and whether (and where) the program is stopped.
-- Plain fields, no behaviour; the link itself is link.lua's, and the modules outside the session
-- learn of it and of the exception filters through announcements (events.lua).
local M = {}

-- User-editable settings (upstream names), exposed through LuaPanda.
M.settings = {
  attachInterval = nil,        -- seconds between attempts to attach (nil: 0.25 while the IDE is
                               -- on this machine or the game listens, 1 when connecting elsewhere,
                               -- where an attempt may wait connectTimeoutSec)
  connectTimeoutSec = 0.05,
  listeningTimeoutSec = 0.5,
  handshakeTimeoutSec = 10,    -- the IDE accepted the connection but sent nothing: give up
  pairingTimeoutSec = 2,       -- the same under a pairing secret (pairing.lua): the whole
                               -- exchange, so that a silent stranger holds the game briefly
  pairingBackoffMaxSec = 16,   -- under a secret, failed handshakes in a row double the wait
                               -- before the next attempt up to this (a flood of strangers)
  pollInstructions = 100000,   -- count hook period while connected (0: notice commands at GC
                               -- cycles and LuaPanda.tick() only)
  jitOffWhileAttached = false, -- LuaJIT: true keeps the compiler off while attached, so that
                               -- pause stops even a compiled loop that never leaves its trace
  useNative = true,            -- use the native accelerator (luapanda_native<abi>) when found
  adoptCoroutines = true,      -- at attach, find the coroutines made before it (threadscan.lua)
                               -- so that they stop however they are resumed (a heap walk: about
                               -- 0.6 s for 30 MB of small tables, Lua 5.4; LuaJIT needs none)
  jitProfiler = true,          -- LuaJIT with the accelerator: run LuaJIT's profiler (line mode,
                               -- no samples) so that compiled loops notice the IDE (jitwake.lua);
                               -- false for a program that runs jit.profile itself
  hookStrategy = "auto",       -- pure Lua, with line breakpoints: "calls" hooks calls,
                               -- "lines" every line through a filter of breakpoint lines, "auto"
                               -- picks per thread whichever costs less (hookchoice.lua)
  customGetSocketInstance = nil,
  stoppedProbeSec = 10,        -- while stopped and the IDE says nothing, check the link this often
  idleCountHook = true,        -- Lua 5.1 without the accelerator, while no IDE is attached: a
                               -- count hook on the main thread tries to attach a few times a
                               -- second however little the game allocates (idlepoll.lua)
  tickPollSec = 0.05,          -- LuaPanda.tick() reads the IDE's commands at most this often
}

-- What the IDE asked for in initSuccess (commands.lua).
M.config = { logLevel = 1, stopOnEntry = false, base64 = false }

M.gameName = nil              -- start(host, port, {name = ...}): the game's name in the IDE

-- The handshake (attach.lua waits for these; commands.lua sets them).
M.initialized = false
M.handshakeRefused = nil      -- why initSuccess was refused, or nil
M.configurationDone = true

-- The stop (stops.lua): whether the program is stopped, and where its running thread stopped:
-- stopThread (thread key), stopDepth (levels), stopLine, callerLine (its caller's line, when the
-- caller runs in the same thread). Steps start from there (stepping.lua).
M.stopped = false
M.stopThread, M.stopDepth, M.stopLine, M.callerLine = nil, nil, nil, nil

-- Seconds, for timeouts and intervals: os.time until start() finds a finer clock (attach.lua).
M.clock = os.time

return M
