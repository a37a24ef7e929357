-- eval.lua: evaluates Lua text in a stopped frame. Free names resolve to the frame's locals, then
-- its function's upvalues, then its globals. Read-only evaluation (watch, hover, conditions,
-- logpoints) never writes locals or upvalues: assignments land in a scratch table. REPL
-- evaluation writes back to locals/upvalues after the chunk ran, and to globals directly.
local compat = require("luapanda.compat")
local safe = require("luapanda.safe")
local stack = require("luapanda.stack")

local M = {}

local getupvalue, setupvalue = debug.getupvalue, debug.setupvalue
local pack, unpack = compat.pack, compat.unpack

local function isTemporary(name)
  return string.sub(name, 1, 1) == "("
end

--- Snapshot of the names visible in a frame.
function M.scope(frame)
  local locals, i = {}, 1
  while true do
    local name, value = stack.getlocal(frame, i)
    if name == nil then break end
    if not isTemporary(name) then locals[name] = { index = i, value = value } end
    i = i + 1
  end
  local varargs = stack.varargs(frame)
  local ups = {}
  local fn = frame.func
  local globals = _G
  if type(fn) == "function" then
    local k = 1
    while true do
      local name, value = getupvalue(fn, k)
      if name == nil then break end
      if name == "_ENV" and type(value) == "table" then globals = value end
      if ups[name] == nil then ups[name] = { index = k, value = value } end
      k = k + 1
    end
  end
  return { locals = locals, varargs = varargs, ups = ups, globals = globals, frame = frame }
end

--- An environment table over a scope; `writes` collects REPL assignments to apply later.
function M.env(scope, writable)
  local writes = {}
  local env = {}
  setmetatable(env, {
    __index = function(_, k)
      local l = scope.locals[k]
      if l then return l.value end
      local u = scope.ups[k]
      if u then return u.value end
      return scope.globals[k]
    end,
    __newindex = function(t, k, v)
      local l = scope.locals[k]
      if l then
        l.value = v
        if writable then writes[#writes + 1] = { kind = "local", index = l.index, value = v } end
        return
      end
      local u = scope.ups[k]
      if u then
        u.value = v
        if writable then writes[#writes + 1] = { kind = "upvalue", index = u.index, value = v } end
        return
      end
      if writable then scope.globals[k] = v else rawset(t, k, v) end
    end,
  })
  return env, writes
end

--- Applies REPL writes to the frame's locals and upvalues.
function M.apply(scope, writes)
  for _, w in ipairs(writes) do
    if w.kind == "local" then
      stack.setlocal(scope.frame, w.index, w.value)
    elseif type(scope.frame.func) == "function" then
      setupvalue(scope.frame.func, w.index, w.value)
    end
  end
end

--- Compiles `return <expr>` (or, when `statement` is allowed, the text as a statement).
function M.compile(text, env, statement)
  if not compat.canCompile then return nil, "this Lua has no load/loadstring" end
  local fn, err = compat.compile("return " .. text, "=(eval)", env)
  if fn then return fn end
  if statement then
    local fn2 = compat.compile(text, "=(eval)", env)
    if fn2 then return fn2 end
  end
  return nil, err
end

--- Evaluates an expression read-only. Returns true, {n = count, results...} or false, message.
function M.watchAll(frame, text, scope)
  scope = scope or M.scope(frame)
  local env = M.env(scope, false)
  local fn, err = M.compile(text, env, false)
  if not fn then return false, err end
  local r = pack(safe.call(fn, unpack(scope.varargs, 1, scope.varargs.n or 0)))
  if not r[1] then return false, r[2] end
  return true, pack(unpack(r, 2, r.n))
end

--- Evaluates an expression read-only. Returns true, first value or false, message.
function M.watch(frame, text, scope)
  local ok, r = M.watchAll(frame, text, scope)
  if not ok then return false, r end
  return true, r[1]
end

--- Runs REPL text (expression or statement) with write-back. Returns true, {n = count,
--- results...} (none for a statement) or false, message.
function M.repl(frame, text)
  local scope = M.scope(frame)
  local env, writes = M.env(scope, true)
  local fn, err = M.compile(text, env, true)
  if not fn then return false, err end
  local r = pack(safe.call(fn, unpack(scope.varargs, 1, scope.varargs.n or 0)))
  M.apply(scope, writes)
  if not r[1] then return false, r[2] end
  return true, pack(unpack(r, 2, r.n))
end

return M
