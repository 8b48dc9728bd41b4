// SPDX-License-Identifier: GPL-2.0
/*
 * msfc-bpf: load the MSFC BPF qdisc (msfc.bpf.c), configure it, read its counters.
 *
 *   msfc-bpf load [ PARAMETER VALUE ]...   validate, load, register the qdisc kind
 *                                          msfc_bpf, write its configuration
 *   msfc-bpf check [ PARAMETER VALUE ]...  validate and derive as load does, load nothing
 *   msfc-bpf stats [ -j ]                  per-class counters (JSON with -j)
 *   msfc-bpf unload                        unregister (delete the qdisc first)
 *
 * A BPF qdisc gets no netlink options, so the parameters are given here, with tc's
 * names, ranges and messages (kernel/include/uapi/linux/pkt_sched_msfc.h); the qdisc
 * copies the configuration when it is created: msfc-bpf load ..., then
 * tc qdisc add dev DEV root msfc_bpf.  The struct_ops link and the maps are pinned in
 * /sys/fs/bpf/msfc_bpf/, so the kind stays registered after this program exits.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pkt_sched_msfc.h"
#include "msfc_bpf.h"
#include "msfc.skel.h"

#define PIN_DIR		"/sys/fs/bpf/" MSFC_BPF_NAME
#define PIN_LINK	PIN_DIR "/link"
#define PIN_CFG		PIN_DIR "/cfg"
#define PIN_STATS	PIN_DIR "/stats"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CODEL_SHIFT	10
#define EXACT_SHIFT	16
#define RATIO_ONE	65536
#define RATE_SHIFT	32
/* the link-layer length of an MTU-sized Ethernet frame (psched_mtu() of a 1500-byte
 * MTU): the quantum's default, as the module takes it from the device
 */
#define DEFAULT_QUANTUM	1514

static const char *prog = "msfc-bpf";

static const struct {
	const char *name;
	unsigned int prios;
	__u8 map[TC_MSFC_DSCP_MAP_LEN];
} dscp_maps[] = TC_MSFC_DSCP_MAPS;

static const struct {
	const char *name;
	unsigned int dscp;
} dscp_names[] = TC_MSFC_DSCP_NAMES;

enum unit { COUNT, BYTES, TIME, RATIO };

static const char *const unit_words[] = {
	[COUNT] = "a whole number below 2^32",
	[BYTES] = "a size below 4 GiB (bytes, or with a unit: kb, mb, gb, kbit, ...)",
	[TIME] = "a time with a unit (us, ms or s: 5ms)",
	[RATIO] = "a decimal number",
};

enum {
	O_PRIOS, O_FLOWS, O_QUANTUM, O_RATIO, O_TARGET, O_INTERVAL, O_LIMIT, O_MEMORY_LIMIT,
	O_DROP_BATCH, O_N
};

typedef unsigned __int128 u128;

static const char *const auto_names[] = { "off", "unmarked", "all", "?" };
static const char *const isolate_names[] = { "flow", "src", "dst", "both" };

static const struct opt {
	const char *name;
	enum unit unit;
	__u64 lo, hi, def;
	const char *range;
} opts[O_N] = {
	[O_PRIOS] = { "prios", COUNT, TC_MSFC_PRIOS_MIN, TC_MSFC_PRIOS_MAX, TC_MSFC_PRIOS_DEFAULT,
		      TC_MSFC_PRIOS_RANGE },
	[O_FLOWS] = { "flows", COUNT, TC_MSFC_FLOWS_MIN, TC_MSFC_FLOWS_MAX, TC_MSFC_FLOWS_DEFAULT,
		      TC_MSFC_FLOWS_RANGE },
	[O_QUANTUM] = { "quantum", BYTES, TC_MSFC_QUANTUM_MIN, TC_MSFC_QUANTUM_MAX,
			DEFAULT_QUANTUM, TC_MSFC_QUANTUM_RANGE },
	[O_RATIO] = { "ratio", RATIO, TC_MSFC_RATIO_MIN, TC_MSFC_RATIO_MAX, TC_MSFC_RATIO_DEFAULT,
		      TC_MSFC_RATIO_RANGE },
	[O_TARGET] = { "target", TIME, TC_MSFC_TARGET_MIN, TC_MSFC_TARGET_MAX,
		       TC_MSFC_TARGET_DEFAULT, TC_MSFC_TARGET_RANGE },
	[O_INTERVAL] = { "interval", TIME, TC_MSFC_INTERVAL_MIN, TC_MSFC_INTERVAL_MAX,
			 TC_MSFC_INTERVAL_DEFAULT, TC_MSFC_INTERVAL_RANGE },
	[O_LIMIT] = { "limit", COUNT, TC_MSFC_LIMIT_MIN, TC_MSFC_LIMIT_MAX, TC_MSFC_LIMIT_DEFAULT,
		      TC_MSFC_LIMIT_RANGE },
	[O_MEMORY_LIMIT] = { "memory_limit", BYTES, TC_MSFC_MEMORY_LIMIT_MIN,
			     TC_MSFC_MEMORY_LIMIT_MAX, TC_MSFC_MEMORY_LIMIT_DEFAULT,
			     TC_MSFC_MEMORY_LIMIT_RANGE },
	[O_DROP_BATCH] = { "drop_batch", COUNT, TC_MSFC_DROP_BATCH_MIN, TC_MSFC_DROP_BATCH_MAX,
			   TC_MSFC_DROP_BATCH_DEFAULT, TC_MSFC_DROP_BATCH_RANGE },
};

