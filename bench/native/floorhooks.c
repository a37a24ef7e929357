/*
 * floorhooks.c: hooks that do nothing, for the game-loop bench's floor rows (bench/gameLoop.ts).
 * They measure what any debugger that hooks like ours must pay, whatever it does in its hook:
 * the interpreter's cost of calling a C hook on every call, on every call reading the called
 * function (what a per-function breakpoint verdict needs), on every line (what a line filter in C
 * would pay), and on every call, return and line.
 * Built by scripts/build-floorhooks.mjs for the bench only; never shipped.
 *
 *   require("floorhooks").sethook(kind)  kind: "call" | "callf" | "lineOnly" | "line" | other: off
 * The hook is set on the calling thread; coroutines created afterwards inherit it.
 */
#include <string.h>

#include "lauxlib.h"
#include "lua.h"

static void emptyHook(lua_State *L, lua_Debug *ar) {
  (void)L;
  (void)ar;
}

static void functionHook(lua_State *L, lua_Debug *ar) {
  if (lua_getinfo(L, "f", ar)) lua_pop(L, 1);
}

static int sethook(lua_State *L) {
  const char *kind = luaL_checkstring(L, 1);
  if (strcmp(kind, "call") == 0)
    lua_sethook(L, emptyHook, LUA_MASKCALL, 0);
  else if (strcmp(kind, "callf") == 0)
    lua_sethook(L, functionHook, LUA_MASKCALL, 0);
  else if (strcmp(kind, "lineOnly") == 0)
    lua_sethook(L, emptyHook, LUA_MASKLINE, 0);
  else if (strcmp(kind, "line") == 0)
    lua_sethook(L, emptyHook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE, 0);
  else
    lua_sethook(L, NULL, 0, 0);
  return 0;
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int luaopen_floorhooks(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, sethook);
  lua_setfield(L, -2, "sethook");
  return 1;
}
