/*
 * nobpcache.c: the functions known to hold no breakpoint, by address. With breakpoints elsewhere
 * every call of the program reaches the C hook, and the verdict lookup in the runtime's weak-keyed
 * table was most of what the hook cost (Lua 5.4 game loop: an empty "f" hook ×1.41 of plain, the
 * same hook with the table lookup ×1.75). A direct-mapped array compared by address costs almost
 * nothing.
 *
 * An address names one function only while that function lives: once collected, its memory may
 * hold another function, which must not inherit the verdict. The cache therefore hears of every
 * block the Lua state frees: while it holds entries, the state's allocator is wrapped by one that
 * forgets a freed (or moved) address before passing the call on. No reference is kept, so no
 * function lives longer for being cached (the program's collections stay exactly as they were).
 * The cache is emptied whenever the runtime's verdicts are (new breakpoints).
 *
 * Our code must never be unmapped while the wrapper may still be called: a C library may keep the
 * allocator it read with lua_getallocf, and something may wrap ours. The library is therefore
 * pinned in memory (never unloaded) before the allocator is first wrapped, and the wrapper's
 * state is a block that is never freed. Where pinning is not available the cache stays off.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _GNU_SOURCE 1 /* dladdr (glibc) */
#define _DARWIN_C_SOURCE 1
#include <dlfcn.h>
#define LPN_CAN_PIN 1
#endif

#include <stdlib.h>
#include <string.h>

#include "luapanda_native.h"

#define SLOTS 1024 /* a power of two */

typedef struct AllocBox {
  lua_Alloc f;
  void *ud;
} AllocBox;

static const void *slots[SLOTS];
static AllocBox *box = NULL; /* the wrapped allocator of the owner state, NULL: not wrapped */
static int pinned = 0;       /* 1: pinned, -1: could not pin (cache off for good) */

static unsigned slotOf(const void *p) {
  uintptr_t x = (uintptr_t)p;
  return (unsigned)((x >> 4) ^ (x >> 14)) & (SLOTS - 1);
}

static void *forgettingAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  AllocBox *b = (AllocBox *)ud;
  if (ptr != NULL) {
    unsigned s = slotOf(ptr);
    if (slots[s] == ptr) slots[s] = NULL;
  }
  return b->f(b->ud, ptr, osize, nsize);
}

static int pin(void) {
#ifdef LPN_CAN_PIN
  Dl_info info;
  if (pinned != 0) return pinned > 0;
  pinned = -1;
  if (dladdr((void *)&forgettingAlloc, &info) && info.dli_fname &&
      dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE) != NULL) {
    pinned = 1; /* (the handle is never closed: that is the point) */
  }
  return pinned > 0;
#else
  return 0;
#endif
}

/* Wraps L's allocator unless it is already: 0 when the cache cannot be used. */
static int wrap(lua_State *L) {
  void *ud;
  lua_Alloc f;
  if (box != NULL) return 1;
  if (!pin()) return 0;
  f = lua_getallocf(L, &ud);
  box = (AllocBox *)malloc(sizeof *box);
  if (box == NULL) return 0;
  box->f = f;
  box->ud = ud;
  lua_setallocf(L, forgettingAlloc, box);
  return 1;
}

int lpn_nobpHas(const void *fn) { return fn != NULL && slots[slotOf(fn)] == fn; }

void lpn_nobpStore(lua_State *L, const void *fn) {
  if (fn == NULL || !wrap(L)) return;
  slots[slotOf(fn)] = fn;
}

void lpn_nobpClear(void) { memset((void *)slots, 0, sizeof slots); }

/* The state closes: its allocator goes back to what it was, unless something wrapped ours since
   (then ours keeps forwarding, from pinned code). */
void lpn_nobpRelease(lua_State *L) {
  void *ud;
  lpn_nobpClear();
  if (box == NULL) return;
  if (lua_getallocf(L, &ud) == forgettingAlloc && ud == box) lua_setallocf(L, box->f, box->ud);
  box = NULL; /* (not freed: a copy of our allocator may still be in use) */
}
