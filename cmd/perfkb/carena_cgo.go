//go:build cgo && linux

package main

/*
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <malloc.h>

#define PERFKB_ARENA_MAX 2

// perfkb_cap_arenas runs as the program is loaded, before the Go runtime
// starts a thread: glibc fixes its arena limit once threads have made
// arenas, so a cap set later from Go leaves those already made (five by
// the time main runs). An operator's MALLOC_ARENA_MAX or glibc tunable
// stays in force.
__attribute__((constructor)) static void perfkb_cap_arenas(void) {
#ifdef __GLIBC__
	const char *tunables = getenv("GLIBC_TUNABLES");
	if (getenv("MALLOC_ARENA_MAX") == NULL && (tunables == NULL || strstr(tunables, "arena_max") == NULL)) {
		mallopt(M_ARENA_MAX, PERFKB_ARENA_MAX);
	}
#endif
}

// perfkb_arenas counts the arenas glibc has made (-1: not glibc, or the
// count could not be read): malloc_info writes one <heap nr="..."> each.
static int perfkb_arenas(void) {
#ifdef __GLIBC__
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (f == NULL) return -1;
	int rc = malloc_info(0, f);
	fclose(f);
	if (rc != 0) { free(buf); return -1; }
	int n = 0;
	for (char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++) n++;
	free(buf);
	return n;
#else
	return -1;
#endif
}

// perfkb_touch allocates and frees n bytes on the calling thread, which
// gives that thread an arena as pebble's cache fills do.
static void perfkb_touch(size_t n) {
	char *p = malloc(n);
	if (p != NULL) { p[0] = 1; free(p); }
}
*/
import "C"

// Built with cgo (the default where a C compiler is found), pebble takes
// its block cache and memtables from C's malloc, and glibc gives each
// thread that allocates an arena of its own, up to eight per core, each
// reserving 64 MiB of address space and keeping the blocks freed into it.
// perfkb serve's request threads fill cache blocks: in the hardening soak
// the server grew to 4.6 GiB of address space and 2 GiB resident and died
// in pthread_create under ulimit -v 5G; with two arenas the same run took
// 2.7 GiB and 1.2 GiB. The cap is set by the constructor above, as the
// program loads.
const cArenaMax = C.PERFKB_ARENA_MAX

// cArenas is how many arenas the C allocator has made (-1: unknown).
func cArenas() int { return int(C.perfkb_arenas()) }

// cTouch allocates and frees n bytes of C memory on the calling thread.
func cTouch(n int) { C.perfkb_touch(C.size_t(n)) }
