/*
 * coresume.c: the common case of the coroutine wrappers (lua/luapanda/coroutines.lua) in C.
 *
 * While an IDE is attached every coroutine.resume and every call of a coroutine.wrap function
 * goes through the runtime, which records who resumed whom (the resumer chain of a stop) and
 * tells the watcher which thread runs. Done in Lua that bookkeeping costs a game more than
 * everything else the idle runtime does (two resumes per frame: about a tenth of a LuaJIT frame).
 * Here it is a few table writes around the interpreter's own resume. LuaJIT's one hook follows
 * the thread that runs while breakpoints exist: set here too (hook.c, lpn_followThread). Whatever
 * else a resume may need — a step to hand over, a coroutine that died, hooks changed while it ran
 * — the Lua side says so (resumestate) or the result shows it, and the Lua implementation does it:
 * before the resume by running instead of this, after it by finishing in Lua.
 *
 * The frames are those of the Lua path: the program's caller, this C function where the Lua path
 * has its C face (module.c's trampoline), and for the finishing work a Lua function standing
 * where the Lua implementation stands (coroutines.lua relies on these levels).
 */
#include "luapanda_native.h"

static int fastAllowed = 0;  /* the Lua side says: bookkeeping only */
static int trackRunning = 0; /* tell the watcher which thread runs (PUC Lua with the watcher) */
static int follow = 0; /* LuaJIT with breakpoints: its hook's mode follows the thread that runs */
static unsigned long generation = 0; /* bumped by every resumestate: hooks may have changed */

/* Calls the Lua implementation (upvalue 1) with every argument, as module.c's trampoline. */
static int luaPath(lua_State *L) {
  lpn.resumesInLua++;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* coroutine.status(co) == "dead", by the interpreter's own rules (co is never the caller). */
static int isDead(lua_State *co) {
  lua_Debug ar;
  int status = lua_status(co);
  if (status == LUA_YIELD) return 0;
  if (status != 0) return 1;
  if (lua_getstack(co, 0, &ar) > 0) return 0;
  return lua_gettop(co) == 0;
}

/* coroutine.status(co) == "suspended": a resume can run it. */
static int isSuspended(lua_State *co) {
  lua_Debug ar;
  int status = lua_status(co);
  if (status == LUA_YIELD) return 1;
  if (status != 0 || lua_getstack(co, 0, &ar) > 0) return 0;
  return lua_gettop(co) > 0;
}

static void setRunning(lua_State *L, lua_State *thread, int threadIndex) {
  if (!trackRunning || !lpn.installed || lpn.refRunning == LUA_NOREF) return;
  lpn_running = thread; /* the previous one stays referenced until the next line replaces it */
  if (threadIndex)
    lua_pushvalue(L, threadIndex);
  else
    lua_pushthread(L);
  lua_rawseti(L, LUA_REGISTRYINDEX, lpn.refRunning);
}

/*
 * The bookkeeping before a resume, with the entry (coroutines.lua's known[co]) at entryIndex:
 * returns 0 (nothing pushed) when the Lua path must run instead, else pushes the resumer's key
 * (compat.currentThread's: the MAIN sentinel, upvalue mainUpvalue, for the main thread) and sets
 * entry.by/byHandle. The handle is the resuming thread itself, the main thread of 5.1/LuaJIT
 * included: coroutine.running() gives the program none there, but the debug library reads the
 * main thread's frames through it, so a stop inside the coroutine shows them, variables and all.
 * The field names "by" and "byHandle" are the closure's upvalues keyUpvalue and keyUpvalue + 1:
 * raw accesses with them cost a resume less than lua_getfield/lua_setfield, which look each name
 * up among the interned strings every time (the entries have no metatable).
 */
static int beginResume(lua_State *L, int entryIndex, int mainUpvalue, int keyUpvalue) {
  int isMain;
  lua_pushvalue(L, lua_upvalueindex(keyUpvalue));
  lua_rawget(L, entryIndex);
  if (!lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0; /* running, or resuming another: the Lua path gives the interpreter's answer */
  }
  lua_pop(L, 1);
  isMain = lua_pushthread(L);
  if (isMain) {
    lua_pushvalue(L, lua_upvalueindex(mainUpvalue));
  } else {
    lua_pushvalue(L, -1);
  }
  lua_pushvalue(L, lua_upvalueindex(keyUpvalue));
  lua_pushvalue(L, -2);
  lua_rawset(L, entryIndex); /* by = the key */
  lua_pushvalue(L, lua_upvalueindex(keyUpvalue + 1));
  lua_pushvalue(L, -3);
  lua_rawset(L, entryIndex); /* byHandle = the thread */
  lua_remove(L, -2);         /* the thread: only the key stays */
  return 1;
}

static void endResume(lua_State *L, int entryIndex, int keyUpvalue) {
  lua_pushvalue(L, lua_upvalueindex(keyUpvalue));
  lua_pushnil(L);
  lua_rawset(L, entryIndex);
  lua_pushvalue(L, lua_upvalueindex(keyUpvalue + 1));
  lua_pushnil(L);
  lua_rawset(L, entryIndex);
}

/* Calls the interpreter's resume (upvalue rawUpvalue) on the thread at coIndex with the `nargs`
   values at firstArg; returns how many results it left on the top (ok first). */
static int rawResume(lua_State *L, int rawUpvalue, int coIndex, int firstArg, int nargs) {
  int i, before;
  luaL_checkstack(L, nargs + 2, "too many arguments to resume");
  before = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(rawUpvalue));
  lua_pushvalue(L, coIndex);
  for (i = 0; i < nargs; i++) lua_pushvalue(L, firstArg + i);
  lua_call(L, nargs + 1, LUA_MULTRET);
  return lua_gettop(L) - before;
}

