/*
 * module.c: the Lua side of the native accelerator, `require("luapanda_native<abi>")` (abi 51 —
 * Lua 5.1 and LuaJIT —, 52, 53 or 54). The runtime (lua/luapanda/native.lua) loads it when
 * present and calls:
 *   install{verdicts=, own=, verdict=, hit=, poll=, sethook=, isJIT=}  once, before any hook
 *   sethook(co|nil, mode, count)       our C hook in a mode (-1: none) on a thread (nil: running)
 *   setluahook(co|nil, fn|nil, mask, count)  debug.sethook, but never racing our signal handler
 *   setchainhook(co|nil, fn, mask, count)    a thread's hook where the program has its own
 *                                      (chainhook.c): fn(event, line) is the runtime's side and
 *                                      returns the program's hook function to call, or nil
 *   setinside(bool)                    the runtime's own code runs (no events, no signals)
 *   running(co|nil)                    the thread that runs now (nil: the caller's)
 *   thread()                           the caller's thread, the main thread of 5.1/LuaJIT included
 *                                      (where coroutine.running() gives none)
 *   watch(fd) / unwatch()              the socket watcher (true, or nil and why)
 *   wake(ms) / unwake()                while no IDE is attached, a poll every ms milliseconds
 *                                      (true, or nil and why); watch() ends it
 *   upvalue(f, i)                      debug.getupvalue that reads C functions' upvalues too (Lua
 *                                      5.1's refuses): the search for coroutines made before
 *                                      the attach reaches a coroutine.wrap function's thread
 *   jitkick(on)                        LuaJIT: each poll signal also makes compiled code leave
 *                                      its trace, through the profiler just started (true/false)
 *   status()                           a table for LuaPanda.getInfo()/doctor()
 *   forget()                           the runtime's verdicts were emptied (breakpoints changed)
 *   setlinefilter(lines|nil)           {line -> true} of every line breakpoint: BELOW and INSIDE
 *                                      watch lines alone, filtered by number (nil: calls, returns
 *                                      and lines); takes effect as the runtime sets hooks anew
 *   follow(co|nil)                     LuaJIT: its one hook in the mode for that thread's stack
 *                                      (nil: the caller's), unless the line filter runs
 *   cfunction(fn)                      a C function that calls fn with its arguments: how the
 *                                      runtime's replacements of library functions look to the
 *                                      program like the C functions they replace
 *   coroutinefast(rawResume, known, MAIN, finish, after) -> makeResume, makeWrap
 *   resumestate(fast, trackRunning, follow)  see coresume.c
 * Only one Lua state of a process can install it at a time (the hook state is per process).
 */
#include <string.h>

#include "luapanda_native.h"

#if LUA_VERSION_NUM == 501
#define LPN_ABI 51
#elif LUA_VERSION_NUM == 502
#define LPN_ABI 52
#elif LUA_VERSION_NUM == 503
#define LPN_ABI 53
#elif LUA_VERSION_NUM == 504
#define LPN_ABI 54
#elif LUA_VERSION_NUM == 505
#define LPN_ABI 55
#else
#error "unsupported Lua version"
#endif
#define LPN_OPEN_(abi) luaopen_luapanda_native##abi
#define LPN_OPEN(abi) LPN_OPEN_(abi)

#if LUA_VERSION_NUM == 501
#define lpn_setfuncs(L, fns) luaL_register(L, NULL, fns)
#else
#define lpn_setfuncs(L, fns) luaL_setfuncs(L, fns, 0)
#endif

/* Marks the registry of the state that installed the hook. */
#define OWNER_KEY "luapanda_native.owner"

LpnState lpn = {.refOwner = LUA_NOREF,
                .refVerdicts = LUA_NOREF,
                .refOwn = LUA_NOREF,
                .refVerdictFn = LUA_NOREF,
                .refHitFn = LUA_NOREF,
                .refPollFn = LUA_NOREF,
                .refSethook = LUA_NOREF,
                .refLines = LUA_NOREF,
                .refRunning = LUA_NOREF,
                .refHandlerFn = LUA_NOREF,
                .jitMode = LPN_MODE_NONE};

static int isOwnerState(lua_State *L) {
  int mine;
  lua_getfield(L, LUA_REGISTRYINDEX, OWNER_KEY);
  mine = lua_touserdata(L, -1) == (void *)&lpn;
  lua_pop(L, 1);
  return mine;
}

static void requireInstalled(lua_State *L) {
  if (!lpn.installed || !isOwnerState(L)) luaL_error(L, "luapanda_native: not installed");
}

