---@meta LuaPanda
-- LuaPanda.meta.lua: type definitions of the LuaPanda MCP Debugger runtime's public API for the
-- Lua language server (LuaLS / sumneko "Lua" extension). Keep it next to LuaPanda.lua: the editor
-- then completes and checks `LuaPanda.start(...)`, `LuaPanda.settings.*` and the rest. It is never
-- loaded by the game (`---@meta` files define types only). A unit test compares it with the keys
-- of the built runtime's API table, so a function or setting cannot be added to one and not the other.

---Settings upstream kept as constants at the top of its file. Change them before `start()` (or
---before the next connection); all times are in seconds.
---@class LuaPanda.Settings
---Seconds between attempts to reach an IDE that is not listening yet (default: 0.25 when the IDE is
---on this machine or the game listens with `startServer()`, 1 when `start()` names another host). A
---running game attaches within about this long of the IDE listening when the native accelerator
---is in use (its wake timer); without it, at the next garbage-collection cycle or `tick()`.
---@field attachInterval number|nil
---How long one connection attempt of `start()` waits (default 0.05; the first attempt to 127.0.0.1
---may take up to 1 s, where nobody listening answers at once).
---@field connectTimeoutSec number
---How long `startServer()` waits for the IDE to connect (default 0.5).
---@field listeningTimeoutSec number
---The IDE accepted the connection but sent nothing for this long: give up (default 10).
---@field handshakeTimeoutSec number
---The same under a pairing secret, for the whole exchange: a silent stranger holds the game this
---long at most (default 2).
---@field pairingTimeoutSec number
---Under a pairing secret, each failed handshake in a row doubles the wait before the next attempt,
---up to this many seconds (default 16): a flood of strangers cannot keep the game in handshakes.
---@field pairingBackoffMaxSec number
---Count-hook period, in VM instructions, while connected (default 100000). 0: notice the IDE's
---commands only at garbage-collection cycles and `LuaPanda.tick()` (cheaper; a loop that never
---allocates cannot be paused then).
---@field pollInstructions integer
---LuaJIT: keep the compiler off while an IDE is attached, so that pause stops even a compiled
---loop that never leaves its trace (default false: the compiler stays on, and is off only while
---a step, a pause or a stop needs every line).
---@field jitOffWhileAttached boolean
---Use the native accelerator (`luapanda_native51`…`luapanda_native54`) when it is found on
---`package.cpath` (default true). Set false for an engine that moves one Lua state between threads.
---@field useNative boolean
---LuaJIT with the native accelerator: run LuaJIT's profiler in line mode, without samples, so
---that code running compiled notices the IDE (attach, pause, hot reload) without `tick()` (default
---true). Set false in a program that runs `jit.profile` itself (LuaJIT runs one profiler at a time).
---@field jitProfiler boolean
---At each attach, look for the coroutines the program made before it (a walk of everything
---reachable from the registry, the globals and the threads' stacks) and give them the debug hook,
---so that they stop at breakpoints however the engine resumes them (`lua_resume` from C included).
---About 0.6 s for a heap of 30 MB of small tables under Lua 5.4; LuaJIT, whose one hook covers
---every thread, needs no walk. Set false to skip it (default true).
---@field adoptCoroutines boolean
---Without the native accelerator, with line breakpoints set: how the hook watches for them. "calls"
---hooks every call (and, below a function with breakpoints, returns and lines); "lines" hooks
---every line and lets through only the line numbers breakpoints are on; "auto" (default) picks,
---per thread, whichever costs less for the code it runs (lines for code with many calls, calls
---for loops without any). Function breakpoints and steps always use calls. Any other value is "auto".
---@field hookStrategy "auto"|"calls"|"lines"
---Returns a new TCP object for an engine with its own socket library (instead of luasocket). It
---must behave like a luasocket TCP object: `connect`, `send`, `receive("*l", prefix)`,
---`settimeout`, `close`, optionally `setoption`. Default nil (luasocket).
---@field customGetSocketInstance? fun(): LuaPanda.Socket
---While stopped and the IDE says nothing, check the link this often (default 10).
---@field stoppedProbeSec number
---Lua 5.1 without the native accelerator, while no IDE is attached: a count hook on the main
---thread (nearly free in Lua 5.1) tries to attach a few times a second, so that a running game is
---reached without `tick()`. Hidden from `debug.gethook`; it steps aside for good once the program
---sets a debug hook of its own. Set false before `start()` to turn it off (default true).
---@field idleCountHook boolean
---`LuaPanda.tick()` reads the IDE's commands at most this often while attached (default 0.05).
---@field tickPollSec number

---The part of a luasocket TCP object the runtime uses.
---@class LuaPanda.Socket
---@field connect fun(self: LuaPanda.Socket, host: string, port: integer): (integer|nil), string?
---@field send fun(self: LuaPanda.Socket, data: string): (integer|nil), string?
---@field receive fun(self: LuaPanda.Socket, pattern: string|integer, prefix?: string): (string|nil), string?, string?
---@field settimeout fun(self: LuaPanda.Socket, seconds: number|nil)
---@field close fun(self: LuaPanda.Socket)
---@field setoption? fun(self: LuaPanda.Socket, option: string, value: any)

---The breakpoints the IDE sent, by lookup key, then by full path.
---@alias LuaPanda.Breakpoints table<string, table<string, { path: string, lines: table<integer, table> }>>

---The LuaPanda MCP Debugger runtime: a drop-in replacement for upstream Tencent LuaPanda's
---`LuaPanda.lua`, with the same API on the global `LuaPanda`.
---@class LuaPanda
---The settings table (also reachable as `LuaPanda.settings`).
---@field settings LuaPanda.Settings
---Same as `LuaPanda.settings.customGetSocketInstance` (upstream's name on the API table).
---@field customGetSocketInstance? fun(): LuaPanda.Socket
LuaPanda = {}

---Connects to the IDE (default 127.0.0.1:8818), which listens. Without an IDE the program runs as
---if the debugger were not there; an IDE that starts listening later is reached within about
---`attachInterval` (at the next garbage-collection cycle, or at the next `LuaPanda.tick()`).
---Prints one line on stderr and changes nothing when no socket library can be loaded.
---@param host? string IDE address (default "127.0.0.1")
---@param port? integer IDE port (default 8818)
---@param options? {name?: string, secret?: string} `name`: this game's name in the IDE (several games may attach to one port; default: program file and process id); `secret`: a pairing secret the IDE must prove (launch.json's `connectionSecret`; default: the environment variable LUAPANDA_SECRET)
---@return boolean connected true when connected now
function LuaPanda.start(host, port, options) end

---Listens for the IDE (default 127.0.0.1:8818, this machine only), which connects to the game,
---waiting up to `settings.listeningTimeoutSec` for it. Any other address needs a pairing secret
---(`secret`, or the environment variable LUAPANDA_SECRET) or `insecure = true`; without either
---it refuses, saying why on stderr.
---@param host? string address to listen on (default "127.0.0.1")
---@param port? integer port to listen on (default 8818)
---@param options? {name?: string, secret?: string, insecure?: boolean} `name`: this game's name in the IDE; `secret`: the pairing secret the IDE must prove (launch.json's `connectionSecret`); `insecure`: listen beyond loopback without one (anyone who reaches the port can run code in the game)
---@return boolean connected true when connected now
function LuaPanda.startServer(host, port, options) end