static const struct {
	const char *name;
	const char *words;
} presets[] = {
	{ "diffserv3", TC_MSFC_PRESET_DIFFSERV3 },
	{ "diffserv4", TC_MSFC_PRESET_DIFFSERV4 },
};

/* What the words given set */
struct args {
	__u64 val[9];		/* by O_* */
	bool have[9];
	__u32 quanta[TC_MSFC_MAX_PRIOS];
	unsigned int nquanta;	/* 0: from quantum and ratio */
	__u8 map[TC_MSFC_DSCP_MAP_LEN];
	__u64 bandwidth;
	__s32 overhead;
	__u32 mpu, framing, raw, ingress, weights, overload, boost, order, inversion, isolate;
	__u32 auto_mode;
	bool have_raw;
};

static int fail(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return -1;
}

/* "2" "0x10" -> value; whole numbers only */
static int get_u64(__u64 *v, const char *arg)
{
	char *end;

	if (!*arg || *arg == '-')
		return -1;
	errno = 0;
	*v = strtoull(arg, &end, 0);
	return errno || *end ? -1 : 0;
}

struct unit_factor {
	const char *name;
	double factor;
};

/* a number followed by one of @units (case-insensitive): *v = number * factor, at most @max */
static int get_scaled(__u64 *v, const char *arg, const struct unit_factor *units, size_t n, double max)
{
	char *end;
	double d;
	size_t i;

	errno = 0;
	d = strtod(arg, &end);
	if (errno || end == arg || !(d >= 0))
		return -1;
	for (i = 0; i < n; i++) {
		if (strcasecmp(end, units[i].name) == 0) {
			d *= units[i].factor;
			if (d > max)
				return -1;
			*v = (__u64)d;
			return 0;
		}
	}
	return -1;
}

/* tc's get_size(): bytes with b, k/kb, m/mb, g/gb, kbit, mbit, gbit */
static int get_size(__u64 *v, const char *arg)
{
	static const struct unit_factor units[] = {
		{ "", 1 }, { "b", 1 }, { "k", 1024 }, { "kb", 1024 }, { "m", 1048576 },
		{ "mb", 1048576 }, { "g", 1073741824.0 }, { "gb", 1073741824.0 },
		{ "kbit", 1024 / 8.0 }, { "mbit", 1048576 / 8.0 }, { "gbit", 1073741824.0 / 8 },
	};

	return get_scaled(v, arg, units, ARRAY_SIZE(units), 4294967295.0);
}

/* tc's get_time(): microseconds; a unit is required (a bare number would be seconds) */
static int get_time_us(__u64 *v, const char *arg)
{
	static const struct unit_factor units[] = {
		{ "s", 1e6 }, { "sec", 1e6 }, { "secs", 1e6 }, { "ms", 1e3 }, { "msec", 1e3 },
		{ "msecs", 1e3 }, { "us", 1 }, { "usec", 1 }, { "usecs", 1 },
	};

	return get_scaled(v, arg, units, ARRAY_SIZE(units), 4294967295.0);
}

/* tc's get_rate64(): bytes/s from bit, kbit, mbit, gbit, tbit, bps, kbps, ... */
static int get_rate(__u64 *v, const char *arg)
{
	static const struct unit_factor units[] = {
		{ "", 1 / 8.0 }, { "bit", 1 / 8.0 }, { "kbit", 1e3 / 8 }, { "mbit", 1e6 / 8 },
		{ "gbit", 1e9 / 8 }, { "tbit", 1e12 / 8 }, { "kibit", 1024 / 8.0 },
		{ "mibit", 1048576 / 8.0 }, { "gibit", 1073741824.0 / 8 },
		{ "bps", 1 }, { "kbps", 1e3 }, { "mbps", 1e6 }, { "gbps", 1e9 }, { "tbps", 1e12 },
	};

	return get_scaled(v, arg, units, ARRAY_SIZE(units), 1.8e19);
}

static int get_opt(const struct opt *o, __u64 *val, const char *arg)
{
	__u64 v = 0;
	int err;

	switch (o->unit) {
	case COUNT:
		err = get_u64(&v, arg);
		break;
	case BYTES:
		err = get_size(&v, arg);
		break;
	case TIME:
		err = get_time_us(&v, arg);
		break;
	default: {
		char *end;
		double r;

		errno = 0;
		r = strtod(arg, &end);
		err = errno || end == arg || *end || !(r >= 0);
		r = floor(r * 65536.0 + 0.5);
		v = r > 4294967295.0 ? 4294967295ULL : (__u64)r;
	}
	}
	if (err) {
		fprintf(stderr, "%s: %s must be %s, got \"%s\": not %s\n", prog, o->name, o->range,
			arg, unit_words[o->unit]);
		return -1;
	}
	if (v < o->lo || v > o->hi) {
		fprintf(stderr, "%s: %s must be %s, got \"%s\"\n", prog, o->name, o->range, arg);
		return -1;
	}
	*val = v;
	return 0;
}

