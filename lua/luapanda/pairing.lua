-- pairing.lua: the pairing secret of a link that leaves the machine (Docs/Protocol_Extensions.md,
-- "Pairing"). The secret comes from start()/startServer()'s `secret` option, else from the
-- environment variable LUAPANDA_SECRET. With a secret, initSuccess is a challenge-response: each
-- side sends a fresh nonce and proves HMAC-SHA256(secret, "luapanda-pair-v1|" .. role .. "|" ..
-- ideNonce .. "|" .. runtimeNonce); the secret never crosses the wire, and a captured handshake
-- fails against the next nonce. Until the IDE has proved it, the runtime applies nothing.
local sha256 = require("luapanda.sha256")

local M = {}

M.ENV = "LUAPANDA_SECRET"
local PREFIX = "luapanda-pair-v1|"

local secret = nil
local insecure = false
-- This link's exchange: the IDE's nonce and ours, once we answered its first initSuccess.
local ideNonce, runtimeNonce = nil, nil
local counter = 0

--- Takes the options of start()/startServer(): `secret` (a non-empty string), else the
--- environment's LUAPANDA_SECRET; `insecure` lets a game listen beyond loopback without one.
function M.configure(options)
  local given = type(options) == "table" and options.secret or nil
  if given == nil then
    local getenv = os and os.getenv
    given = getenv and getenv(M.ENV) or nil
  end
  secret = (type(given) == "string" and given ~= "") and given or nil
  insecure = type(options) == "table" and options.insecure == true
end

--- Whether the IDE must prove the secret.
function M.required() return secret ~= nil end
function M.isInsecure() return insecure end

--- A new link: no exchange yet.
function M.reset() ideNonce, runtimeNonce = nil, nil end

--- 16 unpredictable bytes as hex: the system's random source where there is one, mixed with
--- clocks, addresses and a counter (never math.random: the program's sequence is its own).
function M.nonce()
  counter = counter + 1
  local seed = ""
  local open = io and io.open
  local file = open and open("/dev/urandom", "rb")
  if file then
    seed = file:read(32) or ""
    file:close()
  end
  seed = seed .. tostring(os.time()) .. tostring(os.clock()) .. tostring({}) .. tostring(counter)
    .. tostring(collectgarbage("count"))
  return string.sub(sha256.hex(sha256.digest(seed)), 1, 32)
end

local function proof(role, ide, runtime)
  return sha256.hex(sha256.hmac(secret, PREFIX .. role .. "|" .. ide .. "|" .. runtime))
end

-- Compares every byte, so the time taken says nothing about where a wrong proof differs.
local function same(a, b)
  if type(a) ~= "string" or #a ~= #b then return false end
  local diff = 0
  for i = 1, #b do
    if string.byte(a, i) ~= string.byte(b, i) then diff = diff + 1 end
  end
  return diff == 0
end

local function isNonce(v)
  return type(v) == "string" and #v >= 16 and #v <= 128 and not string.find(v, "[^%w]")
end

local REQUIRED = "this game requires a pairing secret: set \"connectionSecret\" in the launch"
  .. " configuration to the secret the game was given (LuaPanda.start/startServer's"
  .. " { secret = ... }, or the environment variable " .. M.ENV .. ")"

--- The IDE's initSuccess under a secret. Returns one of:
---   "pass"                   no secret: the handshake goes on as upstream's
---   "challenge", replyInfo   the IDE's first frame: answer with our nonce, apply nothing
---   "paired", proofField     the IDE proved the secret: apply, and add our proof to the reply
---   "refuse", reason         anything else
function M.check(info)
  if not secret then return "pass" end
  local nonce, given = info.pairNonce, info.pairProof
  if not isNonce(nonce) then return "refuse", REQUIRED end
  if given == nil then
    if runtimeNonce then return "refuse", "pairing refused: a second challenge on one connection" end
    ideNonce, runtimeNonce = nonce, M.nonce()
    return "challenge", { pairing = "challenge", pairNonce = runtimeNonce }
  end
  if not runtimeNonce or nonce ~= ideNonce then
    return "refuse", "pairing refused: the proof answers no challenge of this connection (a replayed handshake?)"
  end
  local expected = proof("ide", ideNonce, runtimeNonce)
  local ours = proof("runtime", ideNonce, runtimeNonce)
  -- One answer per challenge: a second try on this link needs a new connection.
  runtimeNonce = nil
  if not same(given, expected) then
    return "refuse", "pairing refused: wrong secret (\"connectionSecret\" differs from the game's secret)"
  end
  return "paired", ours
end

return M
