-- conditions.lua: breakpoint conditions and logpoint expressions, evaluated where the hook fires
-- at a cost that depends neither on how deep the stack is nor on how many locals the frame has.
-- Each expression is compiled once per function and line it runs at, as a function taking the
-- locals it names (their slots are the same every time the line is reached); upvalues and globals
-- come through an environment bound to the function. An evaluation then reads just those slots
-- with debug.getlocal at a small, known level (checking that the frame is laid out as when it was
-- compiled) and calls the compiled function in a reused worker coroutine with an instruction
-- budget (PUC Lua), so that a condition that errors, yields or loops cannot hurt the program.
local compat = require("luapanda.compat")

local M = {}

local getinfo, getlocal, getupvalue = debug.getinfo, debug.getlocal, debug.getupvalue
local sethook = debug.sethook
local create, resume, status, yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
local unpack = compat.unpack

M.budget = 2000000

-- compiled[text][fn][line] = { slots = {...}, names = {...}, count = n, call = function, env = table }
-- (weak in fn)
local compiled = setmetatable({}, { __mode = "k" })

local function isName(s)
  return type(s) == "string" and string.match(s, "^[%a_][%w_]*$") ~= nil
end

local KEYWORDS = {}
for word in string.gmatch("and break do else elseif end false for function if in local nil not or "
  .. "repeat return then true until while", "%a+") do KEYWORDS[word] = true end

--- The names an expression may read as variables: identifiers that are not keywords and not a
--- field or method name (after a single `.` or a `:`). A word inside a string counts too, which
--- only costs a local read.
local function referencedNames(text)
  local names = {}
  local pos = 1
  while true do
    local s, e = string.find(text, "[%a_][%w_]*", pos)
    if not s then break end
    local word = string.sub(text, s, e)
    local before = string.match(string.sub(text, 1, s - 1), "([^%s]?[^%s])%s*$") or ""
    local last = string.sub(before, -1)
    local field = last == ":" or (last == "." and string.sub(before, -2, -2) ~= ".")
    -- A word that directly follows a digit is part of a number (1e9, 0x1f).
    local inNumber = s > 1 and string.find(string.sub(text, s - 1, s - 1), "[%w_]") ~= nil
    if not KEYWORDS[word] and not field and not inNumber then names[word] = true end
    pos = e + 1
  end
  return names
end

--- The environment of an expression compiled for `fn`: its upvalues by name, then its globals.
local function environmentFor(fn)
  local index, globals = {}, _G
  local i = 1
  while true do
    local name, value = getupvalue(fn, i)
    if name == nil then break end
    if name == "_ENV" and type(value) == "table" then globals = value end
    if index[name] == nil then index[name] = i end
    i = i + 1
  end
  local env = {}
  setmetatable(env, {
    __index = function(_, k)
      local u = index[k]
      if u then
        local _, value = getupvalue(fn, u)
        return value
      end
      return globals[k]
    end,
    -- An expression that assigns writes nothing of the program's (read-only evaluation).
    __newindex = function(t, k, v) rawset(t, k, v) end,
  })
  return env
end

