/*
 * engine.c: a small game engine that embeds Lua the way Cocos2d-x, xLua/toLua or UnLua do, so that
 * the tests debug programs run by an engine rather than by the `lua` command. Built once per
 * interpreter (scripts/build-hosts.mjs) against that interpreter's static library, with luasocket's
 * core linked in: `socket.core` comes from package.preload, scripts from a searcher of the
 * engine's own (chunk names relative to the script root: `@game/player.lua`), `print` goes to the
 * engine's log writer, and every frame calls the global `Update(dt)` from C under lua_pcall with a
 * C message handler and resumes the coroutines of the global table `Jobs` with lua_resume. Errors
 * are logged to stderr with their traceback and the next frame runs, as an engine does.
 *
 *   engine [--root DIR] [--frames N] [--period-ms MS] [--ballast-mb MB] [--handler c|lua|none]
 *          [-- BOOT-ARGS...]
 *
 * --root: the script root (default "."), which holds boot.lua. --frames: how many frames to run
 * (default 0: until the script sets the global `Quit`). --period-ms: the sleep between frames
 * (default 10). --handler: the message handler of the calls into Lua after boot — the engine's C
 * function (default), the global Lua function __G__TRACKBACK__ as Cocos2d-x calls it (the C one
 * while the global is not a function), or none (lua_pcall without a handler: the bare message is
 * logged). --ballast-mb: a tree of Lua tables allocated at boot (default 0), so that the heap
 * is game-sized. BOOT-ARGS are passed to boot.lua as its `...`. Update gets a fixed time step
 * (the period, in seconds), as fixed-step engines pass, so that runs can be compared.
 * The process exits 0 after the last frame, 1 when boot.lua fails, 2 on a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"
#ifdef ENGINE_LUAJIT
#include "luajit.h" /* LUAJIT_VERSION; LuaJIT 2.1's lauxlib has luaL_traceback */
#endif

/* luasocket's entry point (liblua5.X-socket.a). Declared here rather than through luasocket.h,
 * which includes a compat.h that Debian's lua-socket-dev does not ship. */
int luaopen_socket_core(lua_State *L);

#define LOG_TAG "[lua] "
#define ENGINE_TAG "[engine] "

typedef enum { HANDLER_C, HANDLER_LUA, HANDLER_NONE } HandlerKind;

typedef struct {
  const char *root;
  HandlerKind handler;
  long frames;
  long periodMs;
  long ballastMb;
  int bootArgc;
  char **bootArgv;
} Options;

/* ---- the log writer: where `print` goes ---- */

/* One line of the game's log: the tag, the text, a newline, flushed so that a killed engine
 * loses nothing and stdout keeps the order the game printed in. */
static void logLine(const char *text, size_t len) {
  fputs(LOG_TAG, stdout);
  fwrite(text, 1, len, stdout);
  fputc('\n', stdout);
  fflush(stdout);
}

/* print replaced: the arguments through the global tostring, joined by tabs (as print does),
 * written as one log line. */
static int enginePrint(lua_State *L) {
  int n = lua_gettop(L);
  int i;
  luaL_Buffer b;
  lua_getglobal(L, "tostring");
  luaL_buffinit(L, &b);
  for (i = 1; i <= n; i++) {
    const char *s;
    size_t len;
    lua_pushvalue(L, n + 1); /* tostring; the buffer may sit above it, so it is found by index */
    lua_pushvalue(L, i);
    lua_call(L, 1, 1);
    s = lua_tolstring(L, -1, &len);
    if (s == NULL) return luaL_error(L, "'tostring' must return a string to 'print'");
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  {
    size_t len;
    const char *line = lua_tolstring(L, -1, &len);
    logLine(line, len);
  }
  return 0;
}

/* ---- the error path ---- */

/* The message handler of every call into Lua: the message with a traceback of the failed
 * thread, as engines log it. luaL_traceback exists from 5.2 and in LuaJIT 2.1; Lua 5.1 asks
 * debug.traceback, as Cocos2d-x's __G__TRACKBACK__ does. */
static int messageHandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
#if LUA_VERSION_NUM >= 502 || defined(LUAJIT_VERSION)
  luaL_traceback(L, L, msg, 1);
#else
  lua_getglobal(L, "debug");
  if (!lua_istable(L, -1)) return 1;
  lua_getfield(L, -1, "traceback");
  if (!lua_isfunction(L, -1)) return 1;
  lua_pushstring(L, msg);
  lua_pushinteger(L, 2);
  lua_call(L, 2, 1);
#endif
  return 1;
}

