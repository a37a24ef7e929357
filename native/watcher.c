/*
 * watcher.c: lets an idle program run with no debug hook at all and still notice IDE commands
 * (pause, new breakpoints) within milliseconds, even in a tight loop without calls. A thread
 * waits until the IDE's socket has data, then signals the thread that runs Lua (SIGURG: ignored
 * by default, so a late or stray one does no harm). The signal handler only calls lua_sethook,
 * which Lua allows from a signal handler, to make the next instruction call the C hook; the hook
 * removes that count again and lets the runtime read the commands. Until the runtime has read
 * them (its poll acknowledges) or RETRY_MS have passed, the thread does not signal again; while
 * the runtime's own code runs (a stop, the handshake, a poll) it does not signal at all.
 *
 * What it costs the program: nothing while the IDE is silent; one signal per burst of commands.
 * A signal interrupts a blocking system call of the Lua thread: calls that SA_RESTART restarts
 * go on; poll/select/sleep-like calls return EINTR (luasocket retries them).
 *
 * On Linux no thread is needed: the kernel itself signals the Lua thread when the socket gets
 * data (O_ASYNC, with F_SETSIG and F_SETOWN_EX naming the thread). A second thread is not free:
 * once a process has one, glibc's malloc takes its locked path for good, which cost an
 * allocation-heavy game loop 7-9 % on Lua 5.1/5.4. O_ASYNC stays on while the runtime reads
 * the socket itself: a signal then only leaves a poll request, served when the runtime's code
 * ends. There is no retry: a signal that armed a thread which then did not run is caught up by
 * the runtime's periodic safe-point poll (wakeup.lua), as any lost wakeup is. Elsewhere, or when
 * the socket refuses, the thread does the watching.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* F_SETSIG, F_SETOWN_EX */
#endif
#include "luapanda_native.h"

#if defined(__unix__) || defined(__APPLE__)

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#define LPN_SIGNAL SIGURG
#define RETRY_MS 100 /* signal again when no poll answered within this time */
#define MIN_GAP_MS 5 /* and never more often than this */
#define QUIET_MS 20  /* while the runtime reads the socket itself, look again this often */

static pthread_t luaThread;
static pthread_t watcherThread;
static int threadRunning = 0;
static int signalsWanted = 0; /* atomic: off before the thread is stopped (see lpn_watchStop) */
static int wakeFds[2] = {-1, -1};
static int watchedFd = -1;
static int stopFlag = 0, quietFlag = 0, ackFlag = 0; /* shared with the thread (atomics) */
static unsigned long signalsSent = 0;                /* written by the thread only */
static const char *problem = NULL;
static int handlerInstalled = 0;
static struct sigaction previousAction;
static int kernelSignals = 0; /* the kernel signals on data (O_ASYNC): no thread runs */
static volatile unsigned long signalsReceived = 0; /* kernel signals taken, on the Lua thread */
static int wakeWanted = 0;            /* atomic: the wake timer runs (see lpn_wakeStart) */
static unsigned long wakeSignals = 0; /* wake-timer signals taken, on the Lua thread */

/* LuaJIT's profiler signal handler (see lpn_kickStart), or NULL. */
static void (*jitKick)(int) = NULL;

/* LuaJIT: compiled code runs no debug hook, so a hook armed while a trace runs fires only when
   the trace exits. Traces recorded while LuaJIT's profiler runs in line mode check its flag at
   every new source line; calling the profiler's own handler sets that flag, and the trace
   leaves at its next check. Only while the handler installed is still the one seen at start. */
static void kickCompiledCode(void) {
  struct sigaction current;
  void (*kick)(int) = jitKick;
  if (kick == NULL || sigaction(SIGPROF, NULL, &current) != 0) return;
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == kick) kick(SIGPROF);
}

static void onSignal(int sig) {
  int savedErrno = errno;
  (void)sig;
  /* Only the Lua thread may touch Lua state; a stray SIGURG elsewhere is ignored. */
  int watched = __atomic_load_n(&signalsWanted, __ATOMIC_ACQUIRE);
  if ((watched || __atomic_load_n(&wakeWanted, __ATOMIC_ACQUIRE)) &&
      pthread_equal(pthread_self(), luaThread)) {
    lpn_pollRequested = 1;
    if (!watched)
      wakeSignals++;
    else if (kernelSignals)
      signalsReceived++;
    if (lpn_busy == 0 && !lpn_inside) {
      lua_State *running = lpn_running;
      if (running) lpn_arm(running);
      if (lpn.owner && lpn.owner != running) lpn_arm(lpn.owner);
      kickCompiledCode();
    }
  }
  errno = savedErrno;
}

