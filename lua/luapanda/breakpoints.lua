-- breakpoints.lua: the breakpoint table (each one's rules validated when set, bprules.lua), and
-- the per-function verdict cache the hook uses: for a function object,
-- the table {line -> breakpoint} of breakpoints inside its line range, or false. One table lookup
-- per call once a function has been seen; the cache is dropped whenever breakpoints change.
-- Binding (protocol extension, Docs/Protocol_Extensions.md): a breakpoint may name the function
-- it belongs in (`fnFirst`/`fnLast`, its line range) and the line the user asked for
-- (`requested`); when that function is first seen, it binds on the first line of it with code
-- at or after the requested one (its `activelines`), and the IDE is told — as it is told when
-- a file that holds breakpoints is first seen (loaded).
-- Breakpoints are stored as upstream does, byKey[key][fullPath]: in autoPathMode the key is the
-- file name, so same-name files in different folders share a key and are told apart by comparing
-- the chunk's path with each breakpoint path (see `filesFor`).
local paths = require("luapanda.paths")
local events = require("luapanda.events")
local bprules = require("luapanda.bprules")

local M = {}

local getinfo, getmetatable = debug.getinfo, debug.getmetatable
local byKey = {}            -- key -> { [fullPath] = { path = fullPath, lines = { [line] = bp } } }
local count = 0             -- number of line breakpoints in total
local bindings = 0          -- breakpoints bound to a line of their function so far (M.lineFilter)
local fnCount = 0           -- number of function breakpoints (fnbreakpoints.lua)
-- Collecting breakpoints (collect.lua), apart from the user's: key -> { [fullPath] = { path =
-- fullPath, lines = { [line] = { collector, ... } } } }. A verdict's line that has some holds a
-- wrapper (kind 3) with them and the user's breakpoint there, if any, as `under` (hits.lua).
local collectByKey = {}
local collectCount = 0
-- fn -> its function breakpoint (fnbreakpoints.lua): its verdict carries it under the key 0, the
-- hook's sign to stop at the first line event of each call (see hook.lua).
local entries = setmetatable({}, { __mode = "k" })
M.entries = entries
-- fn -> lines|false. One table for the life of the runtime (cleared in place), so the hook and
-- the native accelerator can hold on to it.
local verdicts = setmetatable({}, { __mode = "k" })
local bySource = {}         -- chunk source -> its breakpoint files (or false), until a change
local cFunctions = setmetatable({}, { __mode = "k" })
M.cFunctions = cFunctions   -- fn -> true for C functions seen by verdict
local ownFunctions = setmetatable({}, { __mode = "k" })
M.ownFunctions = ownFunctions -- fn -> true for the runtime's own functions seen by verdict
local ownSources = {}       -- the runtime's own chunk sources, never debugged
-- Chunk sources of files whose code the runtime has seen run (a verdict, or a frame on the stack
-- when breakpoints were set): those files are loaded. Kept across connections (code stays
-- loaded), and bounded: a program that loads files without end must not make it grow forever.
local seenSources, seenCount = {}, 0
local SEEN_LIMIT = 10000

local function noteSource(source)
  if seenSources[source] or seenCount >= SEEN_LIMIT or not paths.isFileSource(source) then return end
  seenSources[source] = true
  seenCount = seenCount + 1
end
-- Notices for the IDE (breakpointsBound), per breakpoint file entry, sent after a verdict.
local pending, pendingCount = {}, 0

M.generation = 0

-- The callbacks (M.init; each kept until given anew):
--   notifier(info)    sends a breakpointsBound notice (commands.lua, when the IDE asked for them;
--                     forgotten by M.clear)
--   retryPending(source)  tries pending function breakpoints again, now that code of chunk
--                     `source` runs; true when one bound
--   siteFor(info)     the function breakpoint whose definition site is the function `info`
--                     describes (getinfo "S"), or nil
--   flushFunctions()  sends what fnbreakpoints.lua has to tell after a verdict
local notifier, retryPending, siteFor, flushFunctions

function M.init(callbacks)
  notifier = callbacks.notifier or notifier
  retryPending = callbacks.retryPending or retryPending
  siteFor = callbacks.siteFor or siteFor
  flushFunctions = callbacks.flushFunctions or flushFunctions
end

function M.addOwnSource(source) ownSources[source] = true end
function M.isOwnSource(source) return ownSources[source] == true end
function M.count() return count + fnCount + collectCount end
function M.functionCount() return fnCount end
function M.all() return byKey end

-- Announces "verdicts" (events.lua) whenever the verdicts are emptied: the native accelerator's
-- own cache of them must be emptied too.
local function reset()
  for fn in pairs(verdicts) do verdicts[fn] = nil end
  bySource = {}
  M.generation = M.generation + 1
  events.announce("verdicts")
end