static void logError(const char *where, const char *text) {
  fprintf(stderr, ENGINE_TAG "error in %s: %s\n", where, text ? text : "(no message)");
  fflush(stderr);
}

/* Calls the function below its `nargs` arguments under the message handler `kind` asks for;
 * logs a failure. */
static int protectedCall(lua_State *L, int nargs, const char *where, HandlerKind kind) {
  int base = lua_gettop(L) - nargs;
  int status;
  if (kind == HANDLER_NONE) {
    status = lua_pcall(L, nargs, 0, 0);
    if (status != 0) {
      logError(where, lua_tostring(L, -1));
      lua_pop(L, 1);
    }
    return status;
  }
  lua_pushnil(L);
  if (kind == HANDLER_LUA) {
    lua_pop(L, 1);
    lua_getglobal(L, "__G__TRACKBACK__");
  }
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    lua_pushcfunction(L, messageHandler);
  }
  lua_insert(L, base);
  status = lua_pcall(L, nargs, 0, base);
  if (status != 0) {
    logError(where, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_remove(L, base);
  return status;
}

/* ---- loading scripts ---- */

/* The engine's searcher: `a.b` is <root>/a/b.lua, loaded with the chunk name `@a/b.lua`. */
static int scriptSearcher(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *root = lua_tostring(L, lua_upvalueindex(1));
  char relative[1024];
  char full[2048];
  size_t i, len = strlen(name);
  FILE *f;
  if (len + 5 > sizeof relative) {
    lua_pushfstring(L, "\n\tno script '%s' (name too long)", name);
    return 1;
  }
  for (i = 0; i < len; i++) relative[i] = name[i] == '.' ? '/' : name[i];
  memcpy(relative + len, ".lua", 5);
  snprintf(full, sizeof full, "%s/%s", root, relative);
  f = fopen(full, "rb");
  if (f == NULL) {
    lua_pushfstring(L, "\n\tno script '%s' in the engine's script root", relative);
    return 1;
  }
  {
    /* luaL_loadfile would name the chunk by its path: engines read the file (from a package or
     * the disk; scripts are small) and name it themselves. */
    long size;
    char *text;
    char chunkName[1100];
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = (char *)malloc(size > 0 ? (size_t)size : 1);
    if (text == NULL || (size > 0 && fread(text, 1, (size_t)size, f) != (size_t)size)) {
      fclose(f);
      free(text);
      return luaL_error(L, "cannot read %s", full);
    }
    fclose(f);
    snprintf(chunkName, sizeof chunkName, "@%s", relative);
    if (luaL_loadbuffer(L, text, (size_t)size, chunkName) != 0) {
      free(text);
      return luaL_error(L, "error loading script '%s':\n\t%s", relative, lua_tostring(L, -1));
    }
    free(text);
  }
  lua_pushstring(L, relative);
  return 2;
}

/* Puts the searcher second, after package.preload, where Cocos2d-x puts its loader. */
static void installSearcher(lua_State *L, const char *root) {
  int n, i;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "searchers");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    lua_getfield(L, -1, "loaders");
  }
#if LUA_VERSION_NUM >= 502
  n = (int)lua_rawlen(L, -1);
#else
  n = (int)lua_objlen(L, -1);
#endif
  for (i = n; i >= 2; i--) {
    lua_rawgeti(L, -1, i);
    lua_rawseti(L, -2, i + 1);
  }
  lua_pushstring(L, root);
  lua_pushcclosure(L, scriptSearcher, 1);
  lua_rawseti(L, -2, 2);
  lua_pop(L, 2);
}

static void preloadSocket(lua_State *L) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_socket_core);
  lua_setfield(L, -2, "socket.core");
  lua_pop(L, 2);
}

/* ---- the game-sized heap ---- */

/* A tree of tables and strings, kept in the registry as an engine keeps its assets, until the
 * heap has grown by `mb` megabytes: per asset a small table, its name and a 1 KB blob of data
 * (many objects, as a game's heap holds, but few enough that boot stays quick). The blobs are
 * pseudo-random text: Lua 5.1 hashes a long string from a sample of its bytes, and blobs alike
 * but for a few bytes would all collide in its string table. */
