/*
 * hook.c: the C debug hook. It keeps the mode state machine of lua/luapanda/hook.lua (see the
 * mode constants in luapanda_native.h) with the mode held in the thread's hook mask (LuaJIT: one
 * global mode, its hook being global), looks functions up in the runtime's weak-keyed verdict
 * table (so a collected closure can never lend its verdict to another), and calls into Lua only
 * to compute a verdict not cached yet, when a breakpoint line is reached, or to poll the IDE.
 * Nothing here allocates on the way that finds nothing to do.
 */
#include "luapanda_native.h"
#include "callframe.h"

volatile sig_atomic_t lpn_busy = 0;
volatile sig_atomic_t lpn_pollRequested = 0;
volatile sig_atomic_t lpn_inside = 0;
lua_State *volatile lpn_running = NULL;

#define LPN_MASK_LCR (LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE)

#if defined(__GNUC__)
#define LPN_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define LPN_LIKELY(x) (x)
#endif

/*
 * The called function's address without lua_getinfo (callframe.h, per interpreter), trusted only
 * after VERIFY_CALLS calls on which it agreed with lua_getinfo, and never again after one on which
 * it did not.
 */
#define VERIFY_CALLS 256
static int layoutAgreed = 0; /* calls on which it agreed; -1: it disagreed once */

/* For status(): "direct" (trusted), "checking", "getinfo" (it disagreed). */
const char *lpn_callReads(void) {
  if (layoutAgreed < 0) return "getinfo";
  return layoutAgreed >= VERIFY_CALLS ? "direct" : "checking";
}

int lpn_maskFor(int mode) {
  switch (mode) {
    case LPN_MODE_ELSEWHERE:
      return LUA_MASKCALL;
    case LPN_MODE_BELOW:
      /* The line filter: lines alone (see lpn_hook). */
      if (lpn.filterOn) return LUA_MASKLINE;
      /* LuaJIT drops return events of fast functions (pcall, select, ...): below a function with
         breakpoints it takes line events too, and each checks its own function. */
      return lpn.isJIT ? LPN_MASK_LCR : (LUA_MASKCALL | LUA_MASKRET);
    case LPN_MODE_INSIDE:
      return lpn.filterOn ? LUA_MASKLINE : LPN_MASK_LCR;
    default:
      return 0;
  }
}

static int modeOf(lua_State *L) {
  int mask;
  if (lpn.isJIT) return lpn.jitMode;
  mask = lua_gethookmask(L);
  if (mask & LUA_MASKLINE) return LPN_MODE_INSIDE;
  if (mask & LUA_MASKRET) return LPN_MODE_BELOW;
  if (mask & LUA_MASKCALL) return LPN_MODE_ELSEWHERE;
  return LPN_MODE_NONE;
}

void lpn_invalidateCache(void) {
  lpn.cacheValid = 0;
  lpn.cacheL = NULL;
}

/* Changes the running thread's mode from inside the hook; a pending count (poll) is kept. */
static void switchMode(lua_State *L, int mode) {
  int old = lua_gethookmask(L);
  int mask = lpn_maskFor(mode) | (old & LUA_MASKCOUNT);
  if (lpn.isJIT) lpn.jitMode = mode;
  if (mask == old) return; /* LuaJIT: BELOW and INSIDE share a mask */
  if (mask == 0)
    lua_sethook(L, NULL, 0, 0);
  else
    lua_sethook(L, lpn_hook, mask, (old & LUA_MASKCOUNT) ? lua_gethookcount(L) : 0);
}

/*
 * The verdict of the function on top of the stack, which is popped: returns 1 and pushes its
 * {line -> breakpoint} table when it holds breakpoints, else returns 0 and pushes nothing.
 */
static int verdictOf(lua_State *L) {
  int type;
  if (lpn_nobpHas(lua_topointer(L, -1))) {
    lua_pop(L, 1);
    return 0;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refVerdicts); /* fn V */
  lua_pushvalue(L, -2);                               /* fn V fn */
  lua_rawget(L, -2);                                  /* fn V v */
  type = lua_type(L, -1);
  if (type == LUA_TTABLE) {
    lua_replace(L, -3); /* v V */
    lua_pop(L, 1);
    return 1;
  }
  if (type != LUA_TNIL) {
    lua_pop(L, 3);
    return 0;
  }
  lua_pop(L, 2); /* fn */
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  /* Not seen since the breakpoints last changed: breakpoints.verdict computes and caches it. */
  lpn.verdictCalls++;
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refVerdictFn);
  lua_insert(L, -2);
  if (lua_pcall(L, 1, 1, 0) != 0) {
    lpn.callbackErrors++;
    lua_pop(L, 1);
    return 0;
  }
  if (lua_type(L, -1) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}

