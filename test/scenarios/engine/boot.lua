-- The boot script of a small engine game, run once by the test engine host (test/hosts/engine.c,
-- built per interpreter into out/hosts/): the host then calls Update(dt) from C every frame under
-- lua_pcall with its own message handler, and resumes the coroutines of Jobs with lua_resume.
-- With a port as its first argument it starts the debugger itself, as a game's boot script does.
local port = ...
if port then require("LuaPanda").start("127.0.0.1", tonumber(port)) end

-- Loaded by the host's searcher from its script root, named by the root-relative path.
local player = require("game.player")

local frame = 0
-- The frame whose Update raises an error no Lua code catches: only the host's lua_pcall does.
local ERROR_FRAME = 4
-- The frame whose Update raises errors that Lua code catches itself.
local HANDLED_FRAME = 2

function Update(dt)
  frame = frame + 1
  local before = player.x
  player:move(dt) -- @update
  local trail = { frame = frame, x = player.x, tag = "f" .. frame }
  print(string.format("frame %d: player at %.2f (was %.2f) %s", frame, player.x, before, trail.tag))
  if frame == HANDLED_FRAME then
    -- Errors Lua code handles: only the "caught" filter stops on them, never "uncaught".
    pcall(player.hit, player, nil)
    xpcall(function() return player:hit(nil) end, debug.traceback)
  end
  -- (A debugger session that attached later sets the global RaiseNow to raise it once more.)
  if frame == ERROR_FRAME or RaiseNow then
    RaiseNow = nil
    player:hit(nil) -- @planted
  end
end

local function job(dt)
  local ticks = 0
  local travelled = 0
  while true do
    ticks = ticks + 1
    travelled = travelled + dt
    print(string.format("job tick %d (%.2f s)", ticks, travelled)) -- @jobTick
    dt = coroutine.yield(ticks)
  end
end

-- The message handler an engine such as Cocos2d-x calls Update under (the host's --handler lua).
function __G__TRACKBACK__(message)
  return debug.traceback(tostring(message), 2)
end

-- Created by Lua before the first frame, resumed from C every frame.
Jobs = { coroutine.create(job) }
print("boot done: player " .. player.name .. " from " .. debug.getinfo(player.move, "S").source)