static void allocateBallast(lua_State *L, long mb) {
  char blob[1024];
  unsigned long seed = 2463534242UL;
  long startKb = lua_gc(L, LUA_GCCOUNT, 0);
  long targetKb = startKb + mb * 1024;
  int branch = 0;
  if (mb <= 0) return;
  /* Loading assets is one burst: the collector waits for it, as engines' loaders make it. */
  lua_gc(L, LUA_GCSTOP, 0);
  lua_newtable(L);
  while (lua_gc(L, LUA_GCCOUNT, 0) < targetKb) {
    int leaf;
    lua_newtable(L);
    for (leaf = 1; leaf <= 16; leaf++) {
      size_t i;
      for (i = 0; i < sizeof blob; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        blob[i] = (char)('a' + (seed >> 3) % 26);
      }
      lua_newtable(L);
      lua_pushfstring(L, "asset %d.%d", branch, leaf);
      lua_setfield(L, -2, "name");
      lua_pushlstring(L, blob, sizeof blob);
      lua_setfield(L, -2, "data");
      lua_rawseti(L, -2, leaf);
    }
    lua_rawseti(L, -2, ++branch);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, "engine.ballast");
  lua_gc(L, LUA_GCRESTART, 0);
}

/* ---- the frame loop ---- */

static void sleepMs(long ms) {
  struct timespec ts;
  if (ms <= 0) return;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Resumes a coroutine with `nargs` values on its stack; LUA_YIELD, 0 (finished) or an error. */
static int resumeThread(lua_State *L, lua_State *co, int nargs) {
#if LUA_VERSION_NUM >= 504
  int nres = 0;
  int status = lua_resume(co, L, nargs, &nres);
  if (status == LUA_YIELD || status == 0) lua_pop(co, nres);
  return status;
#elif LUA_VERSION_NUM >= 502
  int status = lua_resume(co, L, nargs);
  if (status == LUA_YIELD || status == 0) lua_settop(co, 0);
  return status;
#else
  int status;
  (void)L;
  status = lua_resume(co, nargs);
  if (status == LUA_YIELD || status == 0) lua_settop(co, 0);
  return status;
#endif
}

/* Pushes onto L the failed job's message with the job's own traceback (Lua 5.1 has no
 * luaL_traceback: debug.traceback(thread, message) does it there). */
static void jobTraceback(lua_State *L, lua_State *co) {
  const char *msg = lua_tostring(co, -1);
#if LUA_VERSION_NUM >= 502 || defined(LUAJIT_VERSION)
  luaL_traceback(L, co, msg, 0);
#else
  lua_getglobal(L, "debug");
  lua_getfield(L, -1, "traceback");
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    lua_pushstring(L, msg);
    return;
  }
  lua_pushthread(co);
  lua_xmove(co, L, 1);
  lua_pushstring(L, msg);
  lua_pushinteger(L, 0);
  lua_call(L, 3, 1);
#endif
}

/* Resumes every suspended coroutine of the global table `Jobs` with `dt`; a job that ends or
 * fails is dropped from the table (a failure is logged with the job's traceback). */
static void runJobs(lua_State *L, double dt) {
  int i, n;
  lua_getglobal(L, "Jobs");
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return;
  }
#if LUA_VERSION_NUM >= 502
  n = (int)lua_rawlen(L, -1);
#else
  n = (int)lua_objlen(L, -1);
