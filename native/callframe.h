/*
 * callframe.h: the interpreter-specific part of the C hook (hook.c, its only includer): the
 * called function's address read from the interpreter's own structures (Lua 5.1's and LuaJIT's
 * state, 5.2+'s CallInfo), behind one function, lpn_calledFunction. Static inline: it runs on
 * every call event of the hot path.
 */
#ifndef LUAPANDA_CALLFRAME_H
#define LUAPANDA_CALLFRAME_H

#include "luapanda_native.h"

/*
 * The called function's address without lua_getinfo, whose parsing of its option string is most
 * of what a call event costs (5.2-5.4): the hook's activation record points at the call's
 * CallInfo, which starts with the stack slot of the function, which starts with the value — for
 * a function, the address lua_topointer gives. That layout is the interpreter's, not its API, so
 * hook.c trusts it only after it agreed with lua_getinfo often enough. (5.1's record holds an
 * index instead, LuaJIT's a stack offset: see below.) NULL: not readable here.
 */
#if LUA_VERSION_NUM >= 502
static inline const void *lpn_calledFunction(lua_State *L, lua_Debug *ar) {
  (void)L;
  return **(const void *const *const *)ar->i_ci;
}
#else
/* Lua 5.1 (not LuaJIT, whose state looks nothing like it): the record holds the call's index in
   the thread's CallInfo array, so the thread's own fields are read too, as lstate.h lays them out;
   the array must hold the running call at that index before anything is read through it. */
struct LpnCallInfo51 {
  const void *const *base, *const *func, *const *top;
  const void *savedpc;
  int nresults, tailcalls;
};
struct LpnState51 {
  void *next;
  unsigned char tt, marked, status;
  void *top, *base, *l_G;
  struct LpnCallInfo51 *ci;
  const void *savedpc;
  void *stack_last, *stack;
  struct LpnCallInfo51 *end_ci, *base_ci;
};
static inline const void *calledFunction51(lua_State *L, lua_Debug *ar) {
  const struct LpnState51 *state = (const struct LpnState51 *)L;
  if (lpn.isJIT || ar->i_ci <= 0) return NULL;
  if (state->base_ci + ar->i_ci != state->ci || state->ci >= state->end_ci) return NULL;
  return *state->ci->func;
}

/*
 * LuaJIT with 64-bit references (GC64, the x64 default since 2.1.0-beta3): the hook's record holds
 * the called frame's offset in the thread's stack, the frame's base is one slot above it and the
 * function's slot one below it, its value's low 47 bits the function's address (lj_obj.h). The
 * state is read as lj_obj.h lays it out; the stack and base it holds must match the record's
 * offset before the stack is read at all.
 */
struct LpnStateJIT {
  uint64_t nextgc;
  uint8_t marked, gct, dummyFfid, status;
  uint64_t glref, gclist;
  const uint64_t *base, *top;
  uint64_t maxstack;
  const uint64_t *stack;
};
#define LPN_JIT_GCVMASK ((((uint64_t)1) << 47) - 1)
static inline const void *calledFunctionJIT(lua_State *L, lua_Debug *ar) {
  const struct LpnStateJIT *state = (const struct LpnStateJIT *)L;
  unsigned offset = (unsigned)ar->i_ci & 0xffffu;
  if (sizeof(void *) != 8 || offset < 2 || ((unsigned)ar->i_ci >> 16) != 0) return NULL;
  if (state->stack == NULL || state->base != state->stack + offset + 1) return NULL;
  return (const void *)(uintptr_t)(state->stack[offset - 1] & LPN_JIT_GCVMASK);
}
static inline const void *lpn_calledFunction(lua_State *L, lua_Debug *ar) {
  return lpn.isJIT ? calledFunctionJIT(L, ar) : calledFunction51(L, ar);
}
#endif

#endif