static int installHandler(const char **why) {
  struct sigaction current, action;
  if (sigaction(LPN_SIGNAL, NULL, &current) != 0) {
    *why = "sigaction(SIGURG) failed";
    return 0;
  }
  if (handlerInstalled) {
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == onSignal) return 1;
    *why = "the program replaced the SIGURG handler";
    return 0;
  }
  if ((current.sa_flags & SA_SIGINFO) ||
      (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN)) {
    *why = "the program handles SIGURG itself";
    return 0;
  }
  memset(&action, 0, sizeof action);
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(LPN_SIGNAL, &action, &previousAction) != 0) {
    *why = "sigaction(SIGURG) failed";
    return 0;
  }
  handlerInstalled = 1;
  return 1;
}

void lpn_signalRestore(void) {
  if (handlerInstalled) {
    sigaction(LPN_SIGNAL, &previousAction, NULL);
    handlerInstalled = 0;
  }
  if (wakeFds[0] >= 0) {
    close(wakeFds[0]);
    close(wakeFds[1]);
    wakeFds[0] = wakeFds[1] = -1;
  }
}

static long long nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wake(void) {
  char byte = 1;
  if (wakeFds[1] >= 0) {
    ssize_t ignored = write(wakeFds[1], &byte, 1); /* a full pipe already wakes the thread */
    (void)ignored;
  }
}

static void drainWakePipe(void) {
  char buffer[64];
  while (read(wakeFds[0], buffer, sizeof buffer) > 0) {
  }
}

static void *watcherMain(void *unused) {
  int fd = watchedFd;
  int awaiting = 0; /* signalled; waiting for the runtime's poll */
  long long signalledAt = 0;
  (void)unused;
  while (!__atomic_load_n(&stopFlag, __ATOMIC_ACQUIRE)) {
    struct pollfd fds[2];
    int count = 1, timeout = -1, ready;
    long long now = nowMs();
    if (__atomic_exchange_n(&ackFlag, 0, __ATOMIC_ACQ_REL)) awaiting = 0;
    if (awaiting && now - signalledAt >= RETRY_MS) awaiting = 0;
    fds[0].fd = wakeFds[0];
    fds[0].events = POLLIN;
    fds[0].revents = 0;
    if (awaiting) {
      timeout = (int)(RETRY_MS - (now - signalledAt));
    } else if (__atomic_load_n(&quietFlag, __ATOMIC_ACQUIRE)) {
      /* No socket in the set (its data is for the runtime, which reads it now): no busy loop,
         and leaving the quiet state costs the Lua thread no system call. */
      timeout = QUIET_MS;
    } else if (fd >= 0) {
      if (now - signalledAt < MIN_GAP_MS) {
        timeout = (int)(MIN_GAP_MS - (now - signalledAt));
      } else {
        fds[1].fd = fd;
        fds[1].events = POLLIN;
        fds[1].revents = 0;
        count = 2;
      }
    }
    ready = poll(fds, (nfds_t)count, timeout);
    if (ready < 0) {
      if (errno == EINTR) continue;
      problem = "poll() failed in the watcher thread";
      break;
    }
    if (fds[0].revents) drainWakePipe();
    if (count == 2 && fds[1].revents) {
      if (fds[1].revents & POLLNVAL) {
        fd = -1; /* closed under us: wait to be stopped */
        problem = "the socket was closed while watched";
        continue;
      }
      if (__atomic_load_n(&quietFlag, __ATOMIC_ACQUIRE)) continue;
      pthread_kill(luaThread, LPN_SIGNAL);
      signalsSent++;
      awaiting = 1;
      signalledAt = nowMs();
    }
  }
  return NULL;
}

static int makeWakePipe(void) {
  int i;
  if (wakeFds[0] >= 0) return 1;
  if (pipe(wakeFds) != 0) return 0;
  for (i = 0; i < 2; i++) {
    fcntl(wakeFds[i], F_SETFL, fcntl(wakeFds[i], F_GETFL) | O_NONBLOCK);
    fcntl(wakeFds[i], F_SETFD, FD_CLOEXEC);
  }
  return 1;
}

