-- The runtime's SHA-256 and HMAC-SHA256 (lua/luapanda/sha256.lua) on the standard's test
-- vectors: FIPS 180-4's examples and RFC 4231's HMAC cases. Prints "name hex" lines; the test
-- (test/runtime/pairing.test.ts) compares them with the published values.
local sha = require("luapanda.sha256")
local function out(name, bytes) io.write(name, " ", sha.hex(bytes), "\n") end
print("implementation " .. sha.implementation)
out("empty", sha.digest(""))
out("abc", sha.digest("abc"))
out("448", sha.digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
out("896", sha.digest("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"))
out("55", sha.digest(string.rep("a", 55)))
out("56", sha.digest(string.rep("a", 56)))
out("64", sha.digest(string.rep("a", 64)))
if arg and arg[1] == "million" then out("million", sha.digest(string.rep("a", 1000000))) end
local r = string.rep
local key4 = ""
for i = 1, 25 do key4 = key4 .. string.char(i) end
out("hmac1", sha.hmac(r("\11", 20), "Hi There"))
out("hmac2", sha.hmac("Jefe", "what do ya want for nothing?"))
out("hmac3", sha.hmac(r("\170", 20), r("\221", 50)))
out("hmac4", sha.hmac(key4, r("\205", 50)))
out("hmac5", string.sub(sha.hmac(r("\12", 20), "Test With Truncation"), 1, 16))
out("hmac6", sha.hmac(r("\170", 131), "Test Using Larger Than Block-Size Key - Hash Key First"))
out("hmac7", sha.hmac(r("\170", 131), "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."))
