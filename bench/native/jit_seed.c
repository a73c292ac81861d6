/* bench/native/jit_seed.c - an LD_PRELOAD for bench/sim_instructions.py (measurement only).

LuaJIT seeds its PRNG from getrandom() when a state starts; the JIT draws from it to randomise
the penalties of aborted traces, so which traces a run gets, and what it costs, differ from run
to run (the chord grading run: 3.3 to 3.9 G instructions, same records). simulate.py gives the
simulator fixed bytes the same way (seccomp refuses getrandom, /dev/urandom is a file). Here,
getrandom() through syscall() - what LuaJIT calls - returns bytes made from $JIT_SEED, so a run
repeats to within a few instructions and other seeds sample the JIT's luck. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>

long syscall(long number, ...) {
  va_list ap;
  long a[6];
  va_start(ap, number);
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_getrandom) {
    unsigned char *buf = (unsigned char *)a[0];
    size_t len = (size_t)a[1];
    const char *env = getenv("JIT_SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : 0;
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(i * 37 + 11 + seed * 101 + (seed * i) % 251);
    return (long)len;
  }
  static long (*real)(long, ...);
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
