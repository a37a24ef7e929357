-- threadscan.lua: finds the coroutines that existed before the IDE attached. PUC Lua keeps a
-- debug hook per thread, and a new thread copies its creator's: a coroutine created while no IDE
-- was attached has none, and when an engine resumes it from C (lua_resume, or a coroutine.wrap
-- function made back then) no wrapper of ours sees it, so its breakpoints would never stop. At
-- attach the runtime looks for every thread reachable from the registry (where engines keep their
-- references), the globals and the stacks of the threads it finds, and gives each its hook.
-- LuaJIT needs none of this: its one hook covers every thread. The walk reads, never writes:
-- raw accesses only, no metamethod runs; it is bounded, and says when it stopped early.
local compat = require("luapanda.compat")

local M = {}

local getinfo, getlocal, dgetupvalue = debug.getinfo, debug.getlocal, debug.getupvalue
local dgetmetatable, getregistry = debug.getmetatable, debug.getregistry
local getuservalue = debug.getuservalue
local getfenv = debug.getfenv -- (5.1: the environment of a function or a userdata)
local next, type = next, type
local status = coroutine.status

-- Objects (tables, functions, userdata, threads) visited at most: about a second of walking on a
-- machine of ours (a game-sized heap of small tables is some 500,000 of them).
M.LIMIT = 2000000

--- Every coroutine (suspended, or resuming another) reachable from the registry, the globals and
--- the running thread's stack, except `skip(thread)` ones (not the main thread, nor the running
--- one); and whether the walk ended early (the object limit). `upvalueOf`: a debug.getupvalue
--- that reads C functions too (the native module's; Lua 5.1's own refuses them). `isOwnSource`:
--- whether a function's source is the runtime's — its closures hold the debugger's state (its
--- private coroutines among it), not the program's, and are not walked into.
function M.find(skip, upvalueOf, isOwnSource)
  local getupvalue = upvalueOf or dgetupvalue
  local seen = {}
  local stack, top = {}, 0
  local visited = 0
  local found = {}
  local function push(v)
    local t = type(v)
    if (t == "table" or t == "function" or t == "userdata" or t == "thread") and not seen[v] then
      seen[v] = true
      top = top + 1
      stack[top] = v
    end
  end
  local function pushFrames(thread)
    local level = 0
    while true do
      local info
      if thread then info = getinfo(thread, level, "f") else info = getinfo(level, "f") end
      if not info then break end
      push(info.func)
      local i = 1
      while true do
        local name, value
        if thread then name, value = getlocal(thread, level, i) else name, value = getlocal(level, i) end
        if name == nil then break end
        push(value)
        i = i + 1
      end
      level = level + 1
    end
  end
  seen[found] = true
  seen[stack] = true
  seen[seen] = true
  local registry = getregistry and getregistry()
  -- (5.2+: the main thread sits in the registry; it has its hook already.)
  local main = type(registry) == "table" and type(rawget(registry, 1)) == "thread" and rawget(registry, 1) or nil
  push(registry)
  push(_G)
  pushFrames(nil)
  while top > 0 do
    local v = stack[top]
    stack[top] = nil
    top = top - 1
    visited = visited + 1
    if visited > M.LIMIT then return found, true end
    local t = type(v)
    if t == "table" then
      push(dgetmetatable(v))
      local k, value = next(v)
      while k ~= nil do
        push(k)
        push(value)
        k, value = next(v, k)
      end
    elseif t == "function" then
      if not (isOwnSource and isOwnSource(getinfo(v, "S").source)) then
        local i = 1
        while true do
          local name, value = getupvalue(v, i)
          if name == nil then break end
          push(value)
          i = i + 1
        end
        if getfenv then push(getfenv(v)) end
      end
    elseif t == "userdata" then
      push(dgetmetatable(v))
      if getuservalue then
        local ok, value = pcall(getuservalue, v)
        if ok then push(value) end
      elseif getfenv then
        local ok, env = pcall(getfenv, v)
        if ok then push(env) end
      end
    else -- a thread
      local state = status(v)
      if v ~= main and (state == "suspended" or state == "normal") and not (skip and skip(v)) then
        found[#found + 1] = v
      end
      pushFrames(v)
    end
  end
  return found, false
end

--- Whether this interpreter needs the walk (per-thread hooks).
M.needed = not compat.isJIT

return M
