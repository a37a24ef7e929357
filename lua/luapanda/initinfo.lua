-- initinfo.lua: the two halves of the initSuccess exchange that are data: the type each of the
-- IDE's fields may have (checked before any is used), and what the runtime tells about itself —
-- versions and features from the contract (src/protocol/contract.ts), the program and process.
local compat = require("luapanda.compat")
local contract = require("luapanda.contract")

local M = {}

M.VERSION = contract.PROTOCOL_VERSION -- upstream protocol version we speak
M.RUNTIME_VERSION = contract.RUNTIME_VERSION
M.FEATURES = contract.RUNTIME_FEATURES

--- The features this connection has: M.FEATURES, and "jitCompiles" when LuaJIT's compiler stays
--- on while attached (compiled code runs no hook: a pause takes effect when it leaves compiled
--- code, and the IDE says so when one waits).
local function features(settings)
  if not compat.isJIT or settings.jitOffWhileAttached then return M.FEATURES end
  local list = {}
  for i, name in ipairs(M.FEATURES) do list[i] = name end
  list[#list + 1] = contract.FEATURES.jitCompiles
  return list
end

-- The type each initSuccess field may have on the wire (flags and numbers come as strings from
-- upstream IDEs, as booleans and numbers from others); a field of another type is refused.
local FLAG, TEXT, NUMBER = { string = true, boolean = true }, { string = true }, { string = true, number = true }
local INIT_FIELDS = {
  stopOnEntry = FLAG, isNeedB64EncodeStr = FLAG, pathCaseSensitivity = FLAG, autoPathMode = FLAG,
  distinguishSameNameFile = FLAG, waitConfigurationDone = FLAG, useCHook = FLAG, DevelopmentMode = FLAG,
  DistinguishSameNameFile = FLAG,
  luaFileExtension = TEXT, cwd = TEXT, truncatedOPath = TEXT, TruncatedOPath = TEXT, OSType = TEXT,
  adapterVersion = TEXT, TempFilePath = TEXT, clibPath = TEXT,
  logLevel = NUMBER, pagingLimit = NUMBER, trace = FLAG,
}

--- The first field of `info` with a type it may not have, as a message naming it, or nil.
function M.badField(info)
  local names = {}
  for name in pairs(INIT_FIELDS) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local v = rawget(info, name)
    if v ~= nil and not INIT_FIELDS[name][type(v)] then
      return "initSuccess: field '" .. name .. "' must be a " .. (INIT_FIELDS[name] == FLAG and "boolean or \"true\"/\"false\""
        or INIT_FIELDS[name] == NUMBER and "number or numeric string" or "string") .. " (got " .. type(v) .. ")"
    end
  end
  if rawget(info, "logLevel") ~= nil and not tonumber(info.logLevel) then
    return "initSuccess: field 'logLevel' must be a number (got \"" .. tostring(info.logLevel) .. "\")"
  end
  if rawget(info, "pagingLimit") ~= nil and not tonumber(info.pagingLimit) then
    return "initSuccess: field 'pagingLimit' must be a number (got \"" .. tostring(info.pagingLimit) .. "\")"
  end
end

--- The program's file name (arg[0]), for the IDE to name the game by.
local function programName()
  local args = rawget(_G, "arg")
  local script = type(args) == "table" and args[0]
  if type(script) ~= "string" then return nil end
  return string.match(script, "([^/\\]+)$") or script
end

--- This process's id where the system shows it to Lua (Linux: /proc/self/stat), else nil.
local cachedPid = false
local function processId()
  if cachedPid ~= false then return cachedPid end
  cachedPid = nil
  local ok, file = pcall(io.open, "/proc/self/stat", "r")
  if ok and file then
    local line = file:read("*l")
    file:close()
    cachedPid = tonumber(line and string.match(line, "^(%d+)"))
  end
  return cachedPid
end

--- The runtime's initSuccess reply, for the IDE's `config` (state.lua) and the user's settings.
function M.reply(config, settings, gameName)
  return {
    debuggerVer = M.VERSION,
    UseHookLib = "0",
    UseLoadstring = compat.canCompile and "1" or "0",
    isNeedB64EncodeStr = config.base64 and "true" or "false",
    runtime = contract.RUNTIME_NAME,
    runtimeVersion = M.RUNTIME_VERSION,
    luaVersion = compat.luaVersion,
    features = features(settings),
    gameName = gameName,
    program = programName(),
    processId = processId(),
  }
end

return M