#if defined(__linux__) && defined(F_SETSIG) && defined(F_SETOWN_EX)
/* O_ASYNC on or off; on: data that came before is looked for once (no signal will tell it). */
static void kernelSignalsOn(int on) {
  int flags = fcntl(watchedFd, F_GETFL);
  if (flags < 0) return;
  if (on == !!(flags & O_ASYNC)) return;
  if (fcntl(watchedFd, F_SETFL, on ? (flags | O_ASYNC) : (flags & ~O_ASYNC)) != 0) return;
  if (on) {
    struct pollfd pfd;
    pfd.fd = watchedFd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    if (poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN)) lpn_pollRequested = 1;
  }
}

/* Asks the kernel to send LPN_SIGNAL to this thread when `fd` gets data. */
static int startKernelSignals(int fd) {
  struct f_owner_ex owner;
  owner.type = F_OWNER_TID;
  owner.pid = (pid_t)syscall(SYS_gettid);
  if (fcntl(fd, F_GETFL) < 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
      fcntl(fd, F_SETSIG, LPN_SIGNAL) != 0) {
    return 0;
  }
  watchedFd = fd;
  kernelSignals = 1;
  kernelSignalsOn(1);
  return 1;
}

static void stopKernelSignals(void) {
  kernelSignalsOn(0);
  fcntl(watchedFd, F_SETSIG, 0);
}
#else
static int startKernelSignals(int fd) {
  (void)fd;
  return 0;
}
static void stopKernelSignals(void) {}
#endif

int lpn_watchStart(int fd, const char **why) {
  sigset_t all, saved;
  int failed;
  lpn_watchStop();
  problem = NULL;
  if (fd < 0) {
    *why = "no socket descriptor";
    return 0;
  }
  if (!installHandler(why)) return 0;
  if (pthread_sigmask(SIG_BLOCK, NULL, &saved) == 0 && sigismember(&saved, LPN_SIGNAL) == 1) {
    *why = "the Lua thread blocks SIGURG";
    return 0;
  }
  luaThread = pthread_self();
  if (startKernelSignals(fd)) {
    __atomic_store_n(&signalsWanted, 1, __ATOMIC_RELEASE);
    return 1;
  }
  /* The thread's way: a pipe to wake it, and the thread itself. */
  if (!makeWakePipe()) {
    *why = "pipe() failed";
    return 0;
  }
  drainWakePipe();
  watchedFd = fd;
  __atomic_store_n(&stopFlag, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&ackFlag, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&quietFlag, lpn_inside ? 1 : 0, __ATOMIC_RELEASE);
  /* The thread takes no signal of the program: it starts with every signal blocked. */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  failed = pthread_create(&watcherThread, NULL, watcherMain, NULL);
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  if (failed) {
    *why = "pthread_create failed";
    return 0;
  }
  threadRunning = 1;
  __atomic_store_n(&signalsWanted, 1, __ATOMIC_RELEASE);
  return 1;
}

void lpn_watchStop(void) {
  if (kernelSignals) {
    __atomic_store_n(&signalsWanted, 0, __ATOMIC_RELEASE);
    stopKernelSignals();
    kernelSignals = 0;
    watchedFd = -1;
    return;
  }
  if (!threadRunning) return;
  /* A signal the thread sent before it stopped can be delivered while this thread waits in
     pthread_join: from here on the handler ignores it instead of arming a hook after the stop. */
  __atomic_store_n(&signalsWanted, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&stopFlag, 1, __ATOMIC_RELEASE);
  wake();
  pthread_join(watcherThread, NULL); /* bounded: the thread wakes on the pipe at once */
  threadRunning = 0;
  watchedFd = -1;
}

void lpn_watchAck(void) {
  if (!threadRunning) return;
  __atomic_store_n(&ackFlag, 1, __ATOMIC_RELEASE);
  wake();
}

void lpn_watchQuiet(int quiet) {
  /* With kernel signals O_ASYNC stays on: the runtime enters and leaves its own code on hot paths
     (a condition's evaluation), where a system call would cost more than a signal that only
     leaves a poll request behind. */
  if (kernelSignals) return;
  __atomic_store_n(&quietFlag, quiet ? 1 : 0, __ATOMIC_RELEASE);
}