/* LuaJIT: whether the function at `index` is one of the runtime's own (see hook.lua). */
static int isOwn(lua_State *L, int index) {
  int own;
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refOwn);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  own = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return own;
}

/* Copies the lines table on top of the stack (kept there) into the C array. */
static void buildLines(lua_State *L) {
  int count = 0;
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    lua_pop(L, 1);
    if (count < 0) continue;
    if (count == LPN_LINES_MAX || lua_type(L, -1) != LUA_TNUMBER) {
      count = -1;
      continue;
    }
    lpn.lines[count++] = (int)lua_tointeger(L, -1);
  }
  lpn.lineCount = count;
}

/* Remembers what runs in (L, ci); with `has`, pops the lines table from the top. */
static void cacheSet(lua_State *L, intptr_t ci, int has) {
  if (has) {
    const void *table = lua_topointer(L, -1);
    if (table != lpn.linesTable) {
      /* registry[refLines] keeps the table alive, so its address cannot name another table. */
      buildLines(L);
      lpn.linesTable = table;
      lua_rawseti(L, LUA_REGISTRYINDEX, lpn.refLines);
    } else {
      lua_pop(L, 1);
    }
  }
  lpn.cacheL = L;
  lpn.cacheCi = ci;
  lpn.cacheHas = has;
  lpn.cacheValid = 1;
}

static void callLua(lua_State *L, int ref) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  if (lua_pcall(L, 0, 0, 0) != 0) {
    lpn.callbackErrors++;
    lua_pop(L, 1);
  }
  /* The runtime may have stopped, changed breakpoints or hooks: trust nothing cached. */
  lpn_invalidateCache();
}

static void doPoll(lua_State *L) {
  lpn_pollRequested = 0;
  lpn.polls++;
  callLua(L, lpn.refPollFn);
  if (lpn.watching) lpn_watchAck();
}

/* A verdict computed in Lua may have let the runtime read new breakpoints (a GC step runs the
   heartbeat), and then it has set every hook anew: this event must change nothing more. */
#define LPN_STALE(generation) (lpn.generation != (generation))

static void onCall(lua_State *L, lua_Debug *ar) {
  int top = lua_gettop(L);
  unsigned long generation = lpn.generation;
  int has, isC, mode;
  if (!lua_getinfo(L, "f", ar)) return;
  isC = lua_iscfunction(L, -1);
  if (lpn.isJIT) lua_pushvalue(L, -1); /* keep the function for the own check */
  has = verdictOf(L);
  if (LPN_STALE(generation)) {
    lua_settop(L, top);
    return;
  }
  if (lpn.isJIT && !has && isOwn(L, top + 1)) {
    /* The coroutine wrappers set the mode of the thread they resume; their calls must not. */
    lua_settop(L, top);
    return;
  }
  mode = modeOf(L);
  lpn.entryArmed = 0;
  if (has) {
    /* [0]: a function breakpoint, which fires at this call's first line event. */
    lua_rawgeti(L, -1, 0);
    if (!lua_isnil(L, -1)) {
      lpn.entryArmed = 1;
      lpn.entryL = L;
      lpn.entryCi = LPN_CI_KEY(ar);
    }
    lua_pop(L, 1);
    if (mode != LPN_MODE_INSIDE) switchMode(L, LPN_MODE_INSIDE);
    cacheSet(L, LPN_CI_KEY(ar), 1);
  } else {
    /* A C function runs no lines; if it calls Lua code, that call event decides. */
    if (mode == LPN_MODE_INSIDE && !isC) switchMode(L, LPN_MODE_BELOW);
    cacheSet(L, LPN_CI_KEY(ar), 0);
  }
  lua_settop(L, top);
}

