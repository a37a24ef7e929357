/*
 * chainhook.c: the hook of a thread where the program has set a hook of its own
 * (lua/luapanda/hookchain.lua). Installed as a C hook, it calls the runtime's Lua side for the
 * event and then the program's hook function itself, from the hook, as the debug library's own
 * C hook does: the program's hook is then the function the interpreter calls for the event, with
 * the same name ("hook" in 5.3/5.4), the same levels below it and no tail call.
 */
#include <string.h>

#include "luapanda_native.h"

/* The registry key of the weak-keyed table: thread (LuaJIT, whose hook is global, would use the
   key itself; the runtime does not install this hook there yet) -> the runtime's
   function for that thread's events. */
static const char chainKey = 0;

/* The debug library's names of the events (ldblib.c's hooknames, per interpreter). */
#if LUA_VERSION_NUM >= 502
static const char *const eventNames[] = {"call", "return", "line", "count", "tail call"};
#else
static const char *const eventNames[] = {"call", "return", "line", "count", "tail return"};
#endif

static void pushTable(lua_State *L) {
  lua_pushlightuserdata(L, (void *)&chainKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  if (lua_istable(L, -1)) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushlightuserdata(L, (void *)&chainKey);
  lua_pushvalue(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

/* Pushes the table's key for thread `L` (LuaJIT's one hook: one key). */
static void pushKey(lua_State *L) {
  if (lpn.isJIT)
    lua_pushlightuserdata(L, (void *)&chainKey);
  else
    lua_pushthread(L);
}

static void pushEvent(lua_State *L, lua_Debug *ar) {
  int event = ar->event;
  lua_pushstring(L, event >= 0 && event <= 4 ? eventNames[event] : "?");
  if (ar->currentline >= 0)
    lua_pushinteger(L, ar->currentline);
  else
    lua_pushnil(L);
}

/* The runtime's function returns the program's hook function when the program gets the event. */
static void chainHook(lua_State *L, lua_Debug *ar) {
  pushTable(L);
  pushKey(L);
  lua_rawget(L, -2);
  if (!lua_isfunction(L, -1)) return; /* (luaD_hook restores the stack) */
  pushEvent(L, ar);
  lua_call(L, 2, 1);
  if (!lua_isfunction(L, -1)) return;
  pushEvent(L, ar);
  lua_call(L, 2, 0);
}

static int maskOf(const char *s, int count) {
  int mask = 0;
  if (strchr(s, 'c')) mask |= LUA_MASKCALL;
  if (strchr(s, 'r')) mask |= LUA_MASKRET;
  if (strchr(s, 'l')) mask |= LUA_MASKLINE;
  if (count > 0) mask |= LUA_MASKCOUNT;
  return mask;
}

/* setchainhook(co|nil, fn, mask, count): `fn(event, line)` runs the runtime's side of each event
   and returns the program's hook function when the program gets it (nil otherwise). */
int lpn_setChainHook(lua_State *L) {
  lua_State *target = lua_isnoneornil(L, 1) ? L : lua_tothread(L, 1);
  const char *smask = luaL_checkstring(L, 3);
  int count = (int)luaL_optinteger(L, 4, 0);
  int mask;
  luaL_argcheck(L, target != NULL, 1, "thread expected");
  luaL_checktype(L, 2, LUA_TFUNCTION);
  mask = maskOf(smask, count);
  pushTable(L);
  if (lpn.isJIT)
    lua_pushlightuserdata(L, (void *)&chainKey);
  else if (target == L)
    lua_pushthread(L);
  else
    lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  lpn_busy++;
  if (mask == 0)
    lua_sethook(target, NULL, 0, 0);
  else
    lua_sethook(target, chainHook, mask, count > 0 ? count : 0);
  lpn.generation++;
  lpn_invalidateCache();
  lpn_busy--;
  lpn_afterBusy(L);
  return 0;
}
