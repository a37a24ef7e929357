-- LuaPanda.lua: the public entry of the LuaPanda MCP Debugger runtime, compatible with upstream
-- Tencent LuaPanda's API. It assigns the global `LuaPanda` (and nothing else) and returns it.
--   require("LuaPanda").start("127.0.0.1", 8818)      -- connect to the IDE (it listens)
--   require("LuaPanda").startServer("127.0.0.1", 8818)  -- listen; the IDE connects
--   require("LuaPanda").startServer("0.0.0.0", 8818, { secret = "..." })  -- from other machines
-- Source modules live in lua/luapanda/; scripts/build-lua.mjs bundles them into one file.
local existing = rawget(_G, "LuaPanda")
if type(existing) == "table" and existing.__runtime == "luapanda-mcp" then return existing end

local compat = require("luapanda.compat")
local json = require("luapanda.json")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")
local hook = require("luapanda.hook")
local stack = require("luapanda.stack")
local variables = require("luapanda.variables")
local eval = require("luapanda.eval")
local safe = require("luapanda.safe")
local transport = require("luapanda.transport")
local session = require("luapanda.session")
local coroutines = require("luapanda.coroutines")
local exceptions = require("luapanda.exceptions")
local native = require("luapanda.native")
local linemap = require("luapanda.linemap")
local pairing = require("luapanda.pairing")

local M = { __runtime = "luapanda-mcp" }
local pcall = pcall

-- Every function of the runtime's own modules (bundled or not) is excluded from debugging.
local function registerOwn(t)
  for _, v in pairs(t) do
    if type(v) == "function" then
      local info = debug.getinfo(v, "S")
      if info and info.what ~= "C" then breakpoints.addOwnSource(info.source) end
    end
  end
end
for _, m in ipairs({ compat, json, paths, breakpoints, hook, stack, variables, eval, safe, transport,
  session, coroutines, exceptions, native, require("luapanda.wakeup"), require("luapanda.patches"),
  require("luapanda.hosthandler"), require("luapanda.quietload"), require("luapanda.argerrors"),
  require("luapanda.proghooks"), require("luapanda.jitview"), require("luapanda.conditions"),
  require("luapanda.consolepipe"), require("luapanda.hotreload"), require("luapanda.fnbreakpoints"),
  require("luapanda.errorfilters"), require("luapanda.events"), require("luapanda.state"),
  require("luapanda.link"), require("luapanda.attach"), require("luapanda.dispatch"),
  require("luapanda.commands"), require("luapanda.initinfo"), require("luapanda.stepping"),
  require("luapanda.stops"), require("luapanda.hits"), require("luapanda.hookmode"), require("luapanda.hookchoice"),
  require("luapanda.hookthreads"), require("luapanda.hookfilter"), require("luapanda.hooknative"),
  require("luapanda.hookchain"), require("luapanda.hookjit"), require("luapanda.bprules"),
  require("luapanda.preview"), require("luapanda.classnames"), require("luapanda.jitwake"),
  require("luapanda.threadscan"), require("luapanda.enginecatch"), require("luapanda.sha256"), pairing,
  require("luapanda.idlepoll"), require("luapanda.collect"), linemap }) do
  registerOwn(m)
end
breakpoints.addOwnSource(debug.getinfo(1, "S").source)

--- One line on stderr when the debugger cannot work at all (it then changes nothing).
local function cannotDebug(why)
  local err = io.stderr
  -- One line: require's message lists every place it looked, one per line.
  why = string.gsub(string.match(tostring(why), "^[^\n]*"), ":%s*$", "")
  if string.find(why, "not found", 1, true) then why = why .. " on package.path/package.cpath" end
  if err then
    pcall(err.write, err, "LuaPanda: the debugger is off: cannot load a socket library (" .. tostring(why)
      .. "). Install luasocket for this Lua (Debian/Ubuntu: apt-get install lua-socket), add it to"
      .. " package.cpath (LUA_CPATH), or set LuaPanda.customGetSocketInstance.\n")
  end
end

local function say(line)
  local err = io.stderr
  if err then pcall(err.write, err, line .. "\n") end
end

local function isLoopback(host)
  return host == "localhost" or host == "::1" or string.find(host, "^127%.%d+%.%d+%.%d+$") ~= nil
end