static void onReturn(lua_State *L, lua_Debug *ar) {
  int top = lua_gettop(L);
  unsigned long generation = lpn.generation;
  int level, mode, has;
  lua_Debug frame;
  lpn_invalidateCache();
  if (lpn.isJIT) {
    int own;
    if (!lua_getinfo(L, "f", ar)) return;
    lua_pushvalue(L, -1);
    if (verdictOf(L)) lua_pop(L, 1); /* computes (and so classifies) the returning function */
    own = isOwn(L, top + 1);
    lua_settop(L, top);
    if (own || LPN_STALE(generation)) return;
  }
  /* Where execution lands. (5.1: a frame a tail call replaced is a level without a function;
     the landing frame is below it.) */
  for (level = 1;; level++) {
    if (!lua_getstack(L, level, &frame) || !lua_getinfo(L, "f", &frame)) {
      lua_settop(L, top);
      return;
    }
    if (!lua_isnil(L, -1)) break;
    lua_pop(L, 1);
  }
  mode = modeOf(L);
  has = verdictOf(L);
  if (LPN_STALE(generation)) {
    lua_settop(L, top);
    return;
  }
  if (has) {
    /* The caller's line events will carry the activation record lua_getstack named (not so in
       LuaJIT, whose numbering differs: there the first line event looks it up). */
    if (lpn.isJIT)
      lua_pop(L, 1);
    else
      cacheSet(L, LPN_CI_KEY(&frame), 1);
    lua_settop(L, top);
    if (mode != LPN_MODE_INSIDE) switchMode(L, LPN_MODE_INSIDE);
    return;
  }
  if (!lpn.isJIT) cacheSet(L, LPN_CI_KEY(&frame), 0);
  if (mode != LPN_MODE_INSIDE) return;
  /* Leaving a function with breakpoints: does one further down hold breakpoints? */
  for (level = level + 1; lua_getstack(L, level, &frame); level++) {
    if (!lua_getinfo(L, "f", &frame)) break;
    has = verdictOf(L);
    lua_settop(L, top);
    if (LPN_STALE(generation)) return;
    if (has) {
      switchMode(L, LPN_MODE_BELOW);
      return;
    }
  }
  switchMode(L, LPN_MODE_ELSEWHERE);
}

/* Whether the cached function's breakpoints include `line`. */
static int lineHolds(lua_State *L, int line) {
  int i, hit;
  if (lpn.lineCount >= 0) {
    for (i = 0; i < lpn.lineCount; i++) {
      if (lpn.lines[i] == line) return 1;
    }
    return 0;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refLines);
  lua_rawgeti(L, -1, line);
  hit = !lua_isnil(L, -1);
  lua_pop(L, 2);
  return hit;
}

/*
 * hit(line, fn, entry): the function is known here, so the runtime need not look it up. While it
 * runs (a condition, a logpoint) the thread has no hook: hooks do not fire inside a hook, but a
 * line mask still sends every instruction of the runtime's code through the interpreter's hook
 * check (Lua 5.4: about half the cost of a condition). Put back unless the runtime set hooks
 * meanwhile (a stop, new breakpoints).
 */
static void callHit(lua_State *L, lua_Debug *ar, int entry) {
  int mask = lua_gethookmask(L), count = lua_gethookcount(L);
  unsigned long generation = lpn.generation;
  /* (Not with a poll count: each sethook would start it anew, and frequent hits starve it.) */
  int unhook = !(mask & LUA_MASKCOUNT);
  lpn.hits++;
  if (unhook) lua_sethook(L, NULL, 0, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refHitFn);
  lua_pushinteger(L, ar->currentline);
  if (!lua_getinfo(L, "f", ar)) lua_pushnil(L);
  lua_pushboolean(L, entry);
  if (lua_pcall(L, 3, 0, 0) != 0) {
    lpn.callbackErrors++;
    lua_pop(L, 1);
  }
  if (unhook && lpn.generation == generation && lua_gethook(L) == NULL)
    lua_sethook(L, lpn_hook, mask, count);
  lpn_invalidateCache(); /* the runtime may have stopped, changed breakpoints or hooks */
}

