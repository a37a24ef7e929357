-- luacheck configuration (`npm run lint:lua`, part of `npm run lint`). The runtime runs unchanged
-- on Lua 5.1–5.4 and LuaJIT and picks what each offers at run time (setfenv or _ENV, unpack or
-- table.unpack, jit, bit, ...), so it is checked against the union of their standard libraries.
std = "max"

-- Long comments and tables of report fields are kept on one line where that reads better; the
-- code has no agreed limit to hold.
max_line_length = false

-- An empty branch that holds only a comment documents a case on purpose (hook.lua).
ignore = { "542" }

exclude_files = {
  "node_modules/",
  "out/",
  "dist/",
  ".test-artifacts/",
  ".e2e-cache/",
  ".vscode-test/",
  ".interpreters/",
  -- Debuggee programs of the tests: many are odd on purpose (globals, undefined names, syntax
  -- errors, CRLF, unused values the debugger shows); the tests that run them are their check.
  "test/fixtures/",
  "test/scenarios/",
  "test/extension/fixtures/",
}

-- Type definitions for the Lua language server (LuaLS `---@meta`): stubs of the global
-- `LuaPanda` whose parameters exist to be documented, never run.
files["lua/LuaPanda.meta.lua"] = {
  globals = { "LuaPanda" },
  unused_args = false,
}

-- The loop counter is there to be seen in the debugger (a breakpoint condition on `frame`).
files["examples/game/main.lua"] = { ignore = { "213/frame" } }

-- The attach bench's engine game: the host calls `Update` and resumes `Jobs` from C, reads `Quit`,
-- and the bench ends the game by setting `running` through the debugger.
files["bench/engine/boot.lua"] = { globals = { "Update", "Jobs", "Quit", "running" } }