--- The function breakpoints changed (there are `n`): every verdict is computed anew.
function M.setFunctionCount(n)
  fnCount = n
  reset()
end

--- The verdict cache itself (weak keys): fn -> {line -> bp} or false; absent = not computed.
function M.verdictTable() return verdicts end

--- Whether code of every file with breakpoints has been seen (each told to the IDE as loaded).
function M.allAnnounced()
  for _, group in pairs(byKey) do
    for _, entry in pairs(group) do
      if not entry.announced then return false end
    end
  end
  return true
end

--- A version of what M.lineFilter returns: it changes whenever that may change.
function M.lineVersion() return M.generation * 65536 + bindings end

--- The line numbers a line breakpoint may stop on, in any file (line -> true), for the hook's
--- line filter (hook.lua): each breakpoint's line and the line it bound on; for one that names
--- its function and has not bound yet, every line from the one asked for to that function's end
--- (it binds on the first of them with code).
function M.lineFilter()
  local lines = {}
  for _, group in pairs(byKey) do
    for _, entry in pairs(group) do
      for line, bp in pairs(entry.lines) do
        lines[line] = true
        if (bp.bound or 0) > 0 then
          lines[bp.bound] = true
        elseif bp.fnFirst then
          local last = bp.fnLast or line
          for l = bp.requested or line, math.max(last, line) do lines[l] = true end
        end
      end
    end
  end
  for _, group in pairs(collectByKey) do
    for _, entry in pairs(group) do
      for line in pairs(entry.lines) do lines[line] = true end
    end
  end
  return lines
end

function M.clear()
  byKey, count = {}, 0
  collectByKey, collectCount = {}, 0
  pending, pendingCount = {}, 0
  notifier = nil
  events.announce("cleared")
  reset()
end

--- Queues a notice for `entry`: it is loaded, and `bp` (optional) bound on `line` (0: nowhere).
local function notice(entry, bp, line)
  local queued = pending[entry]
  if not queued then
    queued = {}
    pending[entry] = queued
    pendingCount = pendingCount + 1
  end
  if bp then queued[#queued + 1] = { line = bp.line, bound = line } end
end

--- Sends the queued notices (after a verdict: never in the middle of computing one). One that
--- fails (no C stack left) stays queued for the next verdict.
local function flush()
  local send = notifier
  for entry, lines in pairs(pending) do
    send({ path = entry.wirePath, lines = lines })
    pending[entry] = nil
    pendingCount = pendingCount - 1
  end
end

--- Whether code of the breakpoint file `entry` has been seen (its chunk is loaded).
local function loaded(entry)
  for source in pairs(seenSources) do
    for _, e in ipairs(M.filesFor(source) or {}) do
      if e == entry then return true end
    end
  end
  return false
end

--- The first chunk source seen so far (its file is loaded) for which `test(source)` is true.
function M.loadedSource(test)
  for source in pairs(seenSources) do
    if test(source) then return source end
  end
  return nil
end

--- Notes the chunk sources of the functions the loaded modules hold, one table deep below each,
--- and in the `__index` table of a module's metatable (a module that returns an instance of its
--- class); raw `next` and rawget, no metamethod runs; bounded. A module whose functions have not
--- run while breakpoints were set is loaded all the same.
local MODULE_SCAN_LIMIT = 5000
function M.noteModules()
  local modules = type(package) == "table" and rawget(package, "loaded")
  if type(modules) ~= "table" then return end
  local budget = MODULE_SCAN_LIMIT
  local function note(fn)
    local info = getinfo(fn, "S")
    if info and info.what ~= "C" and not ownSources[info.source] then noteSource(info.source) end
  end
  local function scan(t, depth)
    for _, v in next, t do
      budget = budget - 1
      if budget <= 0 then return end
      if type(v) == "function" then
        note(v)
      elseif depth > 0 and type(v) == "table" and v ~= _G and v ~= modules then
        scan(v, depth - 1)
      end
    end
  end
  for _, m in next, modules do
    if budget <= 0 then break end
    if type(m) == "function" then
      note(m)
    elseif type(m) == "table" and m ~= _G and m ~= modules then
      scan(m, 1)
      local mt = getmetatable(m)
      local index = type(mt) == "table" and rawget(mt, "__index")
      if type(index) == "table" and index ~= _G and index ~= modules then scan(index, 0) end
    end
  end
end

--- Notes the chunk sources of the functions on the stack (their files are loaded).
function M.noteStack()
  for level = 2, 200 do
    local info = getinfo(level, "S")
    if not info then break end
    if info.what ~= "C" and not ownSources[info.source] then noteSource(info.source) end
  end
end