/*
 * The resume itself, as the interpreter's coroutine.resume does it (lcorolib.c's auxresume), from
 * this C function: calling that function instead would stand one more C frame on the resumer's
 * stack, which the collector shrinks again at every cycle; the stack reallocations that follow
 * cost a game loop more than all the bookkeeping. A coroutine that is not suspended, or arguments
 * its stack cannot take, go to the interpreter's function for its own message.
 */
static int resume(lua_State *L, int rawUpvalue, int coIndex, lua_State *co, int firstArg,
                  int nargs) {
  int i, status, nres;
  if (!isSuspended(co) || !lua_checkstack(co, nargs) || !lua_checkstack(L, nargs + 1))
    return rawResume(L, rawUpvalue, coIndex, firstArg, nargs);
  for (i = 0; i < nargs; i++) lua_pushvalue(L, firstArg + i);
  lua_xmove(L, co, nargs);
#if LUA_VERSION_NUM >= 504
  status = lua_resume(co, L, nargs, &nres);
#elif LUA_VERSION_NUM >= 502
  status = lua_resume(co, L, nargs);
  nres = lua_gettop(co);
#else
  status = lua_resume(co, nargs);
  nres = lua_gettop(co);
#endif
  if (status == 0 || status == LUA_YIELD) {
    if (!lua_checkstack(L, nres + 1)) {
      lua_pop(co, nres);
#if LUA_VERSION_NUM >= 503
      lua_pushboolean(L, 0);
      lua_pushliteral(L, "too many results to resume");
      return 2;
#else
      return luaL_error(L, "too many results to resume");
#endif
    }
    lua_pushboolean(L, 1);
    lua_xmove(co, L, nres);
    return nres + 1;
  }
  lua_pushboolean(L, 0);
  lua_xmove(co, L, 1); /* the error */
  return 2;
}

/*
 * Hands the rest to a Lua function (upvalue fnUpvalue) called with the values pushed by the
 * caller below the `nres` results, which are copied after them; returns what it returns.
 */
static int finishInLua(lua_State *L, int fnUpvalue, int firstResult, int nres, int nfixed) {
  int i, base;
  luaL_checkstack(L, nres + 2, "too many results to resume");
  base = lua_gettop(L) - nfixed;
  lua_pushvalue(L, lua_upvalueindex(fnUpvalue));
  lua_insert(L, base + 1);
  for (i = 0; i < nres; i++) lua_pushvalue(L, firstResult + i);
  lua_call(L, nfixed + nres, LUA_MULTRET);
  return lua_gettop(L) - base;
}

/*
 * coroutine.resume. Upvalues: 1 the Lua implementation, 2 the interpreter's resume, 3 the known
 * table (thread -> entry), 4 MAIN, 5 finish(co, entry, key, changed, ok, ...), 6 and 7 "by" and
 * "byHandle".
 */