--- A game that listens beyond this machine's loopback lets whoever reaches the port run code in
--- it: only with a pairing secret, or when told { insecure = true }, and said in one line.
local function mayListen(host, port)
  local where = host .. ":" .. port
  if isLoopback(host) then return true end
  if pairing.required() then
    say("LuaPanda: listening on " .. where .. ": IDEs on other machines can connect; only one that proves"
      .. " the pairing secret is obeyed.")
    return true
  end
  if pairing.isInsecure() then
    say("LuaPanda: WARNING: listening on " .. where .. " WITHOUT A PAIRING SECRET ({ insecure = true }):"
      .. " ANYONE WHO CAN REACH THIS PORT CAN RUN CODE IN THIS GAME.")
    return true
  end
  say("LuaPanda: startServer(\"" .. host .. "\", " .. port .. ") refused: listening beyond this machine lets"
    .. " anyone on the network run code in this game. Give a pairing secret (startServer(host, port,"
    .. " { secret = \"...\" }) or the environment variable " .. pairing.ENV .. ", and the same"
    .. " \"connectionSecret\" in launch.json), listen on \"127.0.0.1\", or pass { insecure = true }.")
  return false
end

local function begin(mode, host, port, options)
  if session.isConnected() then
    session.log("LuaPanda: already connected; start() ignored", 2)
    return false
  end
  pairing.configure(options)
  if mode == "server" and not mayListen(host, port) then return false end
  native.load(session.settings)
  local ok, connected, why = pcall(session.connect, mode, host, port)
  -- Loading the runtime and the first attempt ran a lot of its code: LuaJIT's hot counters back
  -- to their start values (compat.resetJitCounters).
  compat.resetJitCounters()
  if ok and connected == nil then
    cannotDebug(why)
    return false
  end
  if not ok then
    -- The runtime failed (a bug, or a customGetSocketInstance that returned no socket): said
    -- once, naming the module and line, instead of a start() that just returns false.
    local err = io.stderr
    if err then
      pcall(err.write, err, "LuaPanda: start() failed: " .. tostring(linemap.rewrite(tostring(connected))) .. "\n")
    end
    return false
  end
  return ok and connected or false
end

