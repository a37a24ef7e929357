-- hosthandler.lua: stops on uncaught errors of programs run by the stand-alone interpreters (lua,
-- luajit) without replacing anything the program can see. Their `main` runs the script under a
-- protected call whose message handler, a C function, sits in the C frame below the main chunk.
-- That handler runs for every error that would end the program, before the stack unwinds (runtime
-- errors like `nil + 1` included), so the runtime puts a Lua function of its own in that slot:
-- it stops the program (the stack is intact), then returns exactly what the interpreter's handler
-- returns. It does not call the original (its traceback would list our function): it computes the
-- same message the way that version's lua.c/luajit.c does, and before it is adopted, probes show
-- that it answers as the original does for every kind of error object; otherwise it is not used.
local compat = require("luapanda.compat")
local coroutines = require("luapanda.coroutines")

local M = {}

local getinfo, getlocal, setlocal = debug.getinfo, debug.getlocal, debug.setlocal
local traceback, dgetmetatable = debug.traceback, debug.getmetatable
local rawLoad, rawLoadstring = rawget(_G, "load"), rawget(_G, "loadstring")

local original = nil   -- the interpreter's handler, once adopted
local onUncaught = nil -- function(message, handler, thread): the runtime stops here
-- What launch mode's runFile computed where its program raised an error it raises again: the
-- handler answers that error with it (runFile's own frames below the program are not listed).
local precomputed = nil
local probing = false
local problem = "not adopted yet (the program was never attached in its main thread)"

--- The __tostring metamethod's result, as luaL_callmeta gets it (raw metatable field), or nil.
local function callTostring(v)
  local mt = dgetmetatable(v)
  local meta = mt ~= nil and rawget(mt, "__tostring")
  if meta == nil or meta == false then return false end
  return true, meta(v)
end

--- Errors raised while `load` reads its chunk with a reader function reach this handler too
--- (load's protected parser keeps the current handler); load catches them.
function M.caughtByLoad()
  for level = 3, 1000000 do
    local info = getinfo(level, "f")
    if not info then return false end
    local f = info.func
    if f ~= nil and (rawequal(f, rawLoad) or rawequal(f, rawLoadstring)) then return true end
  end
  return false
end

local function report(message)
  if probing or onUncaught == nil then return end
  -- A stack overflow leaves too little room to stop; the program's own message matters more.
  if type(message) == "string" and string.find(message, "stack overflow", 1, true) then return end
  if M.caughtByLoad() then return end
  -- 1 report, 2 the handler, 3 what raised the error (a coroutine.wrap function, maybe)
  pcall(onUncaught, message, M.handler, coroutines.deadWrapThreadAt(3))
end

local ownSource = getinfo(1, "S").short_src

--- What a C frame named like `described` ("local 'w'", "function <f.lua:3>") reads in this
--- version's tracebacks.
local function asCFrame(described)
  if string.sub(described, 1, 10) ~= "function <" then return "in " .. described end
  if compat.isJIT then return "in " .. described end -- (LuaJIT shows an address: none to show)
  if compat.is51 then return "?" end
  return "in ?"
end

--- Whether a traceback line is the C function `error` the runtime called: "function 'error'"
--- up to 5.4 (a global's name first), "upvalue 'error'" from 5.5 (how the call named it).
local function isErrorFrame(line)
  return line ~= nil and string.match(line, "^\n\t%[C%]: in %a+ 'error'$") ~= nil
end

--- The traceback as the program would get it without the runtime: coroutine.wrap's error, raised
--- again by the runtime's wrapper (a Lua function that calls error), reads as the interpreter's
--- C wrap function; any other frame of the runtime is left out.
local function withoutOwnFrames(text)
  -- (While probing, the frames are ours on both sides of the comparison.)
  if type(text) ~= "string" or probing then return text end
  local head, frames = string.match(text, "^(.-\nstack traceback:)(.*)$")
  if not head then return text end
  local kept = {}
  local prefix = "\t" .. ownSource .. ":"
  local lines = {}
  for line in string.gmatch(frames, "\n[^\n]*") do lines[#lines + 1] = line end
  for i, line in ipairs(lines) do
    local body = string.sub(line, 2)
    if string.sub(body, 1, #prefix) == prefix then
      if isErrorFrame(kept[#kept]) then
        local nextLine = lines[i + 1]
        if nextLine and string.sub(nextLine, 1, 7) == "\n\t[C]: " then
          -- Behind a C function of its own (patches.lua): that one is what the program called.
          kept[#kept] = nil
        else
          local described = string.match(body, ":%d+: in (.*)$")
          if described then kept[#kept] = "\n\t[C]: " .. asCFrame(described) end
        end
      end
    else
      kept[#kept + 1] = line
    end
  end
  return head .. table.concat(kept)
end

-- Each handler below is what one interpreter's handler returns, with the traceback taken from
-- the handler's own frame so that it starts where the C handler's does (Lua 5.1 counts the levels
-- it skips from the top, so the call must come from this very frame).

local handlers = {}

--- The answer runFile left for `message`, taken once (see M.answerNext).
local function takePrecomputed(message)
  local p = precomputed
  if p == nil or not rawequal(p.message, message) then return false end
  precomputed = nil
  return true, p.result
end

function handlers.lua51(message)
  local given, answer = takePrecomputed(message)
  if given then return answer end
  report(message)
  local t = type(message)
  if t ~= "string" and t ~= "number" then return message end
  local dbg = _G.debug
  if type(dbg) ~= "table" then return message end
  local tb = dbg.traceback
  if type(tb) ~= "function" then return message end
  return withoutOwnFrames(tb(message, 2))
end

function handlers.lua52(message)
  local given, answer = takePrecomputed(message)
  if given then return answer end
  report(message)
  local t = type(message)
  if t == "string" or t == "number" then return withoutOwnFrames(traceback(message, 2)) end
  if message == nil then return message end
  local has, result = callTostring(message)
  if has then return result end
  return "(no error message)"
end

function handlers.lua53(message)
  local given, answer = takePrecomputed(message)
  if given then return answer end
  report(message)
  local t = type(message)
  if t == "string" or t == "number" then return withoutOwnFrames(traceback(message, 2)) end
  local has, result = callTostring(message)
  if has and type(result) == "string" then return result end
  return withoutOwnFrames(traceback("(error object is a " .. t .. " value)", 2))
end

function handlers.luajit(message)
  local given, answer = takePrecomputed(message)
  if given then return answer end
  report(message)
  local t = type(message)
  if t ~= "string" and t ~= "number" then
    if message == nil then return message end
    local has, result = callTostring(message)
    if not has then return message end
    if type(result) ~= "string" and type(result) ~= "number" then return result end
    message = result
  end
  return withoutOwnFrames(traceback(message, 2))
end

local function pickHandler()
  if compat.isJIT then return handlers.luajit end
  if compat.is51 then return handlers.lua51 end
  if _VERSION == "Lua 5.2" then return handlers.lua52 end
  return handlers.lua53
end
M.handler = pickHandler()

--- What the interpreter's handler returns for `message`, computed from a message handler of the
--- runtime's (the caller) as the interpreter's computes it from its own: the traceback starts at
--- what raised the error (level 3 from here: this function, the caller, the raiser).
function M.messageFor(message)
  local t = type(message)
  if compat.isJIT then
    if t ~= "string" and t ~= "number" then
      if message == nil then return message end
      local has, result = callTostring(message)
      if not has then return message end
      if type(result) ~= "string" and type(result) ~= "number" then return result end
      message = result
    end
    return withoutOwnFrames(traceback(message, 3))
  end
  if compat.is51 then
    if t ~= "string" and t ~= "number" then return message end
    local dbg = _G.debug
    if type(dbg) ~= "table" or type(dbg.traceback) ~= "function" then return message end
    return withoutOwnFrames(dbg.traceback(message, 3))
  end
  if t == "string" or t == "number" then return withoutOwnFrames(traceback(message, 3)) end
  if _VERSION == "Lua 5.2" then
    if message == nil then return message end
    local has, result = callTostring(message)
    if has then return result end
    return "(no error message)"
  end
  local has, result = callTostring(message)
  if has and type(result) == "string" then return result end
  return withoutOwnFrames(traceback("(error object is a " .. t .. " value)", 3))
end

--- Has the handler answer `message`, when it is raised next, with `result` (runFile's message,
--- computed where the program raised it).
function M.answerNext(message, result) precomputed = { message = message, result = result } end

--- Whether our handler answers exactly as `candidate` for every kind of error object.
local function agrees(candidate)
  local objects = {
    "probe", 42, nil, true, {},
    setmetatable({}, { __tostring = function() return "probe object" end }),
    setmetatable({}, { __tostring = function() return 7 end }),
  }
  probing = true
  local ok, same = pcall(function()
    for i = 1, 7 do
      local object = objects[i]
      local a, b = candidate(object), M.handler(object) -- one line: identical tracebacks
      if not rawequal(a, b) then return false end
    end
    return true
  end)
  probing = false
  return ok and same
end

--- Finds the interpreter's handler below the main chunk of the running (main) thread and puts
--- ours in its place. Returns whether our handler is in place.
function M.adopt(onError)
  onUncaught = onError
  return M.claim(nil)
end

--- Puts our handler in the interpreter's slot (as adopt does) without changing what it reports.
--- `caller`: a function accepted in place of the main chunk above the interpreter's C frame
--- (launch mode's runFile, which the `-e` chunk tail-called; Lua 5.1 lists tail calls as levels).
function M.claim(caller)
  if original then return true end
  if compat.currentThread() ~= compat.MAIN then return false end
  local top = 1
  while getinfo(top + 1, "l") do top = top + 1 end
  local above = top - 1
  local bottom, main = getinfo(top, "S"), getinfo(above, "Sf")
  while main and main.what == "tail" do
    above = above - 1
    main = getinfo(above, "Sf")
  end
  local accepted = main and (main.what == "main" or (caller ~= nil and rawequal(main.func, caller)))
  if not (bottom and bottom.what == "C" and accepted) then
    problem = "no interpreter message handler below the main chunk (an engine runs the program)"
    return false
  end
  local slot, value = nil, nil
  for i = 1, 64 do
    local name, v = getlocal(top, i)
    -- 5.4 lists the chunk and its arguments as temporaries too; the handler comes before them.
    if name == nil or rawequal(v, main.func) then break end
    slot, value = i, v
  end
  if type(value) ~= "function" or getinfo(value, "S").what ~= "C" then
    problem = "no interpreter message handler below the main chunk (an engine runs the program)"
    return false
  end
  if not agrees(value) then
    problem = "the interpreter's message handler is not the one of lua.c/luajit.c: left alone"
    return false
  end
  if setlocal(top, slot, M.handler) == nil then
    problem = "the interpreter's message handler could not be replaced"
    return false
  end
  original = value
  problem = nil
  return true
end

--- Stops reporting (the handler stays: it answers as the interpreter's own).
function M.release() onUncaught = nil end

function M.adopted() return original ~= nil end
function M.problem() return problem end

return M