--- Replaces the breakpoints of one file. Returns one result per `bks` entry, in order
--- ({ line = N, verified = bool, message = string|nil }), and whether the file is loaded.
function M.setFile(path, bks)
  local key, full = paths.breakpointKey(path)
  local group = byKey[key] or {}
  local old = group[full]
  if old then
    for _ in pairs(old.lines) do count = count - 1 end
    if pending[old] then pending[old], pendingCount = nil, pendingCount - 1 end
  end
  local lines, results = {}, {}
  local entry = { path = full, wirePath = path, lines = lines }
  if type(bks) ~= "table" then bks = {} end
  for _, spec in ipairs(bks) do
    local line = type(spec) == "table" and tonumber(spec.line)
    local result = { line = line or 0, verified = true }
    if not line then
      result.verified, result.message = false, "breakpoint without a valid line"
    else
      local bp, err = bprules.make(spec)
      if bp then
        bp.line, bp.path, bp.entry = line, full, entry
        bp.requested, bp.fnFirst, bp.fnLast = tonumber(spec.requested), tonumber(spec.fnFirst), tonumber(spec.fnLast)
      end
      if err then
        result.verified, result.message = false, err
      else
        if not lines[line] then count = count + 1 end
        lines[line] = bp
      end
    end
    results[#results + 1] = result
  end
  group[full] = next(lines) and entry or nil
  byKey[key] = next(group) and group or nil
  reset()
  -- Already loaded: the IDE learns it from the reply, not from a notice.
  entry.announced = group[full] ~= nil and loaded(entry)
  return results, entry.announced
end

--- The breakpoint files (entries of one key) that apply to a chunk. In exact mode the key is the
--- whole path, so there is one. In autoPathMode same-name files share the key: the chunk's path
--- picks the breakpoint paths sharing the longest tail of folders with it, so a breakpoint
--- in b/util.lua does not fire, log or count hits in a/util.lua. When nothing tells them apart
--- (the chunk name is only "util.lua") all of them apply, as upstream does, and the IDE's
--- double check of the stop (fake hit) decides; with distinguishSameNameFile only a breakpoint
--- path that agrees with the chunk's path on every folder the shorter of the two has applies.
function M.filesFor(source)
  return M.choose(byKey[paths.key(source)], source)
end

--- Of `group` ({fullPath -> value}, the entries of one key), the values whose paths apply to the
--- chunk `source`, as M.filesFor chooses; nil when none does. (Function breakpoints' definition
--- sites are chosen the same way.)
function M.choose(group, source)
  if not group then return nil end
  local full, only = next(group)
  if next(group, full) == nil and not paths.config().distinguishSameNameFile then return { only } end
  local chunk = paths.chunkPath(source)
  local best, chosen = -1, nil
  for p, entry in pairs(group) do
    local n, shorter = paths.commonTail(p, chunk)
    if paths.config().distinguishSameNameFile and n < shorter then n = -1 end
    if n > best then best, chosen = n, { entry } elseif n == best and n >= 0 then chosen[#chosen + 1] = entry end
  end
  if best < 0 then return nil end
  return chosen
end

--- Iterates line, bp over several files' lines; a line held by two files yields the first only
--- (by path). (No Lua comparator: the hook may run this with almost no C stack left.)
local function pairsOfLines(fileEntries)
  if #fileEntries == 1 then return pairs(fileEntries[1].lines) end
  local byPath, order = {}, {}
  for _, entry in ipairs(fileEntries) do
    byPath[entry.path] = entry
    order[#order + 1] = entry.path
  end
  table.sort(order)
  local merged = {}
  for _, p in ipairs(order) do
    for line, bp in pairs(byPath[p].lines) do
      if merged[line] == nil then merged[line] = bp end
    end
  end
  return pairs(merged)
end

--- Whether `bp` names `info`'s function as the one it belongs in (nil: it names none).
local function targets(bp, info)
  local first = bp.fnFirst
  if first == nil then return nil end
  if first == 0 then return info.what == "main" end
  return info.linedefined == first and info.lastlinedefined == bp.fnLast
end

--- The first line with code at or after `from` (nil: none).
local function firstActive(active, from)
  local best
  for line in pairs(active) do
    if line >= from and (best == nil or line < best) then best = line end
  end
  return best
end

--- The {line -> bp} table for the breakpoints on `fn`'s own lines (its active lines, so a
--- breakpoint inside a nested function does not mark the function around it), or false. A
--- breakpoint that names its function binds in that function only, on its first line with code
--- at or after the requested line.
local function compute(fn)
  local info = getinfo(fn, "S")
  if info and info.what == "C" then cFunctions[fn] = true return false end
  if not info then return false end
  if ownSources[info.source] then ownFunctions[fn] = true return false end
  local source = info.source
  noteSource(source)
  local found = false
  if fnCount > 0 then
    -- A pending name that binds now makes this verdict stale (M.verdict computes it again).
    if retryPending and retryPending(source) then reset() end
    local fbp = entries[fn] or (siteFor and siteFor(info))
    if fbp then found = { [0] = fbp } end
  end
  if count == 0 then return found end
  local files = bySource[source]
  if files == nil then
    local generation = M.generation
    files = M.filesFor(source) or false
    if generation == M.generation then bySource[source] = files end
  end
  if not files then return found end
  for _, entry in ipairs(files) do
    if not entry.announced then
      entry.announced = true
      notice(entry)
    end
  end
  local first, last = info.linedefined, info.lastlinedefined
  local active = getinfo(fn, "L")
  active = active and active.activelines
  for line, bp in pairsOfLines(files) do
    local at
    local target = targets(bp, info)
    if target then
      if active then at = firstActive(active, bp.requested or line) else at = line end
      if bp.bound ~= (at or 0) then
        bp.bound = at or 0
        bindings = bindings + 1
        notice(bp.entry, bp, bp.bound)
      end
    elseif target == nil then
      local inside
      if active then
        inside = active[line] == true
      else
        inside = info.what == "main" or (line >= first and line <= last)
      end
      if inside then at = line end
    end
    if at then
      found = found or {}
      if found[at] == nil then found[at] = bp end
    end
  end
  return found
end

--- Replaces every collecting breakpoint (collect.lua's collectors, each with `path` as the IDE
--- names the file and `line`).
function M.setCollectors(list)
  collectByKey, collectCount = {}, 0
  for _, c in ipairs(list) do
    local key, full = paths.breakpointKey(c.path)
    local group = collectByKey[key] or {}
    collectByKey[key] = group
    local entry = group[full] or { path = full, lines = {} }
    group[full] = entry
    local at = entry.lines[c.line] or {}
    entry.lines[c.line] = at
    at[#at + 1] = c
    collectCount = collectCount + 1
  end
  reset()
end

--- `fn`'s verdict with the collectors on its own lines added (see collectByKey).
local function computeWithCollectors(fn, run)
  local found = compute(fn)
  if collectCount == 0 or cFunctions[fn] or ownFunctions[fn] then return found end
  local info = getinfo(fn, "S")
  local files = info and M.choose(collectByKey[paths.key(info.source)], info.source)
  if not files then return found end
  local active = getinfo(fn, "L")
  active = active and active.activelines
  for _, entry in ipairs(files) do
    for line, list in pairs(entry.lines) do
      local inside
      if active then
        inside = active[line] == true
      else
        inside = info.what == "main" or (line >= info.linedefined and line <= info.lastlinedefined)
      end
      if inside then
        found = found or {}
        local under = found[line]
        if under and under.kind == 3 then
          for _, c in ipairs(list) do under.collect[#under.collect + 1] = c end
        else
          local copy = {}
          for i, c in ipairs(list) do copy[i] = c end
          found[line] = { kind = 3, line = line, collect = copy, under = under, run = run }
        end
      end
    end
  end
  return found
end

--- The function that runs collectors (collect.hit), given by commands.lua when collectors come:
--- collect.lua is compiled only once a collector is set.
local runCollectors
function M.setCollectorRunner(run) runCollectors = run end

-- Verdicts that could not be computed (no C stack left, no memory) since the last report, and why
-- the last one could not (M.takeFailures).
local failures, lastFailure = 0, nil

--- How many verdicts could not be computed since the last call, and why the last one could not;
--- the count starts again.
function M.takeFailures()
  local taken = failures
  failures = 0
  return taken, lastFailure
end

function M.verdict(fn)
  if fn == nil then return false end
  local v = verdicts[fn]
  if v == nil then
    -- Computing allocates, so a GC step may run the heartbeat, which may read new breakpoints
    -- from the IDE: a verdict computed across such a change is stale and must not be cached.
    for _ = 1, 3 do
      local generation = M.generation
      local ok, computed = pcall(computeWithCollectors, fn, runCollectors)
      if not ok then
        -- Near the C-stack limit: no verdict this time (none is cached; the next call tries again).
        failures = failures + 1
        lastFailure = computed
        return false
      end
      v = computed
      if generation == M.generation then
        verdicts[fn] = v
        break
      end
    end
    -- A failed send is retried after the next verdict (the queue is kept until it is sent).
    if pendingCount > 0 and notifier then pcall(flush) end
    if flushFunctions then pcall(flushFunctions) end
  end
  return v
end

--- One line per breakpoint file, sorted: "key (full path): lines".
function M.describe()
  local out = {}
  for key, group in pairs(byKey) do
    for full, entry in pairs(group) do
      local ls = {}
      for line in pairs(entry.lines) do ls[#ls + 1] = line end
      table.sort(ls)
      out[#out + 1] = key .. " (" .. full .. "): " .. table.concat(ls, ", ")
    end
  end
  table.sort(out)
  return out
end

return M