#endif
  for (i = 1; i <= n; i++) {
    lua_State *co;
    int status;
    lua_rawgeti(L, -1, i);
    co = lua_tothread(L, -1);
    /* Only a suspended job is resumed: one never run (its function on its stack) or yielded. */
    if (co == NULL ||
        !(lua_status(co) == LUA_YIELD || (lua_status(co) == 0 && lua_gettop(co) > 0))) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushnumber(co, dt);
    status = resumeThread(L, co, 1);
    if (status != LUA_YIELD) {
      if (status != 0) {
        jobTraceback(L, co);
        logError("job", lua_tostring(L, -1));
        lua_pop(L, 1);
      }
      /* Dropped: Jobs[i] = false keeps the other jobs' places. */
      lua_pushboolean(L, 0);
      lua_rawseti(L, -3, i);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static int quitRequested(lua_State *L) {
  int quit;
  lua_getglobal(L, "Quit");
  quit = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return quit;
}

static long frameLoop(lua_State *L, const Options *o) {
  double dt = (double)o->periodMs / 1000.0;
  long frame = 0;
  while ((o->frames <= 0 || frame < o->frames) && !quitRequested(L)) {
    frame++;
    /* A game without Update (a script that does its work at boot) just has frames. */
    lua_getglobal(L, "Update");
    if (lua_isfunction(L, -1)) {
      lua_pushnumber(L, dt);
      protectedCall(L, 1, "Update", o->handler);
    } else {
      lua_pop(L, 1);
    }
    runJobs(L, dt);
    sleepMs(o->periodMs);
  }
  return frame;
}

/* ---- start-up ---- */

static int parseLong(const char *text, long *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0) return 0;
  *out = v;
  return 1;
}

static int parseOptions(int argc, char **argv, Options *o) {
  int i;
  o->root = ".";
  o->frames = 0;
  o->periodMs = 10;
  o->ballastMb = 0;
  o->handler = HANDLER_C;
  o->bootArgc = 0;
  o->bootArgv = NULL;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      o->bootArgc = argc - i - 1;
      o->bootArgv = argv + i + 1;
      return 1;
    }
    if (i + 1 >= argc) return 0;
    if (strcmp(a, "--root") == 0) {
      o->root = argv[++i];
    } else if (strcmp(a, "--frames") == 0) {
      if (!parseLong(argv[++i], &o->frames)) return 0;
    } else if (strcmp(a, "--period-ms") == 0) {
      if (!parseLong(argv[++i], &o->periodMs)) return 0;
    } else if (strcmp(a, "--ballast-mb") == 0) {
      if (!parseLong(argv[++i], &o->ballastMb)) return 0;
    } else if (strcmp(a, "--handler") == 0) {
      const char *kind = argv[++i];
      if (strcmp(kind, "c") == 0)
        o->handler = HANDLER_C;
      else if (strcmp(kind, "lua") == 0)
        o->handler = HANDLER_LUA;
      else if (strcmp(kind, "none") == 0)
        o->handler = HANDLER_NONE;
      else
        return 0;
    } else {
      return 0;
    }
  }
  return 1;
}

/* Runs boot.lua from the script root through the engine's own searcher (as `require` would,
 * chunk name `@boot.lua`), with the boot arguments as its `...`. */
static int boot(lua_State *L, const Options *o) {
  int i;
  lua_pushstring(L, o->root);
  lua_pushcclosure(L, scriptSearcher, 1);
  lua_pushstring(L, "boot");
  lua_call(L, 1, 2);
  if (!lua_isfunction(L, -2)) {
    logError("boot", lua_tostring(L, -2));
    lua_pop(L, 2);
    return 1;
  }
  lua_pop(L, 1);
  for (i = 0; i < o->bootArgc; i++) lua_pushstring(L, o->bootArgv[i]);
  return protectedCall(L, o->bootArgc, "boot.lua", HANDLER_C);
}

int main(int argc, char **argv) {
  Options o;
  lua_State *L;
  long frames;
  int status;
  if (!parseOptions(argc, argv, &o)) {
    fprintf(stderr,
            "usage: %s [--root DIR] [--frames N] [--period-ms MS] [--ballast-mb MB] [--handler "
            "c|lua|none] "
            "[-- BOOT-ARGS...]\n",
            argv[0]);
    return 2;
  }
  L = luaL_newstate();
  if (L == NULL) return 1;
  luaL_openlibs(L);
  preloadSocket(L);
  installSearcher(L, o.root);
  lua_pushcfunction(L, enginePrint);
  lua_setglobal(L, "print");
  allocateBallast(L, o.ballastMb);

#ifdef LUAJIT_VERSION
  printf(ENGINE_TAG "%s\n", LUAJIT_VERSION);
#else
  printf(ENGINE_TAG "%s\n", LUA_RELEASE);
#endif
  fflush(stdout);
  status = boot(L, &o);
  if (status != 0) {
    lua_close(L);
    return 1;
  }
  frames = frameLoop(L, &o);
  printf(ENGINE_TAG "ran %ld frames\n", frames);
  fflush(stdout);
  lua_close(L);
  return 0;
}
