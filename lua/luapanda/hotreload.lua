-- hotreload.lua: loads a changed file into the running program. The new source is compiled under
-- the chunk name the file was loaded as and run in a fresh environment (its globals land in a
-- proxy, its `local`s and tables are new); its functions are matched to the old ones by where
-- they live (the module's table and nested tables, metatables, globals the file defines, fields
-- of other tables the file assigns, upvalues by name); each new function takes over the old
-- one's upvalues, so module state is kept; then every reference to an old function that a bounded
-- search of the heap finds (tables, upvalues, locals of suspended frames) is rewritten. The
-- rewrite is one transaction: a failure undoes every write. Frames running an old function
-- finish in the old code.
local compat = require("luapanda.compat")
local paths = require("luapanda.paths")
local breakpoints = require("luapanda.breakpoints")
local safe = require("luapanda.safe")

local M = {}

local getinfo, getlocal, setlocal = debug.getinfo, debug.getlocal, debug.setlocal
local getupvalue, setupvalue = debug.getupvalue, debug.setupvalue
local upvaluejoin, upvalueid = debug.upvaluejoin, debug.upvalueid
local dgetmetatable, getregistry = debug.getmetatable, debug.getregistry
local getuservalue = debug.getuservalue
local getfenv, setfenv = rawget(_G, "getfenv"), rawget(_G, "setfenv")
local running = coroutine.running
local rawget, rawset, next, type, pcall, tostring = rawget, rawset, next, type, pcall, tostring

