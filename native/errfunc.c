/*
 * errfunc.c: which function is the message handler of the protected call running on a thread
 * (the handler an engine passes to lua_pcall), so that the C hook can tell when an error calls it
 * (hook.c). The API does not say: lua_pcall keeps the handler's stack position in the thread's
 * own state (lua_State's errfunc, a byte offset from its stack). Those two fields' offsets are
 * found once, by protected calls whose handlers sit at known stack positions, and used only when
 * every probe agrees. LuaJIT keeps the handler in its C frames instead: not read there.
 */
#include <stddef.h>
#include <string.h>

#include "luapanda_native.h"

/* The words of the main thread's lua_State looked at: every Lua version's errfunc and stack fall
   in them, and the main thread is followed by the global state, so all are readable. */
#define PROBE_WORDS 32
#define PROBES 3

static int errfuncWord = -1; /* index of lua_State's errfunc among its words; -1: unknown */
static int stackWord = -1;   /* index of its stack pointer */
static const char *problem = "not probed yet";

static uintptr_t snapshots[PROBES][PROBE_WORDS];
static int probing = -1;

static int probeHandler(lua_State *L) {
  (void)L;
  return 1;
}

/* Runs under lua_pcall with probeHandler at a known position: the state as that call set it. */
static int probeBody(lua_State *L) {
  memcpy(snapshots[probing], (const void *)L, sizeof snapshots[0]);
  return 0;
}

/* Finds the words of the state that are errfunc and stack; 1 when exactly one reading fits. Inside
   each probe's body (a C function without arguments) the thread's top is the slot above the body,
   whose slot is just above the handler's: so with `top`, some word growing by one slot per probe,
   stack + errfunc == top - 2 slots in every probe. Nothing is read through a candidate pointer
   until that arithmetic holds; then every probe's handler slot must hold probeHandler. */
static int findFields(lua_State *L, int firstHandler) {
  const uintptr_t *now = (const uintptr_t *)(const void *)L;
  int k, j, t, found = 0;
  for (k = 0; k < PROBE_WORDS; k++) {
    uintptr_t step = snapshots[1][k] - snapshots[0][k];
    if (snapshots[0][k] == 0 || snapshots[0][k] > ((uintptr_t)1 << 24)) continue;
    if (step < 8 || step > 64 || snapshots[2][k] - snapshots[1][k] != step) continue;
    if (snapshots[0][k] % step != 0) continue;
    for (t = 0; t < PROBE_WORDS; t++) {
      if (t == k || snapshots[0][t] < 4096) continue;
      if (snapshots[1][t] - snapshots[0][t] != step || snapshots[2][t] - snapshots[1][t] != step)
        continue;
      for (j = 0; j < PROBE_WORDS; j++) {
        int p, agree = 1;
        if (j == k || j == t || snapshots[0][j] < 4096 || now[j] != snapshots[0][j]) continue;
        for (p = 0; p < PROBES && agree; p++)
          agree = snapshots[p][j] == snapshots[0][j] &&
                  snapshots[p][j] + snapshots[p][k] == snapshots[p][t] - 2 * step;
        for (p = 0; p < PROBES && agree; p++) {
          const void *slot = (const char *)now[j] + snapshots[p][k];
          agree = *(const void *const *)slot == lua_topointer(L, firstHandler + p);
        }
        if (!agree) continue;
        /* Other words may hold the stack's base too (5.4's tbclist and base_ci.func while empty):
           the stack pointer itself comes first in every version's lua_State. */
        if (found && errfuncWord != k) return 0; /* two errfunc readings fit: trust neither */
        if (!found || j < stackWord) stackWord = j;
        errfuncWord = k;
        found = 1;
      }
    }
  }
  return found;
}

void lpn_errfuncProbe(lua_State *L) {
  int top, first, p, mainThread;
  if (errfuncWord >= 0 || lpn.isJIT) {
    if (lpn.isJIT) problem = "LuaJIT keeps the message handler in its C frames";
    return;
  }
  mainThread = lua_pushthread(L);
  lua_pop(L, 1);
  if (!mainThread) {
    problem = "not probed yet: the runtime was installed outside the main thread";
    return;
  }
  if (!lua_checkstack(L, 2 * PROBES + 4)) {
    problem = "no stack room to probe";
    return;
  }
  top = lua_gettop(L);
  first = top + 1;
  for (p = 0; p < PROBES; p++) {
    int handler;
    lua_pushcfunction(L, probeHandler);
    handler = lua_gettop(L);
    lua_pushcfunction(L, probeBody);
    probing = p;
    if (lua_pcall(L, 0, 0, handler) != 0) {
      lua_settop(L, top);
      probing = -1;
      problem = "a probe failed";
      return;
    }
  }
  probing = -1;
  if (!findFields(L, first)) {
    errfuncWord = stackWord = -1;
    problem = "this interpreter's state is laid out in a way the probes did not recognise";
  } else {
    problem = NULL;
  }
  lua_settop(L, top);
}

const char *lpn_errfuncProblem(void) { return problem; }

const void *lpn_messageHandler(lua_State *L) {
  const uintptr_t *words;
  ptrdiff_t errfunc;
  if (errfuncWord < 0) return NULL;
  words = (const uintptr_t *)(const void *)L;
  errfunc = (ptrdiff_t)words[errfuncWord];
  if (errfunc <= 0) return NULL;
  return *(const void *const *)((const char *)words[stackWord] + errfunc);
}