static int refField(lua_State *L, const char *name, int type, int old) {
  lua_getfield(L, 1, name);
  if (lua_type(L, -1) != type) {
    luaL_error(L, "luapanda_native.install: field '%s' must be a %s", name, lua_typename(L, type));
  }
  if (old != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, old);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

static int l_install(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (lpn.installed && !isOwnerState(L)) {
    lua_pushnil(L);
    lua_pushliteral(L, "another Lua state of this process uses the native module");
    return 2;
  }
  lpn.refVerdicts = refField(L, "verdicts", LUA_TTABLE, lpn.refVerdicts);
  lpn.refOwn = refField(L, "own", LUA_TTABLE, lpn.refOwn);
  lpn.refVerdictFn = refField(L, "verdict", LUA_TFUNCTION, lpn.refVerdictFn);
  lpn.refHitFn = refField(L, "hit", LUA_TFUNCTION, lpn.refHitFn);
  lpn.refPollFn = refField(L, "poll", LUA_TFUNCTION, lpn.refPollFn);
  lpn.refSethook = refField(L, "sethook", LUA_TFUNCTION, lpn.refSethook);
  lpn.refHandlerFn = refField(L, "handlerCall", LUA_TFUNCTION, lpn.refHandlerFn);
  lua_getfield(L, 1, "isJIT");
  lpn.isJIT = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (lpn.refLines == LUA_NOREF) {
    lua_pushboolean(L, 0);
    lpn.refLines = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  if (lpn.refOwner == LUA_NOREF) {
    /* A thread to arm when the one running is unknown: the main thread where we can name it. */
#if LUA_VERSION_NUM >= 502
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
#else
    lua_pushthread(L);
#endif
    lpn.owner = lua_tothread(L, -1);
    lpn.refOwner = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  if (lpn.refRunning == LUA_NOREF) {
    lua_pushthread(L);
    lpn_running = L;
    lpn.refRunning = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_pushlightuserdata(L, (void *)&lpn);
  lua_setfield(L, LUA_REGISTRYINDEX, OWNER_KEY);
  lpn.jitMode = LPN_MODE_NONE;
  lpn_invalidateCache();
  lpn_nobpClear();
  lpn_errfuncProbe(L);
  lpn.installed = 1;
  lua_pushboolean(L, 1);
  return 1;
}

static lua_State *threadArg(lua_State *L, int index) {
  if (lua_isnoneornil(L, index)) return L;
  luaL_checktype(L, index, LUA_TTHREAD);
  return lua_tothread(L, index);
}

static int l_sethook(lua_State *L) {
  lua_State *target;
  int mode, count;
  requireInstalled(L);
  target = threadArg(L, 1);
  mode = (int)luaL_checkinteger(L, 2);
  count = (int)luaL_optinteger(L, 3, 0);
  if (mode < LPN_MODE_NONE || mode > LPN_MODE_INSIDE) luaL_error(L, "invalid mode %d", mode);
  lpn_setMode(target, mode, count);
  lpn_afterBusy(L);
  return 0;
}

static int l_setluahook(lua_State *L) {
  int status, args;
  requireInstalled(L);
  lua_settop(L, 4);
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refSethook);
  if (lua_isnil(L, 1)) {
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    args = 3;
  } else {
    luaL_checktype(L, 1, LUA_TTHREAD);
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 4);
    args = 4;
  }
  if (lua_isnil(L, -3)) {
    lua_pop(L, 2); /* debug.sethook(co?, nil) removes the hook */
    args -= 2;
  }
  lpn_busy++;
  status = lua_pcall(L, args, 0, 0);
  lpn.generation++;
  lpn_invalidateCache();
  lpn_busy--;
  lpn_afterBusy(L);
  if (status != 0) return lua_error(L);
  return 0;
}

/* watchhandlers(on): report the calls of protected calls' message handlers (errfunc.c). Returns
   true, or false and why they cannot be read on this interpreter. */
static int l_watchhandlers(lua_State *L) {
  const char *problem;
  requireInstalled(L);
  if (lua_toboolean(L, 1)) lpn_errfuncProbe(L);
  problem = lpn_errfuncProblem();
  lpn.watchHandlers = lua_toboolean(L, 1) && problem == NULL;
  lua_pushboolean(L, problem == NULL);
  if (problem == NULL) return 1;
  lua_pushstring(L, problem);
  return 2;
}

static int l_setinside(lua_State *L) {
  int old = lpn_inside;
  int inside = lua_toboolean(L, 1);
  lpn_inside = inside;
  lpn_watchQuiet(inside);
  if (!inside) lpn_afterBusy(L);
  lua_pushboolean(L, old);
  return 1;
}

static int l_running(lua_State *L) {
  lua_State *thread = threadArg(L, 1);
  if (!lpn.installed || lpn.refRunning == LUA_NOREF) return 0;
  if (thread == L)
    lua_pushthread(L);
  else
    lua_pushvalue(L, 1);
  lpn_running = thread; /* the old one stays referenced until the next line replaces it */
  lua_rawseti(L, LUA_REGISTRYINDEX, lpn.refRunning);
  return 0;
}

static int l_thread(lua_State *L) {
  lua_pushthread(L);
  return 1;
}

static int l_wake(lua_State *L) {
  const char *why = "unknown";
  int ms = (int)luaL_checkinteger(L, 1);
  requireInstalled(L);
  if (!lpn_wakeStart(ms, &why)) {
    lpn.waking = 0;
    lua_pushnil(L);
    lua_pushstring(L, why);
    return 2;
  }
  lpn.waking = 1;
  lua_pushboolean(L, 1);
  return 1;
}

static void stopWaking(lua_State *L) {
  lpn_wakeStop();
  if (!lpn.waking) return;
  lpn.waking = 0;
  /* A count armed by a signal that has not fired yet would stay as a poll nobody asked for. */
  if (!lpn.watching) {
    lpn_pollRequested = 0;
    lpn_disarm(L);
    if (lpn.owner != L) lpn_disarm(lpn.owner);
  }
}

static int l_upvalue(lua_State *L) {
  const char *name;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  name = lua_getupvalue(L, 1, (int)luaL_checkinteger(L, 2));
  if (name == NULL) return 0;
  lua_pushstring(L, name);
  lua_insert(L, -2);
  return 2;
}

static int l_jitkick(lua_State *L) {
  requireInstalled(L);
  if (lua_toboolean(L, 1)) {
    lua_pushboolean(L, lpn.isJIT && lpn_kickStart());
  } else {
    lpn_kickStop();
    lua_pushboolean(L, 0);
  }
  return 1;
}

static int l_unwake(lua_State *L) {
  stopWaking(L);
  return 0;
}

static int l_watch(lua_State *L) {
  const char *why = "unknown";
  int fd = (int)luaL_checkinteger(L, 1);
  requireInstalled(L);
  stopWaking(L);
  if (!lpn_watchStart(fd, &why)) {
    lpn.watching = 0;
    lua_pushnil(L);
    lua_pushstring(L, why);
    return 2;
  }
  lpn.watching = 1;
  lua_pushboolean(L, 1);
  return 1;
}

static int l_unwatch(lua_State *L) {
  lpn_watchStop();
  lpn.watching = 0;
  lpn_pollRequested = 0;
  lpn_disarm(L);
  if (lpn_running != L) lpn_disarm(lpn_running);
  if (lpn.owner != L && lpn.owner != lpn_running) lpn_disarm(lpn.owner);
  return 0;
}

static void setNumber(lua_State *L, const char *name, double value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, name);
}

static int l_status(lua_State *L) {
  const char *problem = lpn_watchProblem();
  lua_createtable(L, 0, 12);
  lua_pushboolean(L, lpn.installed && isOwnerState(L));
  lua_setfield(L, -2, "installed");
  lua_pushboolean(L, lpn.watching && lpn_watchActive());
  lua_setfield(L, -2, "watching");
  lua_pushstring(L, lpn.watching ? lpn_watchKind() : "none");
  lua_setfield(L, -2, "watcher");
  if (problem) {
    lua_pushstring(L, problem);
    lua_setfield(L, -2, "watchProblem");
  }
  setNumber(L, "abi", LPN_ABI);
  setNumber(L, "apiVersion", LPN_API_VERSION);
  setNumber(L, "signals", (double)lpn_watchSignals());
  lua_pushboolean(L, lpn.waking && lpn_wakeActive());
  lua_setfield(L, -2, "waking");
  setNumber(L, "wakeSignals", (double)lpn_wakeSignals());
  setNumber(L, "polls", (double)lpn.polls);
  setNumber(L, "verdictCalls", (double)lpn.verdictCalls);
  setNumber(L, "hits", (double)lpn.hits);
  setNumber(L, "callbackErrors", (double)lpn.callbackErrors);
  lua_pushstring(L, lpn_callReads());
  lua_setfield(L, -2, "callReads");
  setNumber(L, "resumesInC", (double)lpn.resumesInC);
  setNumber(L, "resumesInLua", (double)lpn.resumesInLua);
  lua_pushboolean(L, lpn.watchHandlers);
  lua_setfield(L, -2, "watchingHandlers");
  lua_pushstring(L, lpn_errfuncProblem() ? lpn_errfuncProblem() : "read");
  lua_setfield(L, -2, "messageHandlers");
  setNumber(L, "handlerCalls", (double)lpn.handlerCalls);
  return 1;
}

/* When the Lua state closes: stop the thread and give SIGURG back before the library unloads,
   and take our hook off the closing thread (its code is about to be unmapped). */
static int l_collect(lua_State *L) {
  if (lpn.installed && isOwnerState(L)) {
    if (lua_gethook(L) == lpn_hook) lua_sethook(L, NULL, 0, 0);
    if (lpn.owner && lua_gethook(lpn.owner) == lpn_hook) lua_sethook(lpn.owner, NULL, 0, 0);
    lpn_watchStop();
    lpn_wakeStop();
    lpn_kickStop();
    lpn.watching = 0;
    lpn.waking = 0;
    lpn.watchHandlers = 0;
    lpn.installed = 0;
    lpn_running = NULL;
    lpn.owner = NULL;
    lpn.refOwner = lpn.refVerdicts = lpn.refOwn = lpn.refVerdictFn = lpn.refHitFn = lpn.refPollFn =
        lpn.refSethook = lpn.refLines = lpn.refRunning = lpn.refHandlerFn = LUA_NOREF;
    lpn_signalRestore();
    lpn_nobpRelease(L);
  }
  return 0;
}

static int l_setlinefilter(lua_State *L) {
  requireInstalled(L);
  memset(lpn.filterBits, 0, sizeof lpn.filterBits);
  lpn.filterHigh = 0;
  lpn.filterOn = 0;
  lpn.filterTick = LPN_FILTER_TICK;
  if (lua_isnoneornil(L, 1)) return 0;
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, 1) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TNUMBER) {
      lua_Number n = lua_tonumber(L, -1);
      if (n >= 0 && n < LPN_FILTER_LINES) {
        int line = (int)n;
        lpn.filterBits[line >> 3] |= (unsigned char)(1u << (line & 7));
      } else {
        lpn.filterHigh = 1;
      }
    }
  }
  lpn.filterOn = 1;
  return 0;
}