--- Objects the search visits at most: beyond that the report says the search was incomplete.
M.SEARCH_LIMIT = 3000000
--- Instructions the new chunk's top level may run (PUC Lua; LuaJIT cannot bound it).
M.RUN_BUDGET = 50000000
--- Entries per report list; the rest is counted.
M.LIST_LIMIT = 200
-- Seconds clock used for timeMs (M.init: the session gives luasocket's wall clock when it has one).
local clock = os.clock

function M.init(callbacks)
  clock = callbacks.clock or clock
end

-- Whether `debug.getlocal(f, 1)` names a function's first parameter (5.2+ and LuaJIT).
local namesParameters = pcall(getlocal, print, 1) and (not compat.is51 or compat.isJIT)

local function isIdentifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") ~= nil
end

--- `base.key`, `base:key` for a method (first parameter `self`), `base[key]` otherwise.
local function fieldName(base, key, fn)
  if isIdentifier(key) then
    if base == nil or base == "" then return key end
    local sep = "."
    if type(fn) == "function" and namesParameters and getlocal(fn, 1) == "self" then sep = ":" end
    return base .. sep .. key
  end
  local shown = type(key) == "string" and string.format("%q", key) or tostring(key)
  return (base or "?") .. "[" .. shown .. "]"
end

-- The search ------------------------------------------------------------------------------------

--- The program's frames on the current thread, bottom last: { func, level } with levels relative
--- to the caller of this function. Frames of the runtime are left out.
local function currentFrames()
  local list = {}
  local level = 2
  while true do
    local info = getinfo(level, "fS")
    if not info then break end
    -- (Lua 5.1 shows a tail call as a frame without a function.)
    if info.func and not breakpoints.isOwnSource(info.source) then list[#list + 1] = { func = info.func, level = level - 1 } end
    level = level + 1
  end
  return list
end

--- Walks everything reachable from the program's roots. For functions whose chunk has the file's
--- key it records where each is held. Returns the search state.
local function search(wantKey, limit)
  local s = {
    seen = {}, count = 0, incomplete = nil,
    sourceOf = {},          -- fn -> chunk source ("=C" for C functions, false for the runtime's)
    candidates = {},        -- source -> { fns = {fn -> true}, n }
    held = {},              -- fn -> list of places { kind, ... }
    parent = {}, key = {},  -- table -> the table and key it was first reached through
    names = {},             -- root table -> its name
    active = {},            -- fn -> true when running in some frame
    threadFrames = {},      -- thread -> count of its frames when searched
  }
  local seen, queue, head, tail = s.seen, {}, 1, 0
  local parentOf, keyOf = s.parent, s.key
  local function push(v, from, k)
    local t = type(v)
    if (t == "table" or t == "function" or t == "userdata" or t == "thread") and not seen[v] then
      seen[v] = true
      tail = tail + 1
      queue[tail] = v
      if t == "table" and from ~= nil then s.parent[v], s.key[v] = from, k end
    end
  end
  local function sourceOf(fn)
    local src = s.sourceOf[fn]
    if src ~= nil then return src end
    local info = getinfo(fn, "S")
    src = info.what == "C" and "=C" or info.source
    if breakpoints.isOwnSource(src) then src = false end
    s.sourceOf[fn] = src
    if src and src ~= "=C" and paths.isFileSource(src) and paths.key(src) == wantKey then
      local c = s.candidates[src]
      if not c then c = { fns = {}, n = 0 }; s.candidates[src] = c end
      if not c.fns[fn] then c.fns[fn] = true; c.n = c.n + 1 end
    end
    return src
  end
  local candidates = s.candidates
  --- Whether fn is a function of a chunk with the file's key (whose places are recorded).
  local function isCandidate(fn)
    local src = sourceOf(fn)
    return src and candidates[src] ~= nil
  end
  local function note(fn, place)
    local list = s.held[fn]
    if not list then list = {}; s.held[fn] = list end
    list[#list + 1] = place
  end
  --- A table first reached through a local or an upvalue is named after it.
  local function nameLocal(value, name)
    if type(value) == "table" and not seen[value] and name ~= "" and name:sub(1, 1) ~= "(" then
      s.names[value] = name
    end
  end
  local function walkFrames(thread, frames)
    for _, f in ipairs(frames) do
      if sourceOf(f.func) then
        push(f.func)
        if s.candidates[s.sourceOf[f.func]] then s.active[f.func] = true end
        local i = 1
        while true do
          local name, value
          if thread then name, value = getlocal(thread, f.level, i) else name, value = getlocal(f.level + 1, i) end
          if name == nil then break end
          nameLocal(value, name)
          push(value)
          if type(value) == "function" and name:sub(1, 1) ~= "(" and isCandidate(value) then
            note(value, { kind = "local", thread = thread, at = f.at, level = f.level, index = i, func = f.func, name = name })
          end
          i = i + 1
        end
      end
    end
  end

  local G = _G
  s.names[G] = ""
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) == "table" then s.names[loaded] = "package.loaded" end
  local registry = getregistry and getregistry()
  if registry then s.names[registry] = "registry" end
  push(G)
  push(loaded)
  push(registry)
  push(dgetmetatable(""))
  -- The current thread's frames: locals of frames below the runtime's.
  local current = running()
  if current then seen[current] = true end
  -- Levels relative to this function (walkFrames adds its own); `at` counts from the bottom,
  -- which stays put while the runtime's frames above come and go.
  local frames = currentFrames()
  for i, f in ipairs(frames) do f.at = #frames - i end
  walkFrames(nil, frames)

  while head <= tail do
    if s.count >= limit then
      s.incomplete = "the search stopped after " .. limit .. " objects; references beyond them were not updated"
      break
    end
    local v = queue[head]
    queue[head] = nil
    head = head + 1
    s.count = s.count + 1
    local t = type(v)
    if t == "table" then
      local mt = dgetmetatable(v)
      if mt ~= nil then push(mt, v, "(metatable)") end
      -- The hot loop of the search: the common cases inline.
      for k, value in next, v do
        local tv = type(value)
        if tv == "table" then
          if not seen[value] then
            seen[value] = true
            tail = tail + 1
            queue[tail] = value
            parentOf[value], keyOf[value] = v, k
          end
        elseif tv == "function" then
          if not seen[value] then
            seen[value] = true
            tail = tail + 1
            queue[tail] = value
          end
          if isCandidate(value) then note(value, { kind = "field", table = v, key = k }) end
        elseif tv == "userdata" or tv == "thread" then
          push(value)
        end
        local tk = type(k)
        if tk ~= "string" and tk ~= "number" and tk ~= "boolean" then push(k) end
      end
    elseif t == "function" then
      local src = sourceOf(v)
      if src ~= false then -- the runtime's own closures hold the debugger's state, not the program's
        local i = 1
        while true do
          local name, value = getupvalue(v, i)
          if name == nil then break end
          nameLocal(value, name)
          push(value)
          if type(value) == "function" and isCandidate(value) then
            note(value, { kind = "upvalue", func = v, index = i, name = name })
          end
          i = i + 1
        end
        if getfenv and src ~= "=C" then push(getfenv(v)) end
      end
    elseif t == "userdata" then
      push(dgetmetatable(v))
      if getuservalue then
        local ok, uv = pcall(getuservalue, v)
        if ok then push(uv) end
      elseif getfenv then
        local ok, env = pcall(getfenv, v)
        if ok then push(env) end
      end
    elseif t == "thread" then
      local list, level = {}, 0
      while true do
        local ok, info = pcall(getinfo, v, level, "fS")
        if not ok or not info then break end
        if info.what ~= "C" and info.func then list[#list + 1] = { func = info.func, level = level } end
        level = level + 1
      end
      walkFrames(v, list)
    end
  end
  return s
end

--- The name a table was first reached by: `package.loaded["x"]` shows as the module `x`.
local function tableName(s, t, depth)
  depth = depth or 0
  local root = s.names[t]
  if root then return root end
  local parent, key = s.parent[t], s.key[t]
  if parent == nil or depth > 12 then return "?" end
  if s.names[parent] == "package.loaded" then return tostring(key) end
  if key == "(metatable)" then return "getmetatable(" .. tableName(s, parent, depth + 1) .. ")" end
  return fieldName(tableName(s, parent, depth + 1), key)
end

local function placeName(s, place, fn)
  if place.kind == "field" then return fieldName(tableName(s, place.table), place.key, fn) end
  return "local " .. tostring(place.name)
end

--- Picks the chunk the IDE's path denotes among those of the file's key: the one whose path
--- shares the longest tail with it, then the one with more live functions.
local function chooseChunk(s, fullPath)
  local best, bestTail, bestN = nil, -1, -1
  for source, c in pairs(s.candidates) do
    local tail = paths.commonTail(fullPath, paths.chunkPath(source))
    if tail > bestTail or (tail == bestTail and c.n > bestN) then best, bestTail, bestN = source, tail, c.n end
  end
  return best
end

-- Matching new functions to old ones --------------------------------------------------------------

local function newMatcher(oldFns, chunk)
  local m = {
    pairs = {},      -- old fn -> new fn
    names = {},      -- new fn -> name
    added = {},      -- list of { table, key, value, name }
    kept = {},       -- list of { name, line, reason }
    joins = {},      -- list of { newFn, j, oldFn, i }
    copies = {},     -- Lua 5.1: list of { newFn, j, value }
    isNewFn = {},    -- new fn -> true
  }
  local visited = {}
  local work = {}

  local function isNew(v)
    if type(v) ~= "function" or oldFns[v] then return false end
    if m.isNewFn[v] then return true end
    local info = getinfo(v, "S")
    if info.source == chunk then m.isNewFn[v] = true return true end
    return false
  end
  m.isNew = isNew

  local match
  local function pair(old, new, name)
    if m.pairs[old] then return end
    m.pairs[old] = new
    m.names[new] = m.names[new] or name
    work[#work + 1] = { old = old, new = new, name = name }
  end
  m.pair = pair

  function match(newV, oldV, name, holder, key)
    if newV == oldV then return end
    if isNew(newV) then
      if type(oldV) == "function" and oldFns[oldV] then
        pair(oldV, newV, name)
      elseif oldV == nil then
        if holder then m.added[#m.added + 1] = { table = holder, key = key, value = newV, name = name } end
        m.names[newV] = m.names[newV] or name
      else
        m.kept[#m.kept + 1] = { name = name, line = getinfo(newV, "S").linedefined,
          reason = "the program holds a " .. type(oldV) .. " of its own there (not a function of this file): left as it is" }
      end
    elseif type(newV) == "table" and type(oldV) == "table" then
      if visited[newV] then return end
      visited[newV] = true
      for k, nv in next, newV do
        local kt = type(k)
        if kt == "string" or kt == "number" or kt == "boolean" then
          local ov = rawget(oldV, k)
          if ov == nil and not isNew(nv) and nv ~= nil then
            -- A field the new version adds (a constant, a table of new functions): add it.
            if type(nv) ~= "table" or nv ~= newV then
              m.added[#m.added + 1] = { table = oldV, key = k, value = nv, data = true }
            end
          else
            match(nv, ov, fieldName(name, k, nv), oldV, k)
          end
        end
      end
      local nmt, omt = dgetmetatable(newV), dgetmetatable(oldV)
      if type(nmt) == "table" and type(omt) == "table" and nmt ~= newV then
        match(nmt, omt, "getmetatable(" .. name .. ")")
      end
    end
  end
  m.match = match

  --- Gives each paired new function the old one's upvalues, by name; pairs the functions and
  --- tables those upvalues hold in turn.
  function m.drain()
    local i = 1
    while i <= #work do
      local w = work[i]
      i = i + 1
      local oldIndex = {}
      local k = 1
      while true do
        local name = getupvalue(w.old, k)
        if name == nil then break end
        if oldIndex[name] == nil then oldIndex[name] = k end
        k = k + 1
      end
      local j = 1
      while true do
        local name, nv = getupvalue(w.new, j)
        if name == nil then break end
        local oi = oldIndex[name]
        if oi then
          local _, ov = getupvalue(w.old, oi)
          if name ~= "_ENV" then match(nv, ov, "local " .. name) end
          if upvaluejoin then
            m.joins[#m.joins + 1] = { w.new, j, w.old, oi }
          else
            m.copies[#m.copies + 1] = { w.new, j, ov }
          end
        end
        j = j + 1
      end
    end
  end
  return m
end

--- Every new function reachable from the chunk's results and the functions already known to be
--- new (their upvalues, the tables they hold): added ones need their environment fixed too.
local function collectNew(m, roots)
  local seen, queue = {}, {}
  for _, r in ipairs(roots) do queue[#queue + 1] = r end
  for fn in pairs(m.isNewFn) do queue[#queue + 1] = fn end
  local list = {}
  local n = 0
  while #queue > 0 and n < 200000 do
    local v = table.remove(queue)
    n = n + 1
    if not seen[v] then
      seen[v] = true
      if type(v) == "function" then
        if m.isNew(v) then
          list[#list + 1] = v
          local i = 1
          while true do
            local name, value = getupvalue(v, i)
            if name == nil then break end
            if name ~= "_ENV" and (type(value) == "function" or type(value) == "table") then queue[#queue + 1] = value end
            i = i + 1
          end
        end
      elseif type(v) == "table" then
        for k, value in next, v do
          if type(value) == "function" or type(value) == "table" then queue[#queue + 1] = value end
          if type(k) == "table" then queue[#queue + 1] = k end
        end
        local mt = dgetmetatable(v)
        if type(mt) == "table" then queue[#queue + 1] = mt end
      end
    end
  end
  return list
end

-- The report -----------------------------------------------------------------------------------

local function addEntry(list, entry)
  if #list < M.LIST_LIMIT then list[#list + 1] = entry else list.more = (list.more or 0) + 1 end
end

local function lineOf(fn)
  return getinfo(fn, "S").linedefined
end

local function finish(report, started)
  for _, k in ipairs({ "replaced", "added", "notFound", "notReplaced", "active" }) do
    local list = report[k]
    if list.more then
      list[#list + 1] = { name = "… and " .. list.more .. " more", line = 0 }
      list.more = nil
    end
  end
  report.timeMs = math.floor((clock() - started) * 1e6 + 0.5) / 1000
  return report
end

local function failure(report, started, phase, message)
  report.status = "error"
  report.phase = phase
  report.error = message
  return finish(report, started)
end

--- The `package.loaded` entry the file was required as: the first name (sorted) whose value is
--- one of its functions or a table holding one.
local function findModule(oldFns)
  local loaded = type(package) == "table" and rawget(package, "loaded")
  if type(loaded) ~= "table" then return nil end
  local bestName, bestValue
  for k, v in next, loaded do
    local holds = oldFns[v] == true
    if not holds and type(v) == "table" then
      for _, fv in next, v do
        if oldFns[fv] then holds = true break end
      end
    end
    if holds and type(k) == "string" and (bestName == nil or k < bestName) then bestName, bestValue = k, v end
  end
  return bestName, bestValue
end

--- Lua 5.2+ and LuaJIT: a new function that shares a variable (an upvalue cell of the new chunk)
--- with one joined to an old cell is joined to that cell too, so a function the new version adds
--- sees the module's state, not the fresh copy its top level made.
local function joinSharedCells(m, newFns)
  if not (upvalueid and upvaluejoin) then return end
  local target, done = {}, {}
  for _, jn in ipairs(m.joins) do
    target[upvalueid(jn[1], jn[2])] = jn
    done[jn[1]] = done[jn[1]] or {}
    done[jn[1]][jn[2]] = true
  end
  for _, fn in ipairs(newFns) do
    local j = 1
    while true do
      local name = getupvalue(fn, j)
      if name == nil then break end
      local jn = target[upvalueid(fn, j)]
      if jn and not (done[fn] and done[fn][j]) then m.joins[#m.joins + 1] = { fn, j, jn[3], jn[4] } end
      j = j + 1
    end
  end
end

-- The transaction --------------------------------------------------------------------------------

local function applyAll(m, writes, undo, oldEnv, chunkFn, newFns)
  -- New functions first: they are not yet reachable by the program, so these need no undo.
  for _, jn in ipairs(m.joins) do upvaluejoin(jn[1], jn[2], jn[3], jn[4]) end
  for _, c in ipairs(m.copies) do
    local value = c[3]
    if type(value) == "function" and m.pairs[value] then value = m.pairs[value] end
    setupvalue(c[1], c[2], value)
  end
  if setfenv then
    for _, fn in ipairs(newFns) do setfenv(fn, oldEnv) end
  else
    -- The chunk's _ENV cell, shared by every function it made that was not joined to an old one.
    local i = 1
    while true do
      local name = getupvalue(chunkFn, i)
      if name == nil then break end
      if name == "_ENV" then setupvalue(chunkFn, i, oldEnv) break end
      i = i + 1
    end
  end
  -- Then the program's references, each undoable.
  local frames = nil
  for _, w in ipairs(writes) do
    local place, new = w.place, w.new
    if place.kind == "field" then
      undo[#undo + 1] = { kind = "field", table = place.table, key = place.key, value = rawget(place.table, place.key) }
      rawset(place.table, place.key, new)
    elseif place.kind == "upvalue" then
      local _, current = getupvalue(place.func, place.index)
      undo[#undo + 1] = { kind = "upvalue", func = place.func, index = place.index, value = current }
      setupvalue(place.func, place.index, new)
    elseif place.kind == "local" and place.thread then
      setlocal(place.thread, place.level, place.index, new)
      undo[#undo + 1] = { kind = "local", thread = place.thread, level = place.level, index = place.index, value = w.old }
    elseif place.kind == "local" then
      frames = frames or currentFrames()
      local f = frames[#frames - place.at]
      if f and f.func == place.func then
        local _, current = getlocal(f.level, place.index)
        if current == w.old then
          setlocal(f.level, place.index, new)
          undo[#undo + 1] = { kind = "local", level = f.level, func = f.func, index = place.index, value = w.old }
        end
      end
    end
  end
end

local function undoAll(undo)
  for i = #undo, 1, -1 do
    local u = undo[i]
    if u.kind == "field" then
      rawset(u.table, u.key, u.value)
    elseif u.kind == "upvalue" then
      setupvalue(u.func, u.index, u.value)
    elseif u.kind == "local" and u.thread then
      setlocal(u.thread, u.level, u.index, u.value)
    elseif u.kind == "local" then
      local frames = currentFrames()
      for _, f in ipairs(frames) do
        if f.func == u.func then setlocal(f.level, u.index, u.value) break end
      end
    end
  end
end

--- Reloads `source` as the file the IDE calls `path`. Returns the report (never raises).
function M.reload(path, source)
  local started = clock()
  local report = { status = "success", replaced = {}, added = {}, notFound = {}, notReplaced = {}, active = {},
    references = 0, searched = 0 }
  if type(path) ~= "string" or path == "" then return failure(report, started, "find", "no file path was given") end
  if type(source) ~= "string" then return failure(report, started, "find", "no source text was given") end
  if not compat.canCompile then
    return failure(report, started, "compile", "this Lua has no load/loadstring: code cannot be compiled at run time")
  end

  local wantKey, fullPath = paths.breakpointKey(path)
  local s = search(wantKey, M.SEARCH_LIMIT)
  report.searched = s.count
  report.incomplete = s.incomplete
  local chunk = chooseChunk(s, fullPath)
  if not chunk then
    return failure(report, started, "find", "the program holds no function loaded from " .. path
      .. " (it was not loaded, or under another name)")
  end
  report.chunk = chunk
  local oldFns = s.candidates[chunk].fns
  -- The file's own top level still running (the game loop is in it, or a stop inside it): a
  -- reload would run that top level again, inside the reload.
  for fn in pairs(s.active) do
    if oldFns[fn] and getinfo(fn, "S").what == "main" then
      return failure(report, started, "run", "the top level of " .. path .. " is running now (the program is "
        .. "inside it): reloading would run it again. Reload the modules it requires, or restart the program.")
    end
  end

  -- The environment the old code runs in, and the module it was loaded as.
  local oldEnv = _G
  for fn in pairs(oldFns) do
    if getfenv then oldEnv = getfenv(fn) break end
    local i = 1
    local found = false
    while true do
      local name, value = getupvalue(fn, i)
      if name == nil then break end
      if name == "_ENV" and type(value) == "table" then oldEnv, found = value, true break end
      i = i + 1
    end
    if found then break end
  end
  local modName, oldModule = findModule(oldFns)
  report.module = modName

  -- Compile under the same chunk name, so stacks and breakpoints keep mapping to the file.
  local text = source
  if text:sub(1, 3) == "\239\187\191" then text = text:sub(4) end
  if text:sub(1, 1) == "#" then text = "--" .. text end
  local proxy = setmetatable({}, { __index = oldEnv })
  local chunkFn, err = compat.compile(text, chunk, proxy)
  if not chunkFn then return failure(report, started, "compile", tostring(err)) end

  -- Before running it, note what the file's old functions' places hold: the new top level may
  -- assign into the program's own tables (`function love.update`), which is a replacement too.
  local before = {}
  for fn, places in pairs(s.held) do
    if oldFns[fn] then
      for _, place in ipairs(places) do
        if place.kind == "field" then before[#before + 1] = { place = place, old = fn } end
      end
    end
  end
  local filePath = chunk:sub(1, 1) == "@" and chunk:sub(2) or chunk
  local results = compat.pack(safe.callBounded(M.RUN_BUDGET, chunkFn, modName, filePath))
  local m = newMatcher(oldFns, chunk)
  local direct = {}
  for _, b in ipairs(before) do
    local now = rawget(b.place.table, b.place.key)
    if now ~= b.old and m.isNew(now) then direct[#direct + 1] = { b = b, now = now } end
  end
  local function undoDirect()
    for _, d in ipairs(direct) do rawset(d.b.place.table, d.b.place.key, d.b.old) end
  end
  if not results[1] then
    undoDirect()
    return failure(report, started, "run", "running the new version failed: " .. tostring(results[2]))
  end

  -- Match: fields the chunk assigned in place, the module it returns, the globals it defines.
  for _, d in ipairs(direct) do m.pair(d.b.old, d.now, placeName(s, d.b.place, d.now)) end
  local newModule = results[2]
  if oldModule ~= nil and newModule ~= nil then
    m.match(newModule, oldModule, modName)
  elseif type(newModule) == "table" then
    -- Not loaded by require: the table holding the most of the file's functions under the new
    -- table's keys is the module.
    local best, bestScore = nil, 0
    local score = {}
    for fn, places in pairs(s.held) do
      if oldFns[fn] then
        for _, place in ipairs(places) do
          if place.kind == "field" and m.isNew(rawget(newModule, place.key)) then
            local t = place.table
            score[t] = (score[t] or 0) + 1
            if score[t] > bestScore then best, bestScore = t, score[t] end
          end
        end
      end
    end
    if best then m.match(newModule, best, tableName(s, best)) end
  end
  for k, v in next, proxy do
    local old = rawget(oldEnv, k)
    if type(k) == "string" then m.match(v, old, k, oldEnv, k) end
    if old == nil and not m.isNew(v) then m.added[#m.added + 1] = { table = oldEnv, key = k, value = v, data = true } end
  end
  m.drain()

  -- The writes: every place an old function that has a new version is held.
  local writes = {}
  for old, new in pairs(m.pairs) do
    local places = s.held[old]
    if places then
      for _, place in ipairs(places) do
        local skip = place.kind == "upvalue" and m.isNewFn[place.func]
        if not skip then writes[#writes + 1] = { place = place, old = old, new = new } end
      end
    end
  end
  for _, a in ipairs(m.added) do
    writes[#writes + 1] = { place = { kind = "field", table = a.table, key = a.key }, old = nil, new = a.value }
  end
  local newFns = collectNew(m, { results[2], proxy })
  joinSharedCells(m, newFns)
  local undo = {}
  local ok, problem = pcall(applyAll, m, writes, undo, oldEnv, chunkFn, newFns)
  if not ok then
    pcall(undoAll, undo)
    undoDirect()
    return failure(report, started, "apply", "replacing the functions failed, every change was undone: " .. tostring(problem))
  end
  -- A function breakpoint on an old function holds on its new version too.
  local entries = breakpoints.entries
  if type(entries) == "table" then
    for old, new in pairs(m.pairs) do
      if entries[old] ~= nil and entries[new] == nil then entries[new] = entries[old] end
    end
  end
  -- Globals the chunk defined that were data, and stragglers that still write to the proxy.
  setmetatable(proxy, { __index = oldEnv, __newindex = oldEnv })

  -- The report.
  local replacedNames = {}
  for old, new in pairs(m.pairs) do
    local name = m.names[new] or "?"
    -- (A field the new top level assigned in place is one of these places too.)
    if s.held[old] and #s.held[old] > 0 then
      replacedNames[#replacedNames + 1] = { name = name, line = lineOf(new) }
    else
      addEntry(report.notFound, { name = name, line = lineOf(new),
        reason = "the old version is held nowhere the search reached (a local function captured only by unreachable closures); it keeps running where it is held" })
    end
    if s.active[old] then addEntry(report.active, { name = name, line = lineOf(old) }) end
  end
  table.sort(replacedNames, function(a, b) return a.line < b.line end)
  for _, e in ipairs(replacedNames) do addEntry(report.replaced, e) end
  for _, a in ipairs(m.added) do
    if not a.data then addEntry(report.added, { name = a.name, line = lineOf(a.value) }) end
  end
  -- New functions reachable only through other new ones: a local helper the new version adds.
  local pairedNew, addedNew = {}, {}
  for _, new in pairs(m.pairs) do pairedNew[new] = true end
  for _, a in ipairs(m.added) do addedNew[a.value] = true end
  for _, fn in ipairs(newFns) do
    local name = m.names[fn]
    if type(name) == "string" and not pairedNew[fn] and not addedNew[fn] then
      addEntry(report.added, { name = name, line = lineOf(fn) })
    end
  end
  for _, k in ipairs(m.kept) do addEntry(report.notReplaced, k) end
  -- Old functions no new one took over: closures made at run time, functions the file no longer
  -- defines. One entry per place in the file.
  local byLine = {}
  for fn in pairs(oldFns) do
    if not m.pairs[fn] then
      local line = lineOf(fn)
      local e = byLine[line]
      if not e then
        e = { fn = fn, n = 0 }
        byLine[line] = e
      end
      e.n = e.n + 1
    end
  end
  local lines = {}
  for line in pairs(byLine) do lines[#lines + 1] = line end
  table.sort(lines)
  for _, line in ipairs(lines) do
    local e = byLine[line]
    if line > 0 then
      local places = s.held[e.fn]
      local name = places and places[1] and placeName(s, places[1], e.fn) or ("function at line " .. line)
      addEntry(report.notReplaced, { name = name .. (e.n > 1 and (" (" .. e.n .. " closures)") or ""), line = line,
        reason = "the new version defines no function in its place (a closure made at run time keeps its code; a function removed from the file stays)" })
    end
  end
  for _, w in ipairs(writes) do if w.old ~= nil then report.references = report.references + 1 end end
  return finish(report, started)
end

return M
