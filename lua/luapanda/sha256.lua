-- sha256.lua: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in pure Lua, for the pairing
-- handshake (pairing.lua). The 32-bit operations are chosen once at load, as each interpreter
-- offers them: integer operators on 5.3/5.4 (compiled from text, which 5.1's parser never sees),
-- bit32 on 5.2, the bit library on LuaJIT, and arithmetic on nibbles on 5.1. Words are numbers in
-- [0, 2^32) everywhere; additions wrap with % 2^32, exact in doubles and in 64-bit integers.
local M = {}

local byte, char, format, concat, rep = string.byte, string.char, string.format, table.concat, string.rep
local floor = math.floor

local MOD = 4294967296

-- Each set: band, bxor, bnot, rshift (logical), rrot (rotate right), for words in [0, 2^32).
local function integerOps()
  if not (math.type and load) then return nil end
  local chunk = load([[
    local M = 0xFFFFFFFF
    return {
      name = "integer",
      band = function(a, b) return a & b end,
      bxor = function(a, b) return a ~ b end,
      bnot = function(a) return ~a & M end,
      rshift = function(a, n) return a >> n end,
      rrot = function(a, n) return ((a >> n) | (a << (32 - n))) & M end,
    }]], "=luapanda.sha256.integer", "t")
  if not chunk then return nil end
  local ok, ops = pcall(chunk)
  return ok and ops or nil
end

local function bit32Ops()
  local b = rawget(_G, "bit32")
  if type(b) ~= "table" then return nil end
  return { name = "bit32", band = b.band, bxor = b.bxor, bnot = b.bnot, rshift = b.rshift, rrot = b.rrotate }
end

local function bitOps()
  local b = rawget(_G, "bit")
  if type(b) ~= "table" and type(package) == "table" and type(package.loaded) == "table" then b = package.loaded.bit end
  if type(b) ~= "table" or type(b.ror) ~= "function" then return nil end
  -- The bit library answers signed 32-bit numbers: back to [0, 2^32).
  local band, bxor, bnot, rshift, ror = b.band, b.bxor, b.bnot, b.rshift, b.ror
  return {
    name = "bit",
    band = function(x, y) return band(x, y) % MOD end,
    bxor = function(x, y) return bxor(x, y) % MOD end,
    bnot = function(x) return bnot(x) % MOD end,
    rshift = function(x, n) return rshift(x, n) % MOD end,
    rrot = function(x, n) return ror(x, n) % MOD end,
  }
end

local function arithmeticOps()
  -- Tables of the 4-bit results, index x * 16 + y + 1.
  local AND, XOR = {}, {}
  for x = 0, 15 do
    for y = 0, 15 do
      local a, c, p, xx, yy = 0, 0, 1, x, y
      for _ = 1, 4 do
        local bx, by = xx % 2, yy % 2
        if bx == 1 and by == 1 then a = a + p end
        if bx ~= by then c = c + p end
        xx, yy, p = (xx - bx) / 2, (yy - by) / 2, p * 2
      end
      AND[x * 16 + y + 1], XOR[x * 16 + y + 1] = a, c
    end
  end
  local function op(t, x, y)
    local r, p = 0, 1
    for _ = 1, 8 do
      local a, b = x % 16, y % 16
      r = r + t[a * 16 + b + 1] * p
      x, y, p = (x - a) / 16, (y - b) / 16, p * 16
    end
    return r
  end
  return {
    name = "arithmetic",
    band = function(x, y) return op(AND, x, y) end,
    bxor = function(x, y) return op(XOR, x, y) end,
    bnot = function(x) return MOD - 1 - x end,
    rshift = function(x, n) return floor(x / 2 ^ n) end,
    rrot = function(x, n)
      local low = x % 2 ^ n
      return (x - low) / 2 ^ n + low * 2 ^ (32 - n)
    end,
  }
end

local ops = integerOps() or bit32Ops() or bitOps() or arithmeticOps()
local band, bxor, bnot, rshift, rrot = ops.band, ops.bxor, ops.bnot, ops.rshift, ops.rrot

--- Which 32-bit operations this interpreter uses ("integer", "bit32", "bit", "arithmetic").
M.implementation = ops.name

local K = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

local function compress(H, block, at, w)
  for i = 1, 16 do
    local b1, b2, b3, b4 = byte(block, at + i * 4 - 4, at + i * 4 - 1)
    w[i] = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  end
  for i = 17, 64 do
    local x, y = w[i - 15], w[i - 2]
    local s0 = bxor(bxor(rrot(x, 7), rrot(x, 18)), rshift(x, 3))
    local s1 = bxor(bxor(rrot(y, 17), rrot(y, 19)), rshift(y, 10))
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) % MOD
  end
  local a, b, c, d, e, f, g, h = H[1], H[2], H[3], H[4], H[5], H[6], H[7], H[8]
  for i = 1, 64 do
    local S1 = bxor(bxor(rrot(e, 6), rrot(e, 11)), rrot(e, 25))
    local ch = bxor(band(e, f), band(bnot(e), g))
    local t1 = (h + S1 + ch + K[i] + w[i]) % MOD
    local S0 = bxor(bxor(rrot(a, 2), rrot(a, 13)), rrot(a, 22))
    local maj = bxor(bxor(band(a, b), band(a, c)), band(b, c))
    local t2 = (S0 + maj) % MOD
    h, g, f, e, d, c, b, a = g, f, e, (d + t1) % MOD, c, b, a, (t1 + t2) % MOD
  end
  H[1], H[2], H[3], H[4] = (H[1] + a) % MOD, (H[2] + b) % MOD, (H[3] + c) % MOD, (H[4] + d) % MOD
  H[5], H[6], H[7], H[8] = (H[5] + e) % MOD, (H[6] + f) % MOD, (H[7] + g) % MOD, (H[8] + h) % MOD
end

--- The SHA-256 digest of `message` (a string of bytes), as 32 raw bytes.
function M.digest(message)
  local length = #message
  -- Padding: 0x80, zeros to 56 mod 64, the length in bits as 8 bytes big-endian.
  local zeros = (55 - length) % 64
  local bits, lengthBytes = length * 8, {}
  for i = 8, 1, -1 do
    local b = bits % 256
    lengthBytes[i] = char(b)
    bits = (bits - b) / 256
  end
  local padded = message .. "\128" .. rep("\0", zeros) .. concat(lengthBytes)
  local H = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
  local w = {}
  for at = 1, #padded, 64 do compress(H, padded, at, w) end
  local out = {}
  for i = 1, 8 do
    local x = H[i]
    local b4 = x % 256
    x = (x - b4) / 256
    local b3 = x % 256
    x = (x - b3) / 256
    local b2 = x % 256
    out[i] = char((x - b2) / 256, b2, b3, b4)
  end
  return concat(out)
end

--- Raw bytes as lower-case hexadecimal.
function M.hex(bytes)
  local out = {}
  for i = 1, #bytes do out[i] = format("%02x", byte(bytes, i)) end
  return concat(out)
end

local function xorPad(key, value)
  local out = {}
  for i = 1, 64 do out[i] = char(bxor(byte(key, i), value)) end
  return concat(out)
end

--- HMAC-SHA256 of `message` under `key` (RFC 2104), as 32 raw bytes.
function M.hmac(key, message)
  if #key > 64 then key = M.digest(key) end
  key = key .. rep("\0", 64 - #key)
  return M.digest(xorPad(key, 0x5c) .. M.digest(xorPad(key, 0x36) .. message))
end

return M
