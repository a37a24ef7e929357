-- native.lua: the optional native accelerator (C sources in native/, one build per Lua C ABI,
-- `luapanda_native51` for Lua 5.1 and LuaJIT, `…52` … `…55`). When `require` finds it on
-- package.cpath, the hook modes run in C (hook.lua drives it through hooknative.lua) and, while
-- connected, a watcher (the kernel's socket signals on Linux, else a thread) notices IDE commands
-- so that an idle program runs with no hook at all. Without it everything works the same in pure
-- Lua, only slower. `LuaPanda.settings.useNative = false` (before start(), or before the next
-- connection) keeps it off.
local compat = require("luapanda.compat")
local contract = require("luapanda.contract")
local hook = require("luapanda.hook")
local hooknative = require("luapanda.hooknative")
local quietload = require("luapanda.quietload")
local events = require("luapanda.events")
local patches = require("luapanda.patches")

local M = {}

local API_VERSION = contract.NATIVE.apiVersion -- the interface of native/module.c this runtime speaks
local major, minor = string.match(_VERSION, "(%d+)%.(%d+)")
M.moduleName = "luapanda_native" .. (compat.isJIT and "51" or (tostring(major) .. tostring(minor)))

local mod = nil                -- the installed module
local reason = "not loaded yet (start() loads it)"
local watchProblem = nil       -- why the watcher is not running while connected, if it is not

-- The C hook remembers functions known to hold no breakpoint: forgotten when the verdicts are.
events.on("verdicts", function()
  if mod then mod.forget() end
end)

local function firstLine(text)
  return (string.match(string.gsub(tostring(text), "^%s+", ""), "^[^\n]*"))
end

--- Loads and installs the module once; returns whether it is in use.
function M.load(settings)
  if mod then return true end
  if settings.useNative == false then
    reason = "off (LuaPanda.settings.useNative = false)"
    return false
  end
  -- Loaded without a package.loaded entry: the program's view of its modules stays as it was.
  local loaded, err = quietload.load(M.moduleName)
  local ok = loaded ~= nil
  if not ok then loaded = err end
  if not ok then
    reason = M.moduleName .. " not found on package.cpath (" .. string.sub(firstLine(loaded), 1, 120) .. ")"
    return false
  end
  if type(loaded) ~= "table" or loaded.apiVersion ~= API_VERSION then
    reason = M.moduleName .. " has another interface version (" .. tostring(type(loaded) == "table"
      and loaded.apiVersion) .. ", this runtime needs " .. API_VERSION .. "): rebuild or copy the matching build"
    return false
  end
  local okInstall, installed, why = pcall(loaded.install, hooknative.nativeCallbacks())
  if not okInstall or not installed then
    reason = M.moduleName .. " could not be installed: " .. tostring(okInstall and why or installed)
    return false
  end
  mod = loaded
  reason = nil
  if type(loaded.cfunction) == "function" then patches.setCFunctionMaker(loaded.cfunction) end
  return true
end

--- The installed module, whether or not the hook uses it on this connection (nil if none).
function M.module() return mod end

--- A new connection: use the module (and its watcher on the link's socket) unless switched off.
function M.attach(link, settings)
  if not mod then hooknative.useNative(nil, false) return end
  if settings.useNative == false then
    reason = "off (LuaPanda.settings.useNative = false)"
    hooknative.useNative(nil, false)
    return
  end
  reason = nil
  local fd = link.fd and link:fd()
  local ok, why = false, "the socket has no descriptor (custom socket): IDE commands are polled by count hook"
  if fd then ok, why = mod.watch(fd) end
  watchProblem = (not ok) and tostring(why) or nil
  hooknative.useNative(mod, ok and true or false)
  -- The watcher must let go of the descriptor before the socket closes it.
  link.beforeClose = M.detach
end

-- The wake timer's period while unattached (ms), or nil when it is not running; why it could not
-- start, if it could not.
local wakingMs, wakeProblem = nil, nil

--- While no IDE is attached: a poll every `seconds` (the native wake timer), so that the program
--- tries to attach on time however little it allocates. False when it cannot run here.
function M.wake(seconds)
  if not mod then return false end
  local ms = math.max(1, math.floor(seconds * 1000 + 0.5))
  if wakingMs == ms then return true end
  local ok, why = mod.wake(ms)
  wakingMs = ok and ms or nil
  wakeProblem = (not ok) and tostring(why) or nil
  return ok and true or false
end

--- Ends the wake timer (an IDE attached, or stopAttach()).
function M.unwake()
  if mod and wakingMs then mod.unwake() end
  wakingMs = nil
end

--- The connection ends (before its socket closes).
function M.detach()
  if mod then
    mod.unwatch()
    hooknative.useNative(hook.state().native and mod or nil, false)
  end
end

--- One line for LuaPanda.getInfo() and doctor().
function M.describe()
  if not mod then return "native accelerator: not in use: " .. tostring(reason) end
  if reason then return "native accelerator: loaded, not in use: " .. reason end
  local st = mod.status()
  local state = hook.state()
  local parts = { "native accelerator: " .. M.moduleName .. " in use" }
  if state.watching then
    -- "socket signals": the kernel signals on data; "thread": a watcher thread does.
    parts[#parts + 1] = "watcher on (" .. tostring(st.watcher) .. "; no hook while idle)"
  elseif watchProblem then
    parts[#parts + 1] = "watcher off: " .. watchProblem
  elseif wakingMs and st.waking then
    parts[#parts + 1] = string.format("watcher off (not connected; wake timer every %d ms: %d signals)",
      wakingMs, st.wakeSignals or 0)
  elseif wakeProblem then
    parts[#parts + 1] = "watcher off (not connected); no wake timer: " .. wakeProblem
  else
    parts[#parts + 1] = "watcher off (not connected)"
  end
  parts[#parts + 1] = string.format("signals %d, polls %d, verdicts %d, hits %d, callback errors %d",
    st.signals or 0, st.polls or 0, st.verdictCalls or 0, st.hits or 0, st.callbackErrors or 0)
  parts[#parts + 1] = string.format("resumes in C %d, in Lua %d; calls read %s", st.resumesInC or 0,
    st.resumesInLua or 0, tostring(st.callReads))
  return table.concat(parts, "; ")
end

--- How many of the C hook's calls into the runtime failed (no C stack left near its limit).
function M.callbackErrors()
  if not mod then return 0 end
  local ok, st = pcall(mod.status)
  return ok and type(st) == "table" and tonumber(st.callbackErrors) or 0
end

return M