---For game loops: call once per frame. While no IDE is attached it costs a clock comparison and
---reaches an IDE that started listening within `attachInterval`; while attached without a hook
---that polls (`pollInstructions = 0`, no native accelerator) it reads the IDE's commands.
function LuaPanda.tick() end

---Hard breakpoint: stops at the next line of the calling code.
---@return true|nil stopping true, or nil when no IDE is connected
function LuaPanda.BP() end

---Loads a changed file into the running program (what VS Code's "Hot Reload This File" does):
---functions are replaced where the program holds them, module state is kept. Works without an IDE.
---@param path string the file, named as a breakpoint would name it
---@param source? string its new text (default: read from `path`)
---@return table report `status` ("success"|"error"), `error`, `phase`, `replaced`, `added`, `notFound`, `notReplaced`, `active`, `timeMs`
function LuaPanda.reload(path, source) end

---Disconnects from the IDE and stops trying to attach again; removes every hook the runtime set.
function LuaPanda.stopAttach() end

---Disconnects from the IDE; the game attaches again when the IDE listens (as after a crash).
function LuaPanda.disconnect() end

---@return boolean connected whether an IDE is connected now
function LuaPanda.isConnected() end

---The breakpoints the IDE sent, as the runtime stores them.
---@return LuaPanda.Breakpoints
function LuaPanda.getBreaks() end

---Explains how breakpoints match the code you are stopped in (or, called from code, its caller):
---the chunk's source, the key its breakpoints are looked up by, the breakpoint paths the IDE sent
---under that key and which of them apply.
---@return string report several lines
function LuaPanda.testBreakpoint() end

---Runs a Lua file under the debugger so that uncaught errors stop before the program dies (the
---launch mode uses it). Sets the global `arg`; returns what the file returns, and raises its
---error again after the stop.
---@param path string the Lua file
---@param ... any arguments passed to the file's chunk
---@return any ...
function LuaPanda.runFile(path, ...) end

---For the IDE's launcher, which reads the program's stdout: debug-console lines (logpoints) go
---into stdout after `marker`, ended by a NUL, in order with the program's output.
---@param marker string
function LuaPanda.consoleThroughStdout(marker) end

---Sends text to the IDE.
---@param message any converted with tostring
---@param level? integer log level; shown when at least the IDE's log level (default 0)
---@param kind? 0|1|2|3 0 output channel (default), 1 tip, 2 debug console, 3 error tip
---@return boolean sent false when no IDE is connected
function LuaPanda.printToVSCode(message, level, kind) end

---One line: runtime and protocol version, Lua version, connection state, mode and address.
---@return string
function LuaPanda.getBaseInfo() end

---Several lines: `getBaseInfo()`, the hook's state, whether the native accelerator is in use (and
---if not, why), the breakpoints, the path settings and the recent log.
---@return string
function LuaPanda.getInfo() end

---Several lines that say whether debugging can work here: socket library, load/loadstring,
---which uncaught errors stop, the native accelerator, where the runtime was loaded from.
---@return string
function LuaPanda.doctor() end

---Pretty-prints a table, nested tables indented (cycles marked).
---@param t any the value to print
---@param name? string its label (default "table")
---@return string
function LuaPanda.serializeTable(t, name) end

return LuaPanda