static int get_dscp(unsigned int *dscp, const char *arg)
{
	__u64 v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dscp_names); i++) {
		if (strcasecmp(arg, dscp_names[i].name) == 0) {
			*dscp = dscp_names[i].dscp;
			return 0;
		}
	}
	if (get_u64(&v, arg) || v > 63)
		return -1;
	*dscp = v;
	return 0;
}

static int find_map(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dscp_maps); i++)
		if (strcasecmp(name, dscp_maps[i].name) == 0)
			return i;
	return -1;
}

/* A map entry: "2" (a class), "2+nqb" (NQB flows of class 2) or "le" (the least-effort
 * lane), as TC_MSFC_DSCP_* encodes them (docs/algorithm.md, "LE and NQB")
 */
static int get_map_entry(__u8 *e, const char *arg)
{
	static const char nqb[] = "+nqb";
	size_t n = strlen(arg), k = sizeof(nqb) - 1;
	char num[24];
	__u64 cls;

	if (strcasecmp(arg, "le") == 0) {
		*e = TC_MSFC_DSCP_LE;
		return 0;
	}
	if (n > k && strcasecmp(arg + n - k, nqb) == 0) {
		if (n - k >= sizeof(num))
			return -1;
		memcpy(num, arg, n - k);
		num[n - k] = '\0';
		if (get_u64(&cls, num) || cls >= TC_MSFC_MAX_PRIOS)
			return -1;
		*e = TC_MSFC_DSCP_NQB + cls;
		return 0;
	}
	if (get_u64(&cls, arg) || cls >= TC_MSFC_MAX_PRIOS)
		return -1;
	*e = cls;
	return 0;
}

/* "wifi", "46:2,cs1:0", "wifi,cs6:1", "le:le,nqb:1+nqb": as tc's msfc parses dscp_map */
static int parse_dscp_map(__u8 *map, char *arg)
{
	char *tok, *save = NULL;
	bool first = true;

	memcpy(map, dscp_maps[0].map, TC_MSFC_DSCP_MAP_LEN);
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned int dscp;
		__u8 entry;

		if (!colon && first && find_map(tok) >= 0) {
			memcpy(map, dscp_maps[find_map(tok)].map, TC_MSFC_DSCP_MAP_LEN);
			first = false;
			continue;
		}
		if (!colon && first)
			return fail("dscp_map \"%s\" is neither a map name (%s) nor a DSCP:CLASS entry (e.g. ef:2, nqb:1+nqb, le:le)",
				    tok, TC_MSFC_DSCP_MAP_NAMES);
		first = false;
		if (!colon)
			return fail("dscp_map entry \"%s\" is not DSCP:CLASS (e.g. ef:2)%s", tok, "");
		*colon = '\0';
		if (get_dscp(&dscp, tok))
			return fail("\"%s\" is not a DSCP: use 0..63 or a name such as ef, af41, cs1, le, nqb%s",
				    tok, "");
		if (get_map_entry(&entry, colon + 1)) {
			fprintf(stderr, "%s: " TC_MSFC_DSCP_MAP_MSG ", got \"%s\" for DSCP %u (write a class as 2, with nqb as 1+nqb, the lane as le)\n",
				prog, colon + 1, dscp);
			return -1;
		}
		map[dscp] = entry;
	}
	return 0;
}

/* (a * b) >> shift, a < 2^64, b < 2^32, as the kernel's mul_u64_u32_shr() */
static __u64 mul_shr(__u64 a, __u32 b, unsigned int shift)
{
	return (__u64)(((u128)a * b) >> shift);
}

/* sch_msfc.c: msfc_class_quanta() */
static int class_quanta(__u32 prios, __u32 quantum, __u32 ratio, bool exact, __u64 *out)
{
	unsigned int shift = exact ? EXACT_SHIFT : 0;
	__u64 qp = (__u64)quantum << shift, inv = 0;
	__u32 p;

	out[0] = qp;
	for (p = 1; p < prios; p++) {
		qp = (mul_shr(qp, ratio, 15) + 1) >> 1;
		if (!exact && qp < 1)
			qp = 1;
		if (qp > (1ULL << TC_MSFC_CLASS_QUANTUM_MAX_LOG2) << shift)
			return -ERANGE;
		out[p] = qp;
	}
	if (!exact)
		return 0;
	for (p = 0; p < prios; p++) {
		if (!out[p])
			return -EDOM;
		inv += (1ULL << 32) / out[p];
	}
	return inv > (1ULL << 32) / 200 ? -EDOM : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s load [ prios NUMBER ] [ flows NUMBER ] [ quantum BYTES ] [ ratio RATIO ]\n"
		"                [ target TIME ] [ interval TIME ] [ limit PACKETS ]\n"
		"                [ memory_limit BYTES ] [ drop_batch PACKETS ] [ weights rounded|exact ]\n"
		"                [ overload flow|class ] [ boost off|on|across ] [ order round|priority ]\n"
		"                [ inversion allow|prevent ] [ isolate flow|src|dst|both ]\n"
		"                [ auto off|unmarked|all ]\n"
		"                [ quanta BYTES,BYTES... | quanta ratio ] [ overhead BYTES ] [ mpu BYTES ]\n"
		"                [ noatm | atm | ptm ] [ raw ] [ ingress | egress ] [ diffserv3 | diffserv4 ]\n"
		"                [ dscp_map { MAP | [MAP,]DSCP:ENTRY[,...] } ] [ bandwidth RATE ]\n"
		"       %s check [ the parameters of load ]   (validate only, load nothing)\n"
		"       %s stats [ -j ]\n"
		"       %s unload\n"
		"Then: tc qdisc add dev DEV root " MSFC_BPF_NAME "\n"
		"The parameters are tc's for msfc (man tc-msfc); quantum defaults to %d bytes.\n"
		"A dscp_map ENTRY is a class (2), a class of NQB flows (2+nqb) or le, the\n"
		"least-effort lane (dscp_map le:le,nqb:1+nqb).\n",
		prog, prog, prog, prog, DEFAULT_QUANTUM);
}

