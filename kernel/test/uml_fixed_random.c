// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for the deterministic UML testbed (python -m msfc.linux): User-Mode Linux
 * takes all its host randomness through glibc's getrandom() (os_getrandom(): the boot seed and
 * arch_get_random_longs()).  This replaces it with a fixed stream (splitmix64, seeded by the
 * environment variable MSFC_UML_SEED), so that with time-travel=inf-cpu the guest kernel's RNG,
 * and with it the qdiscs' hash keys, TCP's initial sequence numbers and port choices, and the
 * guest programs' own seeds, are the same in every boot with the same seed.
 *
 *   gcc -O2 -shared -fPIC -o uml_fixed_random.so uml_fixed_random.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static uint64_t state;
static int seeded;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	unsigned char *p = buf;
	size_t i;

	(void)flags;
	if (!seeded) {
		const char *s = getenv("MSFC_UML_SEED");

		state = s ? strtoull(s, NULL, 0) : 1;
		seeded = 1;
	}
	for (i = 0; i < len; i += 8) {
		uint64_t v = next();
		size_t n = len - i < 8 ? len - i : 8;

		memcpy(p + i, &v, n);
	}
	return (ssize_t)len;
}