static void onLine(lua_State *L, lua_Debug *ar) {
  intptr_t ci = LPN_CI_KEY(ar);
  if (lpn.entryArmed) {
    int entry = lpn.entryL == L && lpn.entryCi == ci;
    lpn.entryArmed = 0;
    if (entry) {
      callHit(L, ar, 1); /* (the runtime checks a line breakpoint here too) */
      return;
    }
  }
  if (!lpn.cacheValid || lpn.cacheL != L || lpn.cacheCi != ci) {
    int top = lua_gettop(L);
    unsigned long generation = lpn.generation;
    int has;
    if (!lua_getinfo(L, "f", ar)) return;
    has = verdictOf(L);
    if (LPN_STALE(generation)) {
      lua_settop(L, top);
      return;
    }
    cacheSet(L, ci, has);
    lua_settop(L, top);
  }
  if (!lpn.cacheHas) return;
  if (lineHolds(L, ar->currentline)) callHit(L, ar, 0);
}

/* Whether a breakpoint is on line number `line` in some file (the line filter). */
static int filterHas(int line) {
  if (line < 0) return 0;
  if (line >= LPN_FILTER_LINES) return lpn.filterHigh;
  return (lpn.filterBits[line >> 3] >> (line & 7)) & 1;
}

/*
 * The mode the stack of `thread` calls for: INSIDE when its running Lua function holds
 * breakpoints, BELOW when one further down does, else ELSEWHERE (-2: the runtime set the hooks
 * anew meanwhile). The runtime's own functions (LuaJIT: its Lua wrappers around a resume) do not
 * count as the running function. A stack deeper than LPN_FILTER_DEPTH counts as BELOW (which
 * misses nothing): looking at every level of a deep recursion each time would cost more than that.
 * Lua runs only on `L`, the running thread: `thread` may be suspended.
 */
static int modeOfThread(lua_State *L, lua_State *thread) {
  lua_Debug frame;
  int level, top = lua_gettop(L), sawLua = 0;
  unsigned long generation = lpn.generation;
  for (level = 0; lua_getstack(thread, level, &frame); level++) {
    int running, has;
    if (level == LPN_FILTER_DEPTH) return LPN_MODE_BELOW;
    if (!lua_getinfo(thread, "f", &frame)) continue;
    if (thread != L) lua_xmove(thread, L, 1);
    running = !lua_iscfunction(L, -1) && !isOwn(L, lua_gettop(L));
    has = verdictOf(L);
    lua_settop(L, top);
    if (LPN_STALE(generation)) return -2;
    if (has) return sawLua ? LPN_MODE_BELOW : LPN_MODE_INSIDE;
    if (running) sawLua = 1;
  }
  return LPN_MODE_ELSEWHERE;
}

/*
 * The line filter's tick: whether a function on the running thread's stack holds breakpoints.
 * When none does, the thread goes back to watching calls (ELSEWHERE): the filter sees no returns,
 * so this is how it notices that the functions with breakpoints have returned.
 */
static int filterStays(lua_State *L) {
  int mode = modeOfThread(L, L);
  if (mode == -2) return 0; /* the runtime set every hook anew meanwhile */
  if (mode != LPN_MODE_ELSEWHERE) return 1;
  switchMode(L, LPN_MODE_ELSEWHERE);
  return 0;
}

/* Whether `L`'s hook is ours, watching lines through the filter. */
static int filtering(lua_State *L) {
  int mask = lua_gethookmask(L);
  return lpn.filterOn && lua_gethook(L) == lpn_hook && (mask & LUA_MASKLINE) &&
         !(mask & LUA_MASKCALL);
}

/*
 * A line event of the line filter that is not the hot case: a poll asked for, the tick, or a line
 * whose number a breakpoint is on. The line cache is not trusted here: without call and return
 * events, the function running at a level may have returned and another taken its place (a tail
 * call does that without leaving the level).
 */
static void filterEvent(lua_State *L, lua_Debug *ar) {
  unsigned long generation = lpn.generation;
  if (lpn_pollRequested) {
    doPoll(L);
    if (LPN_STALE(generation)) return;
  }
  if (lpn.filterTick <= 0) {
    lpn.filterTick = LPN_FILTER_TICK;
    if (!filterStays(L)) return;
  }
  if (!filterHas(ar->currentline)) return;
  lpn_invalidateCache();
  onLine(L, ar);
}