/* "95,1514,757,378" -> the byte counts; "ratio" -> none */
static int parse_quanta(struct args *a, char *arg)
{
	char *tok, *save = NULL;
	__u64 v;

	a->nquanta = 0;
	if (strcmp(arg, "ratio") == 0)
		return 0;
	if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || *arg == ',')
		return fail("quanta must be byte counts joined by commas, one per class (quanta 95,1514,757,378), or ratio, got \"%s\"%s",
			    arg, "");
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (get_u64(&v, tok))
			return fail("quanta must be byte counts joined by commas, one per class (quanta 95,1514,757,378), or ratio: \"%s\" is not a whole number of bytes%s",
				    tok, "");
		if (v < TC_MSFC_QUANTUM_MIN || v > TC_MSFC_QUANTUM_MAX)
			return fail(TC_MSFC_QUANTA_RANGE_MSG ", got \"%s\"%s", tok, "");
		if (a->nquanta == TC_MSFC_MAX_PRIOS) {
			fprintf(stderr, "%s: " TC_MSFC_QUANTA_COUNT_MSG " (prios is at most %u)\n", prog,
				TC_MSFC_MAX_PRIOS);
			return -1;
		}
		a->quanta[a->nquanta++] = v;
	}
	return 0;
}

/* a mode: *v = the index of arg in words[] ("a, b or c" in the message) */
static int get_mode(const char *name, const char *const *words, unsigned int n, __u32 *v,
		    const char *arg)
{
	unsigned int i;

	for (i = 0; arg && i < n; i++) {
		if (strcmp(arg, words[i]) == 0) {
			*v = i;
			return 0;
		}
	}
	fprintf(stderr, "%s: %s must be ", prog, name);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%s", words[i], i + 2 < n ? ", " : i + 1 < n ? " or " : "");
	fprintf(stderr, ", got \"%s\"\n", arg ? arg : "");
	return -1;
}

