/*
 * luapanda_native.h: what the parts of the optional native accelerator share. The accelerator is
 * a C debug hook that sits in front of the Lua runtime (lua/luapanda/hook.lua): it filters call,
 * return and line events against the runtime's per-function verdict cache and calls back into
 * Lua only when a function holds breakpoints, a breakpoint line is reached, or the IDE has sent
 * something. Networking, JSON, variables and stops stay in Lua.
 *
 *   module.c   the Lua-facing functions (luaopen_luapanda_native<abi>) and the shared state
 *   hook.c     the C hook: modes, verdict lookups, the line cache, polls requested by signal
 *   nobpcache.c  the functions known to hold no breakpoint, by address (the hook's hot path)
 *   coresume.c the common case of the coroutine wrappers (resume and wrap functions)
 *   watcher.c  a thread that notices incoming IDE data and asks the Lua thread, by signal, to poll;
 *              and the wake timer, whose signal makes an unattached program try to attach on time
 *
 * One build per Lua C ABI (5.1 — also LuaJIT —, 5.2, 5.3, 5.4); the ABI is part of the module
 * name so that a build can never be loaded into an interpreter of another ABI by mistake.
 */
#ifndef LUAPANDA_NATIVE_H
#define LUAPANDA_NATIVE_H

#include <signal.h>
#include <stdint.h>

#include "lua.h"
#include "lauxlib.h"

/* LPN_API_VERSION (what the Lua side checks before using the module), the hook modes
 * LPN_MODE_* (as lua/luapanda/hook.lua uses them) and LPN_FILTER_DEPTH: generated from
 * src/protocol/contract.ts (NATIVE, HOOK_MODES). */
#include "luapanda_contract.h"

#if LUA_VERSION_NUM >= 502
#define LPN_EVENT_IS_TAILCALL(e) ((e) == LUA_HOOKTAILCALL)
#define LPN_EVENT_IS_TAILRET(e) 0
#else
#define LPN_EVENT_IS_TAILCALL(e) 0
#define LPN_EVENT_IS_TAILRET(e) ((e) == LUA_HOOKTAILRET)
#endif

#define LPN_LINES_MAX 32

/* The line filter (hook.c): line numbers below LPN_FILTER_LINES are bits; line events between two
   looks at the stack for functions with breakpoints (the deepest level looked at: LPN_FILTER_DEPTH,
   luapanda_contract.h). */
#define LPN_FILTER_LINES 65536
#define LPN_FILTER_TICK 10000

/* The activation record of a hook event as a number: a CallInfo pointer (5.2+) or an index. */
#define LPN_CI_KEY(ar) ((intptr_t)(ar)->i_ci)

typedef struct LpnState {
  lua_State *owner; /* a thread of the Lua state that installed the hook (kept referenced) */
  int installed;
  int isJIT;
  /* Registry references (LUA_NOREF until installed). */
  int refOwner, refVerdicts, refOwn, refVerdictFn, refHitFn, refPollFn, refSethook, refLines,
      refRunning, refHandlerFn;
  /* Errors that call the running protected call's message handler are reported to
     registry[refHandlerFn] (errfunc.c) while watchHandlers is set. */
  int watchHandlers;
  int jitMode;              /* LuaJIT: the mode of the one global hook */
  unsigned long generation; /* bumped whenever the runtime sets hooks */
  int watching;             /* the watcher reports incoming data: count events only arm polls */
  int waking;               /* the wake timer runs (no IDE): count events only arm polls too */
  /* The line cache: the breakpoint lines of the function running in (cacheL, cacheCi). The
     lines also sit in a C array (up to LPN_LINES_MAX; beyond, the Lua table is asked), built
     from the table at registry[refLines], whose identity `linesTable` it keeps alive. */
  lua_State *cacheL;
  intptr_t cacheCi;
  int cacheValid, cacheHas;
  const void *linesTable;
  int lineCount; /* -1: more than LPN_LINES_MAX */
  int lines[LPN_LINES_MAX];
  /* A function breakpoint armed by the call of its function (its verdict has a [0]): the next
     line event, the call's first, of (entryL, entryCi) calls hit(line, fn, true). */
  int entryArmed;
  lua_State *entryL;
  intptr_t entryCi;
  /* The line filter (setlinefilter): while filterOn, BELOW and INSIDE watch lines alone, and a line
     event does anything only when a breakpoint is on its number in some file (filterBits, or
     filterHigh for any line at or past LPN_FILTER_LINES). Every LPN_FILTER_TICK line events
     (filterTick counts down) the running thread's stack is looked at: with no function holding
     breakpoints left on it, the thread goes back to ELSEWHERE. */
  int filterOn, filterHigh, filterTick;
  unsigned char filterBits[LPN_FILTER_LINES / 8];
  /* Diagnostics. */
  unsigned long polls, verdictCalls, hits, callbackErrors, handlerCalls;
  unsigned long resumesInC, resumesInLua; /* coresume.c: done in C, handed to Lua */
} LpnState;

extern LpnState lpn;

/* Shared with the signal handler (same thread): plain flags, read and written atomically. */
extern volatile sig_atomic_t lpn_busy;          /* >0 while our hook or our sethook runs */
extern volatile sig_atomic_t lpn_pollRequested; /* the IDE sent data; poll at the next chance */
extern volatile sig_atomic_t lpn_inside;        /* the runtime's own code runs: no events */
extern lua_State *volatile lpn_running;         /* the thread the coroutine wrappers saw run */

/* hook.c */
void lpn_hook(lua_State *L, lua_Debug *ar);
int lpn_maskFor(int mode);
void lpn_setMode(lua_State *target, int mode, int count);
void lpn_arm(lua_State *L);
void lpn_disarm(lua_State *L);
void lpn_afterBusy(lua_State *L);
void lpn_invalidateCache(void);
void lpn_followThread(lua_State *L, lua_State *thread);
const char *lpn_callReads(void);

/* chainhook.c */
int lpn_setChainHook(lua_State *L);

/* nobpcache.c */
int lpn_nobpHas(const void *fn);
void lpn_nobpStore(lua_State *L, const void *fn);
void lpn_nobpClear(void);
void lpn_nobpRelease(lua_State *L);

/* coresume.c */
void lpn_errfuncProbe(lua_State *L);
const char *lpn_errfuncProblem(void);
const void *lpn_messageHandler(lua_State *L);

int lpn_coroutineFast(lua_State *L);
int lpn_resumeState(lua_State *L);

/* watcher.c */
int lpn_watchStart(int fd, const char **why);
void lpn_watchStop(void);
void lpn_watchAck(void);
void lpn_watchQuiet(int quiet);
/* How commands are noticed: "socket signals" (the kernel), "thread" or "none". */
const char *lpn_watchKind(void);
int lpn_watchActive(void);
const char *lpn_watchProblem(void);
unsigned long lpn_watchSignals(void);
void lpn_signalRestore(void);
/* The wake timer while no IDE is attached: a poll every `ms` (true), or 0 and why not. */
int lpn_wakeStart(int ms, const char **why);
void lpn_wakeStop(void);
int lpn_wakeActive(void);
unsigned long lpn_wakeSignals(void);
/* LuaJIT, its profiler started in line mode just before: each signal that arms a hook makes
   compiled code leave its trace too (true), or 0 when no profiler handler is installed. */
int lpn_kickStart(void);
void lpn_kickStop(void);

#endif