--- Compiles `text` for a frame whose active locals are `names` (false: a hidden or shadowed
--- slot). Only the locals the expression names become parameters, so an evaluation reads those
--- slots and no others.
local function compile(text, names, fn)
  local refs = referencedNames(text)
  local slots, params = {}, {}
  for i = 1, #names do
    if names[i] and refs[names[i]] then
      slots[#slots + 1] = i
      params[#params + 1] = names[i]
    end
  end
  local source = "return function(" .. table.concat(params, ", ")
    .. (#params > 0 and ", ..." or "...") .. ") return (" .. text .. ") end"
  local env = environmentFor(fn)
  local chunk, err = compat.compile(source, "=(condition)", env)
  if not chunk then return nil, err end
  return { slots = slots, names = params, count = #names, call = chunk(), env = env }
end

-- The worker: one coroutine that evaluates one expression per resume and yields its result
-- behind a marker (an expression that yields on its own is told apart by the missing marker).
local worker = nil
local DONE = {}
local function workerBody(call, args)
  while true do
    call, args = yield(DONE, call(unpack(args, 1, args.n)))
  end
end

-- The budget: the worker's count hook fires every TICK instructions and counts them for the
-- evaluation that runs (set once per worker: a debug.sethook per evaluation would cost more
-- than a short condition).
local TICK = 1000
local ticks = 0
local function budgetTick()
  ticks = ticks + 1
  if ticks * TICK > M.budget then
    error("evaluation stopped: it ran more than " .. M.budget .. " instructions (endless loop?)", 0)
  end
end

--- Lets the worker go, its hook taken off first: Lua 5.1 would keep the hook function in its
--- registry table after the thread is gone (see proghooks.lua, storeOnDummy).
function M.releaseWorker()
  if worker and not compat.isJIT then sethook(worker) end
  worker = nil
end

--- Runs call(unpack(args)) in the worker. Returns true, value or false, message.
local function run(call, args)
  if not worker or status(worker) ~= "suspended" then
    M.releaseWorker()
    worker = create(workerBody)
    if not compat.isJIT then sethook(worker, budgetTick, "", TICK) end
  end
  ticks = 0
  local ok, marker, value = resume(worker, call, args)
  if not ok then
    M.releaseWorker()
    return false, type(marker) == "string" and marker or compat.rawtostring(marker)
  end
  if marker ~= DONE then
    M.releaseWorker()
    return false, "evaluation tried to yield"
  end
  return true, value
end

--- The names of the locals visible at `level` (relative to the caller of this function's
--- caller), temporaries and shadowed names hidden (false).
local function namesAt(level)
  local names, seen = {}, {}
  local i = 1
  while true do
    local name = getlocal(level + 1, i)
    if name == nil then break end
    if isName(name) then
      -- A later local of the same name shadows an earlier one.
      if seen[name] then names[seen[name]] = false end
      seen[name] = i
      names[i] = name
    else
      names[i] = false
    end
    i = i + 1
  end
  return names
end

-- The arguments of one evaluation (one at a time: the runtime's code runs no hook of its own).
local args = { n = 0 }

--- Reads the locals `entry` was compiled for, at `level` (relative to the caller of this
--- function's caller), into `args`; false when the frame is not laid out as at compile time (its
--- number of active locals, and the names in the slots read).
local function readLocals(level, entry)
  local count = entry.count
  if count > 0 and getlocal(level + 1, count) == nil then return false end
  if getlocal(level + 1, count + 1) ~= nil then return false end
  local slots, names = entry.slots, entry.names
  for k = 1, #slots do
    local name, value = getlocal(level + 1, slots[k])
    if name ~= names[k] then return false end
    args[k] = value
  end
  args.n = #slots
  return true
end

--- Evaluates `text` in the frame at `level` (relative to the caller), stopped at `line` (the
--- locals active there are the same each time); `fn`, that frame's function when the caller knows
--- it. Returns true, value or false, message.
function M.evaluate(text, level, line, fn)
  if fn == nil then
    local info = getinfo(level + 1, "f")
    fn = info and info.func
  end
  if type(fn) ~= "function" then return false, "no frame" end
  local byFn = compiled[text]
  if not byFn then
    byFn = setmetatable({}, { __mode = "k" })
    compiled[text] = byFn
  end
  local byLine = byFn[fn]
  if not byLine then
    byLine = {}
    byFn[fn] = byLine
  end
  line = line or 0
  local entry = byLine[line]
  if not entry or not readLocals(level + 1, entry) then
    local err
    entry, err = compile(text, namesAt(level + 1), fn)
    if not entry then return false, err end
    byLine[line] = entry
    readLocals(level + 1, entry)
  end
  if entry.varargs == nil then
    entry.varargs = compat.hasVarargLocals and string.find(text, "...", 1, true) ~= nil
  end
  if entry.varargs then
    local n, j = args.n, -1
    while true do
      local name, value = getlocal(level + 1, j)
      if name == nil then break end
      n = n + 1
      args[n] = value
      j = j - 1
    end
    args.n = n
  end
  local ok, value = run(entry.call, args)
  for i = 1, args.n do args[i] = nil end -- keep no program value alive
  args.n = 0
  return ok, value
end

--- Forgets every compiled expression (breakpoints changed).
function M.reset()
  compiled = setmetatable({}, { __mode = "k" })
end

return M