static int parse_words(int argc, char **argv, struct args *a, int depth)
{
	static const char *const overload_w[] = { "flow", "class" };
	static const char *const weights_w[] = { "rounded", "exact" };
	static const char *const boost_w[] = { "off", "on", "across" };
	static const char *const order_w[] = { "round", "priority" };
	static const char *const inversion_w[] = { "allow", "prevent" };
	static const char *const isolate_w[] = { "flow", "src", "dst", "both" };
	static const char *const auto_w[] = { "off", "unmarked", "all" };
	size_t i;

	for (; argc > 0; argc--, argv++) {
		const char *w = argv[0];
		char *v = argc > 1 ? argv[1] : NULL;
		bool done = false;

		/* one-word options */
		if (strcmp(w, "noecn") == 0 || strcmp(w, "noatm") == 0 || strcmp(w, "atm") == 0 ||
		    strcmp(w, "ptm") == 0 || strcmp(w, "raw") == 0 || strcmp(w, "ingress") == 0 ||
		    strcmp(w, "egress") == 0) {
			if (strcmp(w, "noatm") == 0)
				a->framing = TC_MSFC_FRAMING_NONE;
			else if (strcmp(w, "atm") == 0)
				a->framing = TC_MSFC_FRAMING_ATM;
			else if (strcmp(w, "ptm") == 0)
				a->framing = TC_MSFC_FRAMING_PTM;
			else if (strcmp(w, "raw") == 0)
				a->raw = 1, a->have_raw = true;
			else if (strcmp(w, "ingress") == 0)
				a->ingress = 1;
			else if (strcmp(w, "egress") == 0)
				a->ingress = 0;
			continue;
		}
		if (strcmp(w, "ecn") == 0)
			return fail("ecn is not implemented by the BPF qdisc (docs/kernel.md, \"BPF qdisc\"): a BPF qdisc cannot write packet data; use noecn, or sch_msfc%s%s",
				    "", "");
		for (i = 0; i < ARRAY_SIZE(presets); i++) {
			if (strcmp(w, presets[i].name))
				continue;
			char *copy = strdup(presets[i].words), *tok, *save = NULL, *pv[64];
			int pc = 0, err;

			if (!copy || depth > 0)
				return fail("cannot expand %s%s", w, "");
			for (tok = strtok_r(copy, " ", &save); tok && pc < 64; tok = strtok_r(NULL, " ", &save))
				pv[pc++] = tok;
			err = parse_words(pc, pv, a, depth + 1);
			free(copy);
			if (err)
				return -1;
			done = true;
		}
		if (done)
			continue;
		if (!v) {
			fprintf(stderr, "%s: what is \"%s\"?\n", prog, w);
			usage();
			return -1;
		}
		for (i = 0; i < O_N && !done; i++) {
			if (strcmp(w, opts[i].name))
				continue;
			if (get_opt(&opts[i], &a->val[i], v))
				return -1;
			a->have[i] = true;
			done = true;
		}
		if (done) {
		} else if (strcmp(w, "overload") == 0) {
			if (get_mode(w, overload_w, 2, &a->overload, v))
				return -1;
		} else if (strcmp(w, "weights") == 0) {
			if (get_mode(w, weights_w, 2, &a->weights, v))
				return -1;
		} else if (strcmp(w, "boost") == 0) {
			if (get_mode(w, boost_w, 3, &a->boost, v))
				return -1;
		} else if (strcmp(w, "order") == 0) {
			if (get_mode(w, order_w, 2, &a->order, v))
				return -1;
		} else if (strcmp(w, "auto") == 0) {
			if (get_mode(w, auto_w, 3, &a->auto_mode, v))
				return -1;
		} else if (strcmp(w, "isolate") == 0) {
			if (get_mode(w, isolate_w, 4, &a->isolate, v))
				return -1;
		} else if (strcmp(w, "inversion") == 0) {
			if (get_mode(w, inversion_w, 2, &a->inversion, v))
				return -1;
		} else if (strcmp(w, "dscp_map") == 0) {
			if (parse_dscp_map(a->map, v))
				return -1;
		} else if (strcmp(w, "quanta") == 0) {
			if (parse_quanta(a, v))
				return -1;
		} else if (strcmp(w, "bandwidth") == 0) {
			if (strcmp(v, "unlimited") == 0) {
				a->bandwidth = 0;
			} else if (get_rate(&a->bandwidth, v) || (strtod(v, NULL) > 0 && !a->bandwidth)) {
				return fail("bandwidth must be " TC_MSFC_BANDWIDTH_RANGE ", got \"%s\": not a rate (100mbit, 1gbit, 512kbit, unlimited)%s",
					    v, "");
			} else if (a->bandwidth > TC_MSFC_BANDWIDTH_MAX) {
				return fail("bandwidth must be " TC_MSFC_BANDWIDTH_RANGE ", got \"%s\"%s", v, "");
			}
		} else if (strcmp(w, "overhead") == 0) {
			char *end;
			long o;

			errno = 0;
			o = strtol(v, &end, 10);
			if (errno || end == v || *end)
				return fail("overhead must be " TC_MSFC_OVERHEAD_RANGE ", got \"%s\": not a whole number%s",
					    v, "");
			if (o < TC_MSFC_OVERHEAD_MIN || o > TC_MSFC_OVERHEAD_MAX)
				return fail("overhead must be " TC_MSFC_OVERHEAD_RANGE ", got \"%s\"%s", v, "");
			a->overhead = o;
			if (!a->have_raw)
				a->raw = 0;
		} else if (strcmp(w, "mpu") == 0) {
			__u64 m;

			if (get_u64(&m, v))
				return fail("mpu must be " TC_MSFC_MPU_RANGE ", got \"%s\": not a whole number%s",
					    v, "");
			if (m > TC_MSFC_MPU_MAX)
				return fail("mpu must be " TC_MSFC_MPU_RANGE ", got \"%s\"%s", v, "");
			a->mpu = m;
		} else {
			fprintf(stderr, "%s: what is \"%s\"?\n", prog, w);
			usage();
			return -1;
		}
		argc--, argv++;
	}
	return 0;
}

/* sch_msfc.c: msfc_link_len() */
static __u32 link_len(__u32 len, __u32 netoff, const struct args *a)
{
	__s64 l = a->raw ? (__s64)len : (__s64)len - (netoff < len ? netoff : len) + a->overhead;

	if (l < (__s64)a->mpu)
		l = a->mpu;
	if (l < 0)
		l = 0;
	if (a->framing == TC_MSFC_FRAMING_ATM)
		return (l + 47) / 48 * 53;
	if (a->framing == TC_MSFC_FRAMING_PTM)
		return l + (l + 63) / 64;
	return l;
}

/* the DSCPs whose entry has @flag (with NQB: and their classes), if any */
static void print_dscps(const char *what, const struct msfc_bpf_cfg *cfg, __u8 flag)
{
	bool any = false;
	__u32 d;

	for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++) {
		__u8 e = cfg->dscp_map[d];

		if (!(e & flag) || (flag == TC_MSFC_DSCP_NQB && (e & TC_MSFC_DSCP_LE)))
			continue;
		if (any)
			printf(", %u", d);
		else
			printf("%s: %s: DSCP %u", prog, what, d);
		if (flag == TC_MSFC_DSCP_NQB)
			printf(" (class %u)", e & TC_MSFC_DSCP_CLASS_MASK);
		any = true;
	}
	if (any)
		printf("\n");
}

