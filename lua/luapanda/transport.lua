-- transport.lua: one TCP link to the IDE over luasocket (or an engine's own socket through
-- `customGetSocketInstance`). Sends whole frames `<json>|*|\n` with TCP_NODELAY, reads lines
-- blocking or non-blocking without ever losing a partial line, and splits a line that carries
-- several frames. Any socket error closes the link; the caller sees `nil, "closed"`.
local M = {}
M.__index = M

local DELIMITER = "|*|"

local quietload = require("luapanda.quietload")

local socketCore, socketProblem = nil, nil

--- luasocket's core table, loaded once (without a package.loaded entry: quietload.lua), or nil
--- and why it cannot be loaded.
function M.loadSocket()
  if socketCore then return socketCore end
  if socketProblem then return nil, socketProblem end
  local core, err = quietload.load("socket.core")
  if type(core) == "table" and type(core.tcp) == "function" then
    socketCore = core
    return core
  end
  socketProblem = core ~= nil and "socket.core has no tcp()" or tostring(err)
  return nil, socketProblem
end

--- The socket library's core table if it is loaded (for gettime), or nil.
function M.socketCore() return socketCore end

--- A fresh TCP object: the custom hook first, then slua-unreal's, then luasocket (`ipv4`: its
--- IPv4 socket, made at once, so that options set before bind take effect).
function M.newTcp(customGetSocketInstance, ipv4)
  if type(customGetSocketInstance) == "function" then
    local ok, sock = pcall(customGetSocketInstance)
    if ok and sock then return sock end
  end
  local ext = rawget(_G, "lua_extension")
  if type(ext) == "table" and type(rawget(ext, "luasocket")) == "function" then
    local ok, lib = pcall(ext.luasocket)
    if ok and type(lib) == "table" and lib.tcp then return lib.tcp() end
  end
  local core, err = M.loadSocket()
  if core then
    if ipv4 and type(core.tcp4) == "function" then return core.tcp4() end
    return core.tcp()
  end
  return nil, "no socket library: " .. tostring(err)
end

--- Whether some socket library is at hand (a custom one, slua-unreal's, or luasocket), or nil
--- and why not.
function M.available(customGetSocketInstance)
  if type(customGetSocketInstance) == "function" then return true end
  local ext = rawget(_G, "lua_extension")
  if type(ext) == "table" and type(rawget(ext, "luasocket")) == "function" then return true end
  local core, err = M.loadSocket()
  if core then return true end
  return nil, err
end

local function wrap(sock)
  pcall(sock.setoption, sock, "tcp-nodelay", true)
  return setmetatable({ sock = sock, partial = nil, queue = {}, closed = false }, M)
end

--- Connects to host:port, waiting at most `timeout` seconds. Returns a link or nil, message.
function M.connect(host, port, timeout, customGetSocketInstance)
  local sock, err = M.newTcp(customGetSocketInstance)
  if not sock then return nil, err end
  sock:settimeout(timeout)
  local ok, cerr = sock:connect(host, port)
  if not ok then
    pcall(sock.close, sock)
    return nil, tostring(cerr)
  end
  return wrap(sock)
end

--- A listening socket for startServer; `accept` polls it.
function M.listen(host, port, customGetSocketInstance)
  -- luasocket 3's tcp() makes its descriptor only at bind, too late for reuseaddr, without which
  -- the port stays taken for a minute after the game closed a link first (a refused peer).
  local sock, err = M.newTcp(customGetSocketInstance, string.find(host, "^%d+%.%d+%.%d+%.%d+$") ~= nil)
  if not sock then return nil, err end
  pcall(sock.setoption, sock, "reuseaddr", true)
  local ok, berr = sock:bind(host, port)
  if not ok then pcall(sock.close, sock) return nil, tostring(berr) end
  ok, berr = sock:listen(1)
  if not ok then pcall(sock.close, sock) return nil, tostring(berr) end
  return sock
end

function M.accept(server, timeout)
  server:settimeout(timeout)
  local client = server:accept()
  if not client then return nil end
  return wrap(client)
end

function M:close()
  if self.closed then return end
  self.closed = true
  -- Whoever watches the descriptor (the native watcher) lets go before it can be reused.
  if self.beforeClose then pcall(self.beforeClose) end
  pcall(self.sock.close, self.sock)
end

--- The socket's file descriptor (luasocket's getfd), or nil for sockets that have none.
function M:fd()
  if self.closed then return nil end
  local sock = self.sock
  local ok, fd = pcall(function() return sock:getfd() end)
  if ok and type(fd) == "number" and fd >= 0 then return fd end
  return nil
end

--- Sends one frame (the JSON text without delimiter). Returns true or nil, "closed".
function M:send(json)
  if self.closed then return nil, "closed" end
  local data = json .. DELIMITER .. "\n"
  local sock = self.sock
  sock:settimeout(10)
  local i = 1
  while i <= #data do
    local last, err, partialLast = sock:send(data, i)
    if last then
      i = last + 1
    elseif err == "timeout" and partialLast then
      i = partialLast + 1
    else
      self:close()
      return nil, "closed"
    end
  end
  return true
end

local function splitFrames(line, queue)
  -- Strip CR and trailing blanks; the delimiter is checked, not blindly cut.
  line = string.gsub(line, "[\r%s]+$", "")
  local start = 1
  while true do
    local s, e = string.find(line, DELIMITER, start, true)
    if not s then
      local rest = string.sub(line, start)
      if string.find(rest, "%S") then queue[#queue + 1] = rest end
      return
    end
    local piece = string.sub(line, start, s - 1)
    if string.find(piece, "%S") then queue[#queue + 1] = piece end
    start = e + 1
  end
end

--- The next frame's JSON text. `timeout` 0 polls; nil blocks. Returns text, or nil and
--- "timeout" / "closed".
function M:receive(timeout)
  if self.queue[1] then return table.remove(self.queue, 1) end
  if self.closed then return nil, "closed" end
  local sock = self.sock
  while true do
    sock:settimeout(timeout)
    local line, err, partial = sock:receive("*l", self.partial)
    if line then
      self.partial = nil
      splitFrames(line, self.queue)
      if self.queue[1] then return table.remove(self.queue, 1) end
      -- an empty line: keep reading
    elseif err == "timeout" then
      self.partial = (partial and partial ~= "") and partial or nil
      return nil, "timeout"
    else
      self:close()
      return nil, "closed"
    end
  end
end

return M