int lpn_watchActive(void) { return threadRunning || kernelSignals; }
const char *lpn_watchKind(void) {
  return kernelSignals ? "socket signals" : (threadRunning ? "thread" : "none");
}
const char *lpn_watchProblem(void) { return problem; }
unsigned long lpn_watchSignals(void) { return kernelSignals ? signalsReceived : signalsSent; }

/*
 * The wake timer: while no IDE is attached, a signal every `ms` milliseconds makes the Lua thread
 * poll, so that the runtime tries to attach on time whatever the program does (an engine that
 * calls Lua every frame and allocates little reaches no garbage-collection cycle for minutes).
 * On Linux a POSIX timer signals the Lua thread itself (SIGEV_THREAD_ID): no thread is started,
 * which keeps glibc's malloc on its unlocked path. Elsewhere there is no wake timer (the runtime
 * then relies on its garbage-collection heartbeat and LuaPanda.tick()).
 */
#if defined(__linux__) && defined(SIGEV_THREAD_ID)
static timer_t wakeTimer;
static int wakeTimerOn = 0;

int lpn_wakeStart(int ms, const char **why) {
  struct sigevent event;
  struct itimerspec period;
  sigset_t blocked;
  lpn_wakeStop();
  if (ms <= 0) {
    *why = "no period";
    return 0;
  }
  if (!installHandler(why)) return 0;
  if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) == 0 && sigismember(&blocked, LPN_SIGNAL) == 1) {
    *why = "the Lua thread blocks SIGURG";
    return 0;
  }
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = LPN_SIGNAL;
  event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  if (timer_create(CLOCK_MONOTONIC, &event, &wakeTimer) != 0) {
    *why = "timer_create failed";
    return 0;
  }
  wakeTimerOn = 1;
  luaThread = pthread_self();
  __atomic_store_n(&wakeWanted, 1, __ATOMIC_RELEASE);
  period.it_interval.tv_sec = ms / 1000;
  period.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
  period.it_value = period.it_interval;
  if (timer_settime(wakeTimer, 0, &period, NULL) != 0) {
    lpn_wakeStop();
    *why = "timer_settime failed";
    return 0;
  }
  return 1;
}

void lpn_wakeStop(void) {
  /* A signal already on its way is ignored by the handler from here on. */
  __atomic_store_n(&wakeWanted, 0, __ATOMIC_RELEASE);
  if (wakeTimerOn) {
    timer_delete(wakeTimer);
    wakeTimerOn = 0;
  }
}

int lpn_wakeActive(void) { return wakeTimerOn; }
#else
int lpn_wakeStart(int ms, const char **why) {
  (void)ms;
  *why = "no wake timer on this platform (Linux only)";
  return 0;
}
void lpn_wakeStop(void) {}
int lpn_wakeActive(void) { return 0; }
#endif
unsigned long lpn_wakeSignals(void) { return wakeSignals; }

int lpn_kickStart(void) {
  struct sigaction current;
  if (sigaction(SIGPROF, NULL, &current) != 0 || (current.sa_flags & SA_SIGINFO) ||
      current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) {
    return 0;
  }
  jitKick = current.sa_handler;
  return 1;
}

void lpn_kickStop(void) { jitKick = NULL; }

#else /* no POSIX threads and signals: the runtime polls with a count hook instead */

int lpn_watchStart(int fd, const char **why) {
  (void)fd;
  *why = "no watcher on this platform (needs POSIX threads and signals)";
  return 0;
}
void lpn_watchStop(void) {}
void lpn_watchAck(void) {}
void lpn_watchQuiet(int quiet) { (void)quiet; }
int lpn_watchActive(void) { return 0; }
const char *lpn_watchKind(void) { return "none"; }
const char *lpn_watchProblem(void) { return NULL; }
unsigned long lpn_watchSignals(void) { return 0; }
void lpn_signalRestore(void) {}
int lpn_wakeStart(int ms, const char **why) {
  (void)ms;
  *why = "no wake timer on this platform (needs POSIX signals)";
  return 0;
}
void lpn_wakeStop(void) {}
int lpn_wakeActive(void) { return 0; }
unsigned long lpn_wakeSignals(void) { return 0; }
int lpn_kickStart(void) { return 0; }
void lpn_kickStop(void) {}

#endif