/* what load and check print: the configuration as derived from the parameters */
static void describe(const char *what, const struct msfc_bpf_cfg *cfg, const __u64 *val,
		     __u64 bandwidth, __u32 weights)
{
	__u32 p;

	printf("%s: %s %s: prios %u flows %u quantum %u limit %u memory_limit %u drop_batch %u target %lluus interval %lluus",
	       prog, what, MSFC_BPF_NAME, cfg->prios, cfg->flows, cfg->quantum, cfg->limit,
	       cfg->memory_limit, cfg->drop_batch, (unsigned long long)val[O_TARGET],
	       (unsigned long long)val[O_INTERVAL]);
	if (bandwidth)
		printf(" bandwidth %llubit", (unsigned long long)bandwidth * 8);
	printf("\n%s: class quanta", prog);
	for (p = 0; p < cfg->prios; p++)
		printf(" %g", weights ? cfg->quanta[p] / 65536.0 : (double)cfg->quanta[p]);
	printf(" bytes; auto %s isolate %s overload %s boost %s order %s weights %s inversion %s\n",
	       auto_names[cfg->auto_mode & 3], isolate_names[cfg->isolate & 3],
	       cfg->overload ? "class" : "flow",
	       cfg->boost == 2 ? "across" : cfg->boost ? "on" : "off",
	       cfg->order ? "priority" : "round", weights ? "exact" : "rounded",
	       cfg->inversion ? "prevent" : "allow");
	print_dscps("least-effort lane", cfg, TC_MSFC_DSCP_LE);
	print_dscps("NQB flows", cfg, TC_MSFC_DSCP_NQB);
}

/* check_only: validate and derive as load does, print the result, load nothing (no
 * privileges or BPF support needed), so a saved configuration can be checked before a
 * running qdisc is replaced
 */