--- Connects to the IDE (default 127.0.0.1:8818). Without an IDE the program runs as if the
--- debugger were not there; an IDE that starts listening later is reached within about a
--- second (at the next garbage-collection cycle, or at the next LuaPanda.tick()).
--- `options.name` names this game in the IDE (several games may attach to one port: each is a
--- session of its own); default, the program's file name and process id. `options.secret` (else
--- the environment variable LUAPANDA_SECRET) is a pairing secret: only an IDE that proves it
--- (launch.json's "connectionSecret") is obeyed (pairing.lua).
function M.start(host, port, options)
  if type(options) == "table" and options.name ~= nil then session.setGameName(tostring(options.name)) end
  return begin("client", host or "127.0.0.1", tonumber(port) or 8818, options)
end

--- Listens for the IDE (default 127.0.0.1:8818: this machine only), waiting up to
--- listeningTimeoutSec for it. Beyond loopback it needs `options.secret` (or LUAPANDA_SECRET),
--- or `options.insecure = true`, and says who can connect.
function M.startServer(host, port, options)
  if type(options) == "table" and options.name ~= nil then session.setGameName(tostring(options.name)) end
  return begin("server", host or "127.0.0.1", tonumber(port) or 8818, options)
end

--- For game loops: call once per frame. While no IDE is attached it costs a clock comparison
--- and reaches an IDE that started listening within attachInterval; while attached without a
--- hook that polls (pollInstructions = 0, no native accelerator) it reads the IDE's commands.
function M.tick() session.tick() end

--- Hard breakpoint: stops at the next line of the calling code. Returns true, or nil when no IDE.
function M.BP()
  return session.requestBP()
end

--- Hot reload from the program itself (a game's own file watcher, a console command): loads the
--- file's new text (`source`, else read from `path`) into the running program, as VS Code's
--- "Hot Reload This File" does. `path` names the file as a breakpoint would. Returns the report
--- table (`status` "success" or "error", `replaced`, `added`, `notFound`, `notReplaced`, `active`,
--- `timeMs`, …; see Docs/Hot_Reload.md). Works without an IDE.
function M.reload(path, source)
  if source == nil and type(path) == "string" then
    local file, why = io.open(path, "rb")
    if not file then
      return { status = "error", phase = "find", error = "cannot read " .. path .. ": " .. tostring(why),
        replaced = {}, added = {}, notFound = {}, notReplaced = {}, active = {}, references = 0, searched = 0, timeMs = 0 }
    end
    source = file:read("*a")
    file:close()
  end
  return require("luapanda.hotreload").reload(path, source)
end

function M.stopAttach() session.stopAttach() end
function M.disconnect() if session.isConnected() then session.disconnect("LuaPanda.disconnect()") end end
function M.isConnected() return session.isConnected() end
function M.getBreaks() return breakpoints.all() end

--- Explains how breakpoints match the code you are stopped in (or, called from code, its caller):
--- the chunk's source, the key its breakpoints are looked up by, the breakpoint paths the IDE sent
--- under that key and which of them apply. Upstream runs this as a two-step dialogue; every fact
--- it needs is at hand here, so one call answers.
function M.testBreakpoint()
  local frame = session.isStopped() and stack.get(2) or nil
  local source = frame and frame.source
  if not source then
    local info = debug.getinfo(2, "S")
    source = info and info.source or "?"
  end
  local cfg = paths.config()
  local lines = { "Breakpoint test for the chunk " .. (frame and "you are stopped in" or "that called testBreakpoint()") }
  if not paths.isFileSource(source) then
    lines[#lines + 1] = "source: " .. string.sub(source, 1, 80)
    lines[#lines + 1] = "This chunk was loaded from a string, not a file: breakpoints never apply to it."
    return table.concat(lines, "\n")
  end
  local key = paths.key(source)
  lines[#lines + 1] = "source (debug.getinfo): " .. source
  lines[#lines + 1] = "breakpoint key:         " .. key .. (cfg.autoPathMode and "   (autoPathMode: the file name)" or "   (exact mode: the full path)")
  lines[#lines + 1] = "chunk path:             " .. paths.chunkPath(source)
  lines[#lines + 1] = "settings: autoPathMode=" .. tostring(cfg.autoPathMode) .. " caseSensitive=" .. tostring(cfg.caseSensitive)
    .. " luaFileExtension=\"" .. tostring(cfg.luaFileExtension) .. "\" cwd=\"" .. tostring(cfg.cwd)
    .. "\" distinguishSameNameFile=" .. tostring(cfg.distinguishSameNameFile)
  local applied = {}
  for _, entry in ipairs(breakpoints.filesFor(source) or {}) do applied[entry.path] = true end
  local group = breakpoints.all()[key]
  if not group then
    lines[#lines + 1] = "No breakpoint is stored under \"" .. key .. "\". Breakpoints the IDE sent:"
    local all = breakpoints.describe()
    if #all == 0 then lines[#lines + 1] = "  (none)" end
    for _, l in ipairs(all) do lines[#lines + 1] = "  " .. l end
    lines[#lines + 1] = "If one of them is this file, its key differs from \"" .. key .. "\": check cwd, "
      .. "luaFileExtension and pathCaseSensitivity, or use autoPathMode."
    return table.concat(lines, "\n")
  end
  lines[#lines + 1] = "Breakpoints stored under \"" .. key .. "\":"
  for full, entry in pairs(group) do
    local ls = {}
    for line in pairs(entry.lines) do ls[#ls + 1] = line end
    table.sort(ls)
    lines[#lines + 1] = "  " .. full .. ": lines " .. table.concat(ls, ", ")
      .. (applied[full] and "   <- applies to this chunk" or "   (a same-name file elsewhere; not applied here)")
  end
  return table.concat(lines, "\n")
end

--- Runs a Lua file under the debugger so that uncaught errors stop before the program dies.
function M.runFile(path, ...) return exceptions.runFile(path, ...) end

--- For the IDE's launcher, which reads the program's stdout: debug-console lines (logpoints) go
--- into stdout after `marker`, ended by a NUL, in order with the program's output.
function M.consoleThroughStdout(marker) require("luapanda.consolepipe").enable(marker) end

--- Sends text to the IDE: kind 0 output channel, 1 tip, 2 debug console.
function M.printToVSCode(message, level, kind)
  if not session.isConnected() then return false end
  session.log(tostring(message), tonumber(level) or 0, tonumber(kind) or 0)
  return true
end

function M.getBaseInfo()
  local mode, host, port = session.target()
  return "LuaPanda MCP runtime " .. session.RUNTIME_VERSION .. " (protocol " .. session.VERSION .. ") | "
    .. compat.luaVersion .. " | connected: " .. tostring(session.isConnected())
    .. " | mode: " .. tostring(mode) .. " " .. tostring(host) .. ":" .. tostring(port)
end

function M.getInfo()
  local lines = { M.getBaseInfo() }
  local state = hook.state()
  lines[#lines + 1] = "hook: enabled=" .. tostring(state.enabled) .. " breakpointsActive=" .. tostring(state.bpMode)
    .. " slow=" .. tostring(state.slow) .. " inside=" .. tostring(hook.isInside()) .. " jitForcedOff=" .. tostring(compat.jitIsForcedOff())
  lines[#lines + 1] = "line filter: allowed=" .. tostring(state.linesAllowed) .. " threads went to calls "
    .. state.toCalls .. " times, to lines " .. state.toLines .. " times (hookStrategy="
    .. tostring(session.settings.hookStrategy)
    .. (session.settings.hookStrategy ~= state.strategy and ", not auto, calls or lines: " .. state.strategy or "")
    .. ")"
  lines[#lines + 1] = "thread hook: " .. hook.describeCurrent()
  lines[#lines + 1] = native.describe()
  lines[#lines + 1] = require("luapanda.idlepoll").describe()
  lines[#lines + 1] = "breakpoints: " .. breakpoints.count()
  for _, l in ipairs(breakpoints.describe()) do lines[#lines + 1] = "  " .. l end
  -- The bundle compiles some modules on first use; asking one to describe itself would compile it.
  local bundled, lazy = pcall(require, "luapanda.lazy")
  bundled = bundled and type(lazy) == "table"
  if not bundled or lazy.compiled("luapanda.fnbreakpoints") then
    for _, l in ipairs(require("luapanda.fnbreakpoints").describe()) do lines[#lines + 1] = "  function " .. l end
  end
  if bundled then
    local compiled = {}
    for _, name in ipairs(lazy.names) do
      if lazy.compiled(name) then compiled[#compiled + 1] = string.sub(name, 10) end
    end
    lines[#lines + 1] = "compiled on first use: " .. (#compiled > 0 and table.concat(compiled, ", ") or "none yet")
      .. " (of " .. #lazy.names .. ")"
  end
  local cfg = paths.config()
  lines[#lines + 1] = "paths: autoPathMode=" .. tostring(cfg.autoPathMode) .. " caseSensitive=" .. tostring(cfg.caseSensitive)
    .. " luaFileExtension=" .. tostring(cfg.luaFileExtension) .. " cwd=" .. tostring(cfg.cwd)
  lines[#lines + 1] = "recent log:"
  for _, l in ipairs(session.logLines) do lines[#lines + 1] = "  " .. l end
  return table.concat(lines, "\n")
end

function M.doctor()
  local lines = { M.getBaseInfo() }
  local usable, why = transport.available(session.settings.customGetSocketInstance)
  lines[#lines + 1] = usable and "socket: found" or ("socket: NOT found (" .. tostring(why)
    .. "; install luasocket or set LuaPanda.customGetSocketInstance)")
  lines[#lines + 1] = compat.canCompile and "load/loadstring: available (watch and conditions work)" or "load/loadstring: missing"
  lines[#lines + 1] = exceptions.hasHostHandler()
    and "uncaught errors: every one stops, runtime errors included (the interpreter's message handler is taken over)"
    or ("uncaught errors: stop under LuaPanda.runFile, when they end a coroutine, and as the next"
      .. " line says (no interpreter message handler taken over: "
      .. tostring(exceptions.hostHandlerProblem()) .. ")")
  if not exceptions.hasHostHandler() then
    lines[#lines + 1] = "errors only the engine catches: "
      .. (exceptions.engineErrors() or "decided when an IDE attaches with the uncaught filter on")
  end
  lines[#lines + 1] = "upstream C hook library (libpdebug): not used"
  lines[#lines + 1] = native.describe()
  lines[#lines + 1] = require("luapanda.idlepoll").describe()
  local info = debug.getinfo(1, "S")
  lines[#lines + 1] = "runtime source: " .. tostring(info.source)
  return table.concat(lines, "\n")
end

--- Pretty-prints a table (upstream helper).
function M.serializeTable(t, name)
  local out, seen = {}, {}
  local function walk(v, indent, label)
    if type(v) ~= "table" then
      out[#out + 1] = indent .. label .. " = " .. variables.display(v)
      return
    end
    if seen[v] then out[#out + 1] = indent .. label .. " = <cycle>" return end
    seen[v] = true
    out[#out + 1] = indent .. label .. " = {"
    for k, x in pairs(v) do walk(x, indent .. "  ", tostring(k)) end
    out[#out + 1] = indent .. "}"
  end
  walk(t, "", name or "table")
  return table.concat(out, "\n")
end

M.settings = session.settings
setmetatable(M, {
  __newindex = function(t, k, v)
    if k == "customGetSocketInstance" then session.settings.customGetSocketInstance = v return end
    rawset(t, k, v)
  end,
  __index = function(_, k)
    if k == "customGetSocketInstance" then return session.settings.customGetSocketInstance end
    if k == "curStackId" then return nil end
  end,
})

rawset(_G, "LuaPanda", M)
return M