/*
 * LuaJIT, its one hook ours: the mode for `thread`, about to run (a coroutine being resumed, or
 * the resumer back from it), read from its stack — the hook changes its mode by itself, so no
 * mode set before is a guide. Nothing to do while the line filter runs: it misses no breakpoint
 * in any thread.
 */
void lpn_followThread(lua_State *L, lua_State *thread) {
  int mode;
  if (!lpn.isJIT || lpn_inside || lua_gethook(L) != lpn_hook || filtering(L)) return;
  lpn_busy++;
  mode = modeOfThread(L, thread);
  if (mode != -2 && mode != lpn.jitMode) switchMode(L, mode);
  lpn_busy--;
  lpn_afterBusy(L);
}

/* Removes a count that only served to deliver a poll (the watcher is the one that polls). */
static void stripCount(lua_State *L) {
  int mask = lua_gethookmask(L);
  if (!(mask & LUA_MASKCOUNT)) return;
  mask &= ~LUA_MASKCOUNT;
  if (mask == 0)
    lua_sethook(L, NULL, 0, 0);
  else
    lua_sethook(L, lpn_hook, mask, 0);
}

/* Whether this call event is the call of the running protected call's message handler: an error
   calls it (errfunc.c), or the program does (exceptions.lua tells which). */
static int callsMessageHandler(lua_State *L, lua_Debug *ar) {
  const void *handler = lpn_messageHandler(L);
  const void *fn;
  if (handler == NULL) return 0;
  fn = layoutAgreed >= VERIFY_CALLS ? lpn_calledFunction(L, ar) : NULL;
  if (fn == NULL) {
    if (!lua_getinfo(L, "f", ar)) return 0;
    fn = lua_topointer(L, -1);
    lua_pop(L, 1);
  }
  return fn == handler;
}

/* The message handler's call: the runtime decides whether the error stops, before the handler
   runs, with the stack still that of the error. */
static void onHandlerCall(lua_State *L, lua_Debug *ar) {
  int top = lua_gettop(L);
  lpn_busy++;
  lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refHandlerFn);
  if (!lua_getlocal(L, ar, 1)) lua_pushnil(L); /* the error */
  if (!lua_getinfo(L, "f", ar)) lua_pushnil(L);
  lpn.handlerCalls++;
  if (lua_pcall(L, 2, 0, 0) != 0) lpn.callbackErrors++;
  lua_settop(L, top);
  lpn_invalidateCache();
  lpn_busy--;
  lpn_afterBusy(L);
}