static int load(int argc, char **argv, bool check_only)
{
	struct msfc_bpf_cfg cfg = { .magic = MSFC_BPF_CFG_MAGIC };
	struct args args = { .raw = TC_MSFC_RAW_DEFAULT }, *a = &args;
	__u64 *val = a->val, bandwidth;
	struct msfc_bpf *skel;
	struct bpf_link *link;
	__u32 weights, zero = 0, p;
	size_t i;
	int err;

	memcpy(a->map, dscp_maps[0].map, sizeof(a->map));
	for (i = 0; i < O_N; i++)
		val[i] = opts[i].def;
	if (parse_words(argc, argv, a, 0))
		return -1;
	if (a->nquanta && a->nquanta != val[O_PRIOS]) {
		fprintf(stderr, "%s: " TC_MSFC_QUANTA_COUNT_MSG " (%u quanta, prios %llu)\n", prog,
			a->nquanta, (unsigned long long)val[O_PRIOS]);
		return -1;
	}
	weights = a->weights;
	bandwidth = a->bandwidth;
	cfg.overload = a->overload;
	cfg.boost = a->boost;
	cfg.order = a->order;
	cfg.overhead = a->overhead;
	cfg.mpu = a->mpu;
	cfg.framing = a->framing;
	cfg.raw = a->raw;
	cfg.ingress = a->ingress;
	cfg.inversion = a->inversion;
	cfg.isolate = a->isolate;
	cfg.auto_mode = a->auto_mode;
	cfg.ratio = val[O_RATIO];
	cfg.n_explicit = a->nquanta;
	for (p = 0; p < a->nquanta; p++)
		cfg.explicit_quanta[p] = a->quanta[p];

	/* what msfc_change() derives (sch_msfc.c), the device's MTU taken as 1514 bytes */
	cfg.prios = val[O_PRIOS];
	cfg.flows = val[O_FLOWS];
	cfg.quantum = val[O_QUANTUM];
	cfg.limit = val[O_LIMIT];
	cfg.memory_limit = val[O_MEMORY_LIMIT];
	cfg.drop_batch = val[O_DROP_BATCH];
	cfg.weights = weights;
	cfg.bandwidth = bandwidth;
	if (bandwidth) {
		cfg.ns_per_byte = ((u128)1000000000ULL << RATE_SHIFT) / bandwidth;
		if (!a->have[O_TARGET]) {
			__u64 ns = mul_shr(cfg.ns_per_byte, link_len(DEFAULT_QUANTUM, 14, a), RATE_SHIFT);
			__u64 us = ns * TC_MSFC_SCALED_TARGET_MTUS / (10 * 1000);

			if (us < TC_MSFC_TARGET_DEFAULT)
				us = TC_MSFC_TARGET_DEFAULT;
			if (us > TC_MSFC_TARGET_MAX / 2)
				us = TC_MSFC_TARGET_MAX / 2;
			val[O_TARGET] = us;
			if (!a->have[O_INTERVAL]) {
				us += TC_MSFC_SCALED_INTERVAL_EXTRA;
				val[O_INTERVAL] = us > TC_MSFC_INTERVAL_DEFAULT ? us :
						  TC_MSFC_INTERVAL_DEFAULT;
			}
		}
	}
	cfg.target = (val[O_TARGET] * 1000) >> CODEL_SHIFT;
	cfg.interval = (val[O_INTERVAL] * 1000) >> CODEL_SHIFT;
	/* auto: T_up, TC_MSFC_AUTO_UP_INTERVALS intervals, at most 2^31 - 1 */
	cfg.auto_up = (__u64)TC_MSFC_AUTO_UP_INTERVALS * cfg.interval < 0x7fffffffULL ?
		      TC_MSFC_AUTO_UP_INTERVALS * cfg.interval : 0x7fffffff;
	if (!cfg.target || cfg.target >= cfg.interval)
		return fail("%s%s", TC_MSFC_TARGET_INTERVAL_MSG, "");
	if (a->nquanta) {
		/* explicit quanta: the bytes given (weights exact: in 2^-16 byte) */
		for (p = 0; p < a->nquanta; p++)
			cfg.quanta[p] = (__u64)a->quanta[p] << (weights ? EXACT_SHIFT : 0);
		err = 0;
	} else {
		err = class_quanta(cfg.prios, cfg.quantum, val[O_RATIO], weights, cfg.quanta);
	}
	if (err == -ERANGE)
		return fail("%s%s", TC_MSFC_CLASS_QUANTUM_MSG, "");
	if (err)
		return fail("%s%s", TC_MSFC_EXACT_WEIGHTS_MSG, "");
	/* the class of an entry is clamped to prios - 1, its NQB flag kept; le is no class */
	for (p = 0; p < TC_MSFC_DSCP_MAP_LEN; p++) {
		__u8 e = a->map[p], c = e & TC_MSFC_DSCP_CLASS_MASK;

		cfg.dscp_map[p] = e & TC_MSFC_DSCP_LE ? TC_MSFC_DSCP_LE :
				  (c < cfg.prios ? c : cfg.prios - 1) | (e & TC_MSFC_DSCP_NQB);
	}
	cfg.packets = (cfg.limit < MSFC_BPF_MAX_PACKETS ? cfg.limit : MSFC_BPF_MAX_PACKETS) + 1;
	if (check_only) {
		describe("valid configuration of", &cfg, val, bandwidth, weights);
		return 0;
	}

	if (access(PIN_LINK, F_OK) == 0)
		return fail("%s is already loaded (%s): msfc-bpf unload first", MSFC_BPF_NAME, PIN_DIR);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = msfc_bpf__open();
	if (!skel)
		return fail("cannot open the BPF object: %s%s", strerror(errno), "");
	/* the classes' flows, then the least-effort lane's */
	bpf_map__set_max_entries(skel->maps.msfc_flows, (cfg.prios + 1) * cfg.flows);
	bpf_map__set_max_entries(skel->maps.msfc_pkts, cfg.packets);
	bpf_map__set_max_entries(skel->maps.msfc_hosts,
				 cfg.isolate ? 2 * (cfg.prios + 1) * cfg.flows : 1);
	err = msfc_bpf__load(skel);
	if (err) {
		fprintf(stderr, "%s: the kernel refused the BPF qdisc (%s); it needs Linux >= 6.16 with CONFIG_NET_SCH_BPF=y and BTF; the verifier's log is above\n",
			prog, strerror(-err));
		goto out;
	}
	err = bpf_map_update_elem(bpf_map__fd(skel->maps.msfc_cfg), &zero, &cfg, BPF_ANY);
	if (err) {
		fprintf(stderr, "%s: cannot write the configuration: %s\n", prog, strerror(errno));
		goto out;
	}
	link = bpf_map__attach_struct_ops(skel->maps.msfc);
	if (!link) {
		err = -errno;
		fprintf(stderr, "%s: cannot register the qdisc kind %s: %s%s\n", prog, MSFC_BPF_NAME,
			strerror(errno), errno == EEXIST ? " (a qdisc of that name exists)" : "");
		goto out;
	}
	mkdir(PIN_DIR, 0700);
	err = bpf_link__pin(link, PIN_LINK);
	err = err ?: bpf_map__pin(skel->maps.msfc_cfg, PIN_CFG);
	err = err ?: bpf_map__pin(skel->maps.msfc_stats, PIN_STATS);
	if (err) {
		fprintf(stderr, "%s: cannot pin in %s (%s): is bpffs mounted on /sys/fs/bpf?\n",
			prog, PIN_DIR, strerror(-err));
		bpf_link__unpin(link);
		unlink(PIN_CFG);
		unlink(PIN_STATS);
		rmdir(PIN_DIR);
		bpf_link__destroy(link);
		goto out;
	}
	describe("registered qdisc", &cfg, val, bandwidth, weights);
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
out:
	msfc_bpf__destroy(skel);
	return err ? -1 : 0;
}