static int l_follow(lua_State *L) {
  requireInstalled(L);
  lpn_followThread(L, threadArg(L, 1));
  return 0;
}

static int l_forget(lua_State *L) {
  (void)L;
  lpn_nobpClear();
  return 0;
}

/* The C face of a runtime replacement (upvalue 1: its Lua implementation). */
static int trampoline(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static int l_cfunction(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushcclosure(L, trampoline, 1);
  return 1;
}

static const luaL_Reg functions[] = {{"install", l_install},
                                     {"sethook", l_sethook},
                                     {"setluahook", l_setluahook},
                                     {"setchainhook", lpn_setChainHook},
                                     {"setinside", l_setinside},
                                     {"watchhandlers", l_watchhandlers},
                                     {"running", l_running},
                                     {"thread", l_thread},
                                     {"watch", l_watch},
                                     {"unwatch", l_unwatch},
                                     {"wake", l_wake},
                                     {"unwake", l_unwake},
                                     {"jitkick", l_jitkick},
                                     {"upvalue", l_upvalue},
                                     {"status", l_status},
                                     {"cfunction", l_cfunction},
                                     {"forget", l_forget},
                                     {"setlinefilter", l_setlinefilter},
                                     {"follow", l_follow},
                                     {"coroutinefast", lpn_coroutineFast},
                                     {"resumestate", lpn_resumeState},
                                     {NULL, NULL}};

#if defined(_WIN32)
#define LPN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__)
#define LPN_EXPORT __attribute__((visibility("default")))
#else
#define LPN_EXPORT
#endif

LPN_EXPORT int LPN_OPEN(LPN_ABI)(lua_State *L) {
  lua_newtable(L);
  lpn_setfuncs(L, functions);
  lua_pushinteger(L, LPN_API_VERSION);
  lua_setfield(L, -2, "apiVersion");
  lua_pushinteger(L, LPN_ABI);
  lua_setfield(L, -2, "abi");
  /* A sentinel whose finalizer runs when the state closes (before the library is unloaded: Lua
     finalizes in reverse order of creation, and the library handle predates it). */
  lua_newuserdata(L, 1);
  lua_newtable(L);
  lua_pushcfunction(L, l_collect);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}