static int fastResume(lua_State *L) {
  lua_State *co;
  int nargs, entry, key, first, nres;
  unsigned long before;
  if (!fastAllowed || lua_type(L, 1) != LUA_TTHREAD) return luaPath(L);
  co = lua_tothread(L, 1);
  nargs = lua_gettop(L) - 1;
  luaL_checkstack(L, 8, "too many arguments to resume");
  lua_pushvalue(L, 1);
  lua_rawget(L, lua_upvalueindex(3));
  entry = lua_gettop(L);
  if (!lua_istable(L, entry) || !beginResume(L, entry, 4, 6)) {
    lua_settop(L, nargs + 1);
    return luaPath(L);
  }
  key = lua_gettop(L);
  before = generation;
  if (follow) lpn_followThread(L, co);
  setRunning(L, co, 1);
  nres = resume(L, 2, 1, co, 2, nargs);
  first = key + 1;
  setRunning(L, L, 0);
  if (follow) lpn_followThread(L, L);
  endResume(L, entry, 6);
  if (lua_toboolean(L, first) && before == generation && !isDead(co)) {
    lpn.resumesInC++;
    return nres;
  }
  lpn.resumesInLua++;
  lua_pushvalue(L, 1);
  lua_pushvalue(L, entry);
  lua_pushvalue(L, key);
  lua_pushboolean(L, before != generation);
  return finishInLua(L, 5, first, nres, 4);
}

/*
 * A coroutine.wrap function. Upvalues: 1 the Lua implementation, 2 its thread, 3 its entry,
 * 4 the interpreter's resume, 5 MAIN, 6 after(co, entry, key, changed, bodyRan, buf, ok, ...),
 * 7 buf (the implementation's own), 8 and 9 "by" and "byHandle".
 */
static int fastWrap(lua_State *L) {
  lua_State *co;
  int nargs, key, first, nres, bodyRan = 0;
  unsigned long before;
  if (!fastAllowed) return luaPath(L);
  co = lua_tothread(L, lua_upvalueindex(2));
  nargs = lua_gettop(L);
  luaL_checkstack(L, 8, "too many arguments to resume");
  if (!beginResume(L, lua_upvalueindex(3), 5, 8)) return luaPath(L);
  key = lua_gettop(L);
#if LUA_VERSION_NUM >= 504
  bodyRan = isSuspended(co); /* 5.4 closes a coroutine that raised, once its body has run */
#endif
  before = generation;
  if (follow) lpn_followThread(L, co);
  setRunning(L, co, lua_upvalueindex(2));
  nres = resume(L, 4, lua_upvalueindex(2), co, 1, nargs);
  first = key + 1;
  setRunning(L, L, 0);
  if (follow) lpn_followThread(L, L);
  endResume(L, lua_upvalueindex(3), 8);
  if (lua_toboolean(L, first) && before == generation && !isDead(co)) {
    lpn.resumesInC++;
    return nres - 1;
  }
  lpn.resumesInLua++;
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_pushvalue(L, key);
  lua_pushboolean(L, before != generation);
  lua_pushboolean(L, bodyRan);
  lua_pushvalue(L, lua_upvalueindex(7));
  return finishInLua(L, 6, first, nres, 6);
}

/* makeResume(impl) -> coroutine.resume's replacement (upvalues of this maker: 2..7 above). */
static int makeResume(lua_State *L) {
  int i;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  for (i = 1; i <= 6; i++) lua_pushvalue(L, lua_upvalueindex(i));
  lua_pushcclosure(L, fastResume, 7);
  return 1;
}

/* makeWrap(impl, co, entry, buf) -> the wrap function (maker upvalues: raw resume, MAIN, after,
   "by", "byHandle"). */
static int makeWrap(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_checktype(L, 2, LUA_TTHREAD);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  lua_settop(L, 4);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, lua_upvalueindex(3));
  lua_pushvalue(L, lua_upvalueindex(5));
  lua_pushvalue(L, 4);
  lua_pushvalue(L, lua_upvalueindex(6));
  lua_pushvalue(L, lua_upvalueindex(7));
  lua_pushcclosure(L, fastWrap, 9);
  return 1;
}

/*
 * coroutinefast(rawResume, known, MAIN, finish, after) -> makeResume, makeWrap. The makers keep
 * what every function they make needs.
 */
int lpn_coroutineFast(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TFUNCTION);
  luaL_checktype(L, 5, LUA_TFUNCTION);
  lua_settop(L, 5);
  lua_pushliteral(L, "by");
  lua_pushliteral(L, "byHandle");
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 4);
  lua_pushvalue(L, 6);
  lua_pushvalue(L, 7);
  lua_pushcclosure(L, makeResume, 6);
  lua_pushvalue(L, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 4);
  lua_pushvalue(L, 5);
  lua_pushvalue(L, 6);
  lua_pushvalue(L, 7);
  lua_pushcclosure(L, makeWrap, 7);
  return 2;
}

/*
 * resumestate(fast, trackRunning, follow): what the hooks now need of a resume. Every call also
 * tells a resume running meanwhile to finish in Lua (its hooks may have changed).
 */
int lpn_resumeState(lua_State *L) {
  fastAllowed = lua_toboolean(L, 1);
  trackRunning = lua_toboolean(L, 2);
  follow = lua_toboolean(L, 3);
  generation++;
  return 0;
}