static int stats(bool json)
{
	struct msfc_bpf_stats s[MSFC_BPF_STATS_ENTRIES];
	struct msfc_bpf_cfg cfg;
	__u32 k, zero = 0, prios;
	int fd, cfd;

	fd = bpf_obj_get(PIN_STATS);
	cfd = bpf_obj_get(PIN_CFG);
	if (fd < 0 || cfd < 0)
		return fail("%s is not loaded (no %s): msfc-bpf load first", MSFC_BPF_NAME, PIN_DIR);
	if (bpf_map_lookup_elem(cfd, &zero, &cfg))
		return fail("cannot read %s: %s", PIN_CFG, strerror(errno));
	prios = cfg.prios <= MSFC_BPF_MAX_PRIOS ? cfg.prios : MSFC_BPF_MAX_PRIOS;
	for (k = 0; k < MSFC_BPF_STATS_ENTRIES; k++)
		if (bpf_map_lookup_elem(fd, &k, &s[k]))
			return fail("cannot read %s: %s", PIN_STATS, strerror(errno));
	if (json) {
		/* the classes, the qdisc, the least-effort lane */
		printf("{\"prios\":%u,\"classes\":[", prios);
		for (k = 0; k <= prios + 1; k++) {
			const struct msfc_bpf_stats *c = &s[k == prios ? MSFC_BPF_STATS_QDISC :
							    k > prios ? MSFC_BPF_STATS_LANE : k];

			if (k == prios)
				printf("],\"qdisc\":");
			else if (k > prios)
				printf(",\"lane\":");
			else if (k)
				printf(",");
			printf("{\"enqueued\":%llu,\"enqueued_bytes\":%llu,\"dequeued\":%llu,\"dequeued_bytes\":%llu,"
			       "\"codel_drops\":%llu,\"overload_drops\":%llu,\"overmemory_drops\":%llu,"
			       "\"store_drops\":%llu,\"qlen\":%u,\"backlog\":%u,\"active_flows\":%u",
			       (unsigned long long)c->enq_packets, (unsigned long long)c->enq_bytes,
			       (unsigned long long)c->deq_packets, (unsigned long long)c->deq_bytes,
			       (unsigned long long)c->codel_drops,
			       (unsigned long long)c->overload_drops,
			       (unsigned long long)c->overmemory_drops,
			       (unsigned long long)c->store_drops, c->qlen, c->backlog,
			       c->active_flows);
			printf(",\"nqb_demotions\":%llu", (unsigned long long)c->nqb_demotions);
			if (k == prios)
				printf(",\"overload_events\":%llu,\"throttled\":%llu,\"memory_usage\":%u,"
				       "\"auto_promotions\":%llu,\"auto_demotions\":%llu",
				       (unsigned long long)c->overload_events,
				       (unsigned long long)c->throttled, c->memory_usage,
				       (unsigned long long)c->auto_promotions,
				       (unsigned long long)c->auto_demotions);
			printf("}");
		}
		printf("}\n");
		return 0;
	}
	printf("%-6s %12s %14s %12s %14s %10s %10s %8s %8s\n", "class", "enqueued", "bytes",
	       "dequeued", "bytes", "codel_drop", "overload", "qlen", "flows");
	/* the classes, the least-effort lane, the qdisc */
	for (k = 0; k <= prios + 1; k++) {
		const struct msfc_bpf_stats *c = &s[k == prios ? MSFC_BPF_STATS_LANE :
						    k > prios ? MSFC_BPF_STATS_QDISC : k];
		char name[8];

		snprintf(name, sizeof(name), "%u", k);
		printf("%-6s %12llu %14llu %12llu %14llu %10llu %10llu %8u %8u\n",
		       k == prios ? "le" : k > prios ? "total" : name,
		       (unsigned long long)c->enq_packets,
		       (unsigned long long)c->enq_bytes, (unsigned long long)c->deq_packets,
		       (unsigned long long)c->deq_bytes, (unsigned long long)c->codel_drops,
		       (unsigned long long)c->overload_drops, c->qlen, c->active_flows);
	}
	printf("auto: %llu promotions, %llu demotions; NQB flows moved by queue protection: %llu\n",
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].auto_promotions,
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].auto_demotions,
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].nqb_demotions);
	printf("overload events %llu, of the drops over memory_limit %llu, store full %llu, shaper deferrals %llu, memory %u bytes\n",
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].overload_events,
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].overmemory_drops,
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].store_drops,
	       (unsigned long long)s[MSFC_BPF_STATS_QDISC].throttled,
	       s[MSFC_BPF_STATS_QDISC].memory_usage);
	return 0;
}

static int unload(void)
{
	if (access(PIN_LINK, F_OK))
		return fail("%s is not loaded (no %s)", MSFC_BPF_NAME, PIN_LINK);
	/* the kind is unregistered when the last reference to the link goes */
	if (unlink(PIN_LINK) || unlink(PIN_CFG) || unlink(PIN_STATS))
		return fail("cannot unpin in %s: %s", PIN_DIR, strerror(errno));
	rmdir(PIN_DIR);
	printf("%s: unloaded %s\n", prog, MSFC_BPF_NAME);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage();
		return 2;
	}
	if (strcmp(argv[1], "load") == 0)
		return load(argc - 2, argv + 2, false) ? 1 : 0;
	if (strcmp(argv[1], "check") == 0)
		return load(argc - 2, argv + 2, true) ? 1 : 0;
	if (strcmp(argv[1], "stats") == 0)
		return stats(argc > 2 && strcmp(argv[2], "-j") == 0) ? 1 : 0;
	if (strcmp(argv[1], "unload") == 0)
		return unload() ? 1 : 0;
	usage();
	return 2;
}