void lpn_hook(lua_State *L, lua_Debug *ar) {
  int event = ar->event;
  /* (The event then goes on as any call: a handler written in Lua runs lines like any function.) */
  if (lpn.watchHandlers && event == LUA_HOOKCALL && lpn.installed && !lpn_inside &&
      callsMessageHandler(L, ar))
    onHandlerCall(L, ar);
  if (event == LUA_HOOKLINE && lpn.filterOn && lpn.installed &&
      !(lua_gethookmask(L) & LUA_MASKCALL)) {
    /* The line filter (BELOW or INSIDE with lines alone). The hot case: a line whose number no
       breakpoint is on, no tick due, nothing asked for. */
    if (LPN_LIKELY(!lpn_pollRequested && !lpn_inside && --lpn.filterTick > 0 &&
                   !filterHas(ar->currentline)))
      return;
    lpn_busy++;
    if (!lpn_inside) filterEvent(L, ar);
    if (lpn_pollRequested && !lpn_inside) doPoll(L);
    lpn_busy--;
    lpn_afterBusy(L);
    return;
  }
  if (LPN_LIKELY((event == LUA_HOOKCALL || LPN_EVENT_IS_TAILCALL(event)) && lpn.installed &&
                 !lpn_pollRequested && !lpn_inside && !(lua_gethookmask(L) & LUA_MASKLINE))) {
    /* The hot case (breakpoints elsewhere): a call of a function known to hold none, which
       changes nothing. No flag is needed: nothing here races with the signal handler. First the
       address cache (nobpcache.c), then the runtime's verdict table, whose "none" it learns. */
    const void *direct = layoutAgreed < 0 ? NULL : lpn_calledFunction(L, ar);
    if (direct && layoutAgreed >= VERIFY_CALLS && lpn_nobpHas(direct)) return;
    if (lua_getinfo(L, "f", ar)) {
      const void *fn = lua_topointer(L, -1);
      int type;
      if (direct && layoutAgreed < VERIFY_CALLS)
        layoutAgreed = direct == fn ? layoutAgreed + 1 : -1;
      if (lpn_nobpHas(fn)) {
        lua_pop(L, 1);
        return;
      }
      lua_rawgeti(L, LUA_REGISTRYINDEX, lpn.refVerdicts); /* fn V */
      lua_pushvalue(L, -2);                               /* fn V fn */
      lua_rawget(L, -2);                                  /* fn V v */
      type = lua_type(L, -1);
      lua_pop(L, 3);
      if (type == LUA_TBOOLEAN) {
        lpn_nobpStore(L, fn);
        return;
      }
    }
  }
  if (event == LUA_HOOKLINE && !lpn.entryArmed && lpn.cacheValid && lpn.cacheL == L &&
      lpn.cacheCi == LPN_CI_KEY(ar) && !lpn_pollRequested && !lpn_inside &&
      (!lpn.cacheHas || (lpn.lineCount >= 0 && !lineHolds(L, ar->currentline)))) {
    return; /* the hot case inside a function with breakpoints: not a breakpoint line */
  }
  if (!lpn.installed) {
    lua_sethook(L, NULL, 0, 0); /* the state is closing: never touch what is gone */
    return;
  }
  lpn_busy++;
  if (event == LUA_HOOKCOUNT) {
    if (lpn.watching || lpn.waking) {
      stripCount(L);
      if (lpn_pollRequested && !lpn_inside) doPoll(L);
    } else if (!lpn_inside) {
      doPoll(L); /* no watcher: the count is the poll period */
    }
  } else if (!lpn_inside) {
    unsigned long generation = lpn.generation;
    if (lpn_pollRequested) doPoll(L);
    if (generation == lpn.generation) {
      if (event == LUA_HOOKLINE)
        onLine(L, ar);
      else if (event == LUA_HOOKCALL || LPN_EVENT_IS_TAILCALL(event))
        onCall(L, ar);
      else if (event == LUA_HOOKRET)
        onReturn(L, ar);
      /* 5.1 "tail return" events repeat a return already handled. */
    }
  }
  if (lpn_pollRequested && !lpn_inside) doPoll(L); /* a signal came while we were busy */
  lpn_busy--;
  lpn_afterBusy(L);
}

/*
 * Makes the next instruction of `L` fire our hook (a count of 1), keeping its mode. Safe in a
 * signal handler on the thread that runs Lua: lua_sethook is the one Lua API function made for
 * that (lua.c stops a running script the same way).
 */
void lpn_arm(lua_State *L) {
  lua_Hook current = lua_gethook(L);
  int mask;
  if (current != NULL && current != lpn_hook) return; /* the pure-Lua hook polls by itself */
  mask = current ? lua_gethookmask(L) : 0;
  lua_sethook(L, lpn_hook, mask | LUA_MASKCOUNT, 1);
}

/* Takes back a count armed by a signal that came before the watcher stopped and has not fired
   yet (without a watcher it would stay as a poll period nobody asked for). */
void lpn_disarm(lua_State *L) {
  if (L && lua_gethook(L) == lpn_hook) stripCount(L);
}

/* A signal that arrived while we were busy only left the request: deliver it now. */
void lpn_afterBusy(lua_State *L) {
  if (lpn_busy == 0 && lpn_pollRequested && !lpn_inside && (lpn.watching || lpn.waking)) lpn_arm(L);
}

/* Sets `target`'s hook to `mode` (plus a poll count when the watcher cannot poll). */
void lpn_setMode(lua_State *target, int mode, int count) {
  int mask = lpn_maskFor(mode);
  if (count > 0) mask |= LUA_MASKCOUNT;
  lpn_busy++;
  if (lpn.isJIT) lpn.jitMode = mode;
  if (mask == 0)
    lua_sethook(target, NULL, 0, 0);
  else
    lua_sethook(target, lpn_hook, mask, count > 0 ? count : 0);
  lpn.generation++;
  lpn_invalidateCache();
  lpn_busy--;
}
