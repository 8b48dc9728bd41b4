// SPDX-License-Identifier: GPL-2.0
/*
 * Multilevel Stochastically Fair CoDel (MSFC)
 *
 * tc front end: parse, print (text and JSON) and statistics.
 */

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>
#include <errno.h>

#include "utils.h"
#include "tc_util.h"

#ifndef TCA_MSFC_MAX
#include "pkt_sched_msfc.h"
#endif

/* tc's words for the values of the mode attributes' enums, indexed by value */
static const char * const msfc_overload_names[__TC_MSFC_OVERLOAD_MAX] = {
	[TC_MSFC_OVERLOAD_FLOW]		= "flow",
	[TC_MSFC_OVERLOAD_CLASS]	= "class",
};

static const char * const msfc_weights_names[__TC_MSFC_WEIGHTS_MAX] = {
	[TC_MSFC_WEIGHTS_ROUNDED]	= "rounded",
	[TC_MSFC_WEIGHTS_EXACT]		= "exact",
};

static const char * const msfc_inversion_names[__TC_MSFC_INVERSION_MAX] = {
	[TC_MSFC_INVERSION_ALLOW]	= "allow",
	[TC_MSFC_INVERSION_PREVENT]	= "prevent",
};

static const char * const msfc_isolate_names[__TC_MSFC_ISOLATE_MAX] = {
	[TC_MSFC_ISOLATE_FLOW]		= "flow",
	[TC_MSFC_ISOLATE_SRC]		= "src",
	[TC_MSFC_ISOLATE_DST]		= "dst",
	[TC_MSFC_ISOLATE_BOTH]		= "both",
};

static const char * const msfc_boost_names[__TC_MSFC_BOOST_MAX] = {
	[TC_MSFC_BOOST_OFF]		= "off",
	[TC_MSFC_BOOST_ON]		= "on",
	[TC_MSFC_BOOST_ACROSS]		= "across",
};

static const char * const msfc_order_names[__TC_MSFC_ORDER_MAX] = {
	[TC_MSFC_ORDER_ROUND]		= "round",
	[TC_MSFC_ORDER_PRIORITY]	= "priority",
};

static const char * const msfc_auto_names[__TC_MSFC_AUTO_MAX] = {
	[TC_MSFC_AUTO_OFF]		= "off",
	[TC_MSFC_AUTO_UNMARKED]		= "unmarked",
	[TC_MSFC_AUTO_ALL]		= "all",
};

/* link-layer framing: one word each, as cake's */
static const char * const msfc_framing_names[__TC_MSFC_FRAMING_MAX] = {
	[TC_MSFC_FRAMING_NONE]		= "noatm",
	[TC_MSFC_FRAMING_ATM]		= "atm",
	[TC_MSFC_FRAMING_PTM]		= "ptm",
};

/* One word for a set of words (pkt_sched_msfc.h), expanded where it stands */
static const struct {
	const char *name;
	const char *words;
} msfc_presets[] = {
	{ "diffserv3", TC_MSFC_PRESET_DIFFSERV3 },
	{ "diffserv4", TC_MSFC_PRESET_DIFFSERV4 },
};

/*
 * The mode attributes (u32, an enum of pkt_sched_msfc.h): the keyword, which is also the
 * JSON key, and the words for the enum's values.  Sent and printed in this order.
 */
static const struct msfc_mode {
	const char *name;
	int type;
	const char * const *names;
	unsigned int count;
} msfc_modes[] = {
	{ "overload", TCA_MSFC_OVERLOAD, msfc_overload_names, ARRAY_SIZE(msfc_overload_names) },
	{ "weights", TCA_MSFC_WEIGHTS, msfc_weights_names, ARRAY_SIZE(msfc_weights_names) },
	{ "inversion", TCA_MSFC_INVERSION, msfc_inversion_names,
	  ARRAY_SIZE(msfc_inversion_names) },
	{ "isolate", TCA_MSFC_ISOLATE, msfc_isolate_names, ARRAY_SIZE(msfc_isolate_names) },
	{ "boost", TCA_MSFC_BOOST, msfc_boost_names, ARRAY_SIZE(msfc_boost_names) },
	{ "order", TCA_MSFC_ORDER, msfc_order_names, ARRAY_SIZE(msfc_order_names) },
	{ "auto", TCA_MSFC_AUTO, msfc_auto_names, ARRAY_SIZE(msfc_auto_names) },
};

/* the named maps: the name, the prios each is meant for, its classes; the default first */
static const struct msfc_dscp_map {
	const char *name;
	unsigned int prios;
	__u8 map[TC_MSFC_DSCP_MAP_LEN];
} msfc_dscp_maps[] = TC_MSFC_DSCP_MAPS;

static const __u8 *msfc_default_map = msfc_dscp_maps[0].map;

static void explain(void)
{
	const char *sep;
	unsigned int m, i;

	fprintf(stderr,
		"Usage: ... msfc [ prios NUMBER ] [ ratio RATIO ] [ flows NUMBER ]\n"
		"                [ quantum BYTES ] [ target TIME ] [ interval TIME ]\n"
		"                [ limit PACKETS ] [ memory_limit BYTES ]\n"
		"                [ drop_batch PACKETS ] [ ecn | noecn ]\n"
		"                [ quanta { BYTES,BYTES[,...] | ratio } ]\n"
		"                [ ce_threshold { TIME | TIME,TIME[,...] | off } ]\n"
		"                [ ce_threshold_selector VALUE/MASK ]\n");
	/* the modes' words from the tables tc parses them with */
	for (m = 0; m < ARRAY_SIZE(msfc_modes); m++) {
		fprintf(stderr, "                [ %s {", msfc_modes[m].name);
		for (i = 0, sep = " "; i < msfc_modes[m].count; i++) {
			if (!msfc_modes[m].names[i])
				continue;
			fprintf(stderr, "%s%s", sep, msfc_modes[m].names[i]);
			sep = " | ";
		}
		fprintf(stderr, " } ]\n");
	}
	fprintf(stderr,
		"                [ dscp_map { MAP | [MAP,]DSCP:CLASS[,DSCP:CLASS...] } ]\n"
		"                [ bandwidth RATE | unlimited ] [ overhead BYTES | raw ]\n"
		"                [ mpu BYTES ] [ atm | ptm | noatm ] [ ingress | egress ]\n"
		"                [ diffserv3 | diffserv4 ]\n"
		"  prios     classes, " TC_MSFC_PRIOS_RANGE ", class prios-1 is the most important (3)\n"
		"  ratio     class p gets quantum * ratio^p, 1/65536 .. 16 (2)\n"
		"  flows     flow queues per class, " TC_MSFC_FLOWS_RANGE " (1024)\n"
		"  quantum   bytes per flow and for class 0 (device MTU)\n"
		"  quanta    the class quanta in bytes, one per class from class 0 (as many\n"
		"            as prios), each 1 .. 1048576, in place of quantum * ratio^p;\n"
		"            ratio: back to quantum * ratio^p (not set)\n"
		"  target    CoDel's target sojourn time, with a unit: us, ms or s,\n"
		"            " TC_MSFC_TARGET_RANGE ", below interval (5ms)\n"
		"  interval  CoDel's interval, with a unit, " TC_MSFC_INTERVAL_RANGE " (100ms)\n"
		"  limit     packets held at most, " TC_MSFC_LIMIT_RANGE
		"; above it the overload drop (10240)\n"
		"  memory_limit  bytes of packet memory held at most, " TC_MSFC_MEMORY_LIMIT_RANGE
		" (32Mb)\n"
		"  drop_batch  packets dropped at most per overload, " TC_MSFC_DROP_BATCH_RANGE
		" (64)\n"
		"  ecn       CE-mark ECN-capable packets instead of dropping them (noecn)\n"
		"  ce_threshold  L4S: CE-mark an ECT packet the selector takes when it\n"
		"            leaves after more than TIME (" TC_MSFC_CE_THRESHOLD_RANGE ", with a unit:\n"
		"            1ms), in every class, or one TIME (or off) per class from\n"
		"            class 0; Classic traffic is left to CoDel (off)\n"
		"  ce_threshold_selector  the TOS bytes ce_threshold applies to: those\n"
		"            with (tos & MASK) == VALUE (0x01/0x03: ECT(1), L4S; 0/0: every\n"
		"            ECT packet)\n"
		"  overload  victim of drops over limit: the fattest flow (flow), or the\n"
		"            class most above its share, then its fattest flow (class)\n"
		"  weights   class quanta in whole bytes (rounded) or 1/65536 byte (exact)\n"
		"  inversion prevent: the classes below a crowded class get at most their\n"
		"            per-flow share weighted by ratio, so no class gives its flows\n"
		"            less each than a lower class (allow)\n"
		"  isolate   fairness in a class: per flow (flow), or per source host,\n"
		"            destination host or both first, then per flow of the host\n"
		"  boost     flows that become active are served first in their class, for\n"
		"            one quantum (on), or join the end of its round (off); across:\n"
		"            as on, and new flows also go ahead of the class round, most\n"
		"            important class first, charged to their class while it has\n"
		"            borrowed less than one class quantum\n"
		"  order     the classes take turns, each its quantum a round (round), or\n"
		"            the most important class with credit left in the round goes\n"
		"            first, every class still gets its quantum a round (priority)\n"
		"  auto      automatic priorities for packets the DSCP map classifies,\n"
		"            those of DSCP 0 (unmarked) or all of them (all): a flow\n"
		"            climbs one class after 10 intervals with at most a quantum\n"
		"            queued, and sinks one class each time CoDel's drop test\n"
		"            fires for it; marks of other DSCPs (unmarked), priorities\n"
		"            and filters keep their class (off)\n"
		"  DSCP      a number 0..63 or a name: be cs0..cs7 af11..af43 ef va le nqb\n"
		"  CLASS     a class 0..15 (clamped to prios-1); CLASS+nqb: the class, its\n"
		"            flows served first while they stay shallow (RFC 9956 NQB); le:\n"
		"            the least-effort lane below class 0, served only when every\n"
		"            class is empty (RFC 8622)\n"
		"  dscp_map  DSCP:CLASS entries change the default map (LE -> le, CS1 -> 0,\n"
		"            NQB -> 1+nqb; other precedence 0/1 -> 1; precedence k -> k);\n"
		"            MAP first: the entries change that map instead\n"
		"  MAP       a whole DSCP map by name, its classes clamped to prios-1:\n"
		"            diffserv3, diffserv4, diffserv8: cake's, class 0 least\n"
		"            important; wifi: RFC 8325's access categories BK BE VI VO;\n"
		"            each with the prios it is meant for:\n"
		"           ");
	for (i = 1; i < ARRAY_SIZE(msfc_dscp_maps); i++)
		fprintf(stderr, " %s (%u)", msfc_dscp_maps[i].name, msfc_dscp_maps[i].prios);
	fprintf(stderr, "\n"
		"  bandwidth the rate msfc paces its dequeues to (100mbit); unlimited or 0:\n"
		"            no shaper (unlimited); target and interval not given then\n"
		"            follow the rate (at least 1.5 MTUs' time, and target + 95ms)\n"
		"  overhead  bytes added to each packet's network-layer length,\n"
		"            " TC_MSFC_OVERHEAD_RANGE " (raw: the length the kernel reports,\n"
		"            MAC header included, no overhead)\n"
		"  mpu       the shaper charges each packet at least " TC_MSFC_MPU_RANGE " (0)\n"
		"  atm       ATM cells (48 bytes in 53); ptm: 64b/65b; noatm: neither (noatm)\n"
		"  ingress   dropped packets count against the bandwidth too, for shaping\n"
		"            on an IFB device (egress)\n"
		"  diffserv3 the recommended modes: " TC_MSFC_PRESET_DIFFSERV3 "\n"
		"  diffserv4 the same on cake diffserv4's four classes:\n"
		"            " TC_MSFC_PRESET_DIFFSERV4 "\n"
		"            (words after a preset override it)\n");
}

/* *val = the value of mode m that arg names, 0; or -1 after listing the words ("a, b or c") */
static int msfc_get_mode(const struct msfc_mode *m, __u32 *val, const char *arg)
{
	unsigned int i, left = 0;

	for (i = 0; i < m->count; i++) {
		if (!m->names[i])
			continue;
		if (strcmp(arg, m->names[i]) == 0) {
			*val = i;
			return 0;
		}
		left++;
	}
	fprintf(stderr, "msfc: %s must be ", m->name);
	for (i = 0; i < m->count; i++) {
		if (!m->names[i])
			continue;
		left--;
		fprintf(stderr, "%s%s", m->names[i], left > 1 ? ", " : left ? " or " : "");
	}
	fprintf(stderr, ", got \"%s\"\n", arg);
	return -1;
}

/* "name word " (JSON "name": "word"), or the number for a value tc has no word for */
static void msfc_print_mode(const struct msfc_mode *m, __u32 v)
{
	print_string(PRINT_FP, NULL, "%s ", m->name);
	if (v < m->count && m->names[v])
		print_string(PRINT_ANY, m->name, "%s ", m->names[v]);
	else
		print_uint(PRINT_ANY, m->name, "%u ", v);
}

static const struct {
	const char *name;
	unsigned int dscp;
} dscp_names[] = TC_MSFC_DSCP_NAMES;

static int get_dscp(unsigned int *dscp, const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dscp_names); i++) {
		if (strcasecmp(arg, dscp_names[i].name) == 0) {
			*dscp = dscp_names[i].dscp;
			return 0;
		}
	}
	if (get_unsigned(dscp, arg, 0) || *dscp > 63)
		return -1;
	return 0;
}

static const struct msfc_dscp_map *msfc_find_dscp_map(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(msfc_dscp_maps); i++) {
		if (strcasecmp(name, msfc_dscp_maps[i].name) == 0)
			return &msfc_dscp_maps[i];
	}
	return NULL;
}

/*
 * A map entry: "le" (TC_MSFC_DSCP_LE), "CLASS" or "CLASS+nqb" (TC_MSFC_DSCP_NQB + CLASS), the
 * class 0 .. 15; @arg is changed (the "+nqb" cut off)
 */
static int get_map_entry(__u8 *entry, char *arg)
{
	char *plus = strchr(arg, '+');
	unsigned int cls;

	if (strcasecmp(arg, "le") == 0) {
		*entry = TC_MSFC_DSCP_LE;
		return 0;
	}
	if (plus) {
		if (strcasecmp(plus + 1, "nqb"))
			return -1;
		*plus = '\0';
	}
	if (get_unsigned(&cls, arg, 0) || cls > TC_MSFC_DSCP_CLASS_MASK)
		return -1;
	*entry = cls | (plus ? TC_MSFC_DSCP_NQB : 0);
	return 0;
}

/* A map entry as tc reads it (get_map_entry()); a value it has no word for as its number */
static void print_map_entry(__u8 v)
{
	if (v == TC_MSFC_DSCP_LE)
		print_string(PRINT_FP, NULL, "%s", "le");
	else if (!(v & ~(TC_MSFC_DSCP_NQB | TC_MSFC_DSCP_CLASS_MASK)) && (v & TC_MSFC_DSCP_NQB))
		print_uint(PRINT_FP, NULL, "%u+nqb", v & TC_MSFC_DSCP_CLASS_MASK);
	else
		print_uint(PRINT_FP, NULL, "%u", v);
}

/*
 * "46:2,cs1:0" on top of the default map, "wifi" the named map, "wifi,cs6:1" entries on top
 * of the named map; *base is the map the entries change
 */
static int parse_dscp_map(__u8 *map, char *arg, const struct msfc_dscp_map **base)
{
	char *tok, *save = NULL;
	bool first = true;

	*base = &msfc_dscp_maps[0];
	memcpy(map, msfc_default_map, TC_MSFC_DSCP_MAP_LEN);
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned int dscp;
		__u8 entry;

		if (!colon && first && msfc_find_dscp_map(tok)) {
			*base = msfc_find_dscp_map(tok);
			memcpy(map, (*base)->map, TC_MSFC_DSCP_MAP_LEN);
			first = false;
			continue;
		}
		if (!colon && first) {
			fprintf(stderr,
				"msfc: dscp_map \"%s\" is neither a map name (%s) nor a DSCP:CLASS entry (e.g. ef:2)\n",
				tok, TC_MSFC_DSCP_MAP_NAMES);
			return -1;
		}
		first = false;
		if (!colon && msfc_find_dscp_map(tok)) {
			fprintf(stderr, "msfc: dscp_map: the map name \"%s\" must come first, before the DSCP:CLASS entries (%s,ef:2)\n",
				tok, tok);
			return -1;
		}
		if (!colon) {
			fprintf(stderr, "msfc: dscp_map entry \"%s\" is not DSCP:CLASS (e.g. ef:2)\n",
				tok);
			return -1;
		}
		*colon = '\0';
		if (get_dscp(&dscp, tok)) {
			fprintf(stderr, "msfc: \"%s\" is not a DSCP: use 0..63 or a name such as ef, af41, cs1, le, nqb\n",
				tok);
			return -1;
		}
		if (get_map_entry(&entry, colon + 1)) {
			fprintf(stderr, "msfc: " TC_MSFC_DSCP_MAP_MSG ", got \"%s\" for DSCP %u (write a class as 2, with nqb as 1+nqb, the lane as le)\n",
				colon + 1, dscp);
			return -1;
		}
		map[dscp] = entry;
	}
	return 0;
}

/* decimal ratio -> 16.16 fixed point: the nearest double times 65536 (exact), rounded to the
 * nearest integer, halves away from 0 (the ns-3 model and msfc.model.params.ratio_fixed round
 * alike); the range is checked by the caller
 */
static int get_ratio(__u32 *fp, const char *arg)
{
	char *end;
	double r;

	errno = 0;
	r = strtod(arg, &end);
	if (errno || end == arg || *end || !(r >= 0))
		return -1;
	r *= 65536.0;
	*fp = r >= 4294967295.0 ? 0xffffffffU : (__u32)llround(r);
	return 0;
}

/* "95,1514,757,378" -> the byte counts, *n of them; "ratio" -> none (*n = 0) */
static int parse_quanta(__u32 *quanta, unsigned int *n, char *arg)
{
	char *tok, *save = NULL;
	unsigned int v;

	*n = 0;
	if (strcmp(arg, "ratio") == 0)
		return 0;
	if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || *arg == ',') {
		fprintf(stderr, "msfc: quanta must be byte counts joined by commas, one per class (quanta 95,1514,757,378), or ratio, got \"%s\"\n",
			arg);
		return -1;
	}
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (get_unsigned(&v, tok, 10)) {
			fprintf(stderr, "msfc: quanta must be byte counts joined by commas, one per class (quanta 95,1514,757,378), or ratio: \"%s\" is not a whole number of bytes\n",
				tok);
			return -1;
		}
		if (v < TC_MSFC_QUANTUM_MIN || v > TC_MSFC_QUANTUM_MAX) {
			fprintf(stderr, "msfc: " TC_MSFC_QUANTA_RANGE_MSG ", got \"%s\"\n", tok);
			return -1;
		}
		if (*n == TC_MSFC_MAX_PRIOS) {
			fprintf(stderr, "msfc: " TC_MSFC_QUANTA_COUNT_MSG " (prios is at most %u)\n",
				TC_MSFC_MAX_PRIOS);
			return -1;
		}
		quanta[(*n)++] = v;
	}
	return 0;
}

/* "1ms" (every class), "off,1ms,500us" (one per class) -> us, TC_MSFC_CE_THRESHOLD_OFF for an
 * entry off, *n of them; "off" -> none (*n = 0)
 */
static int parse_ce_threshold(__u32 *us, unsigned int *n, char *arg)
{
	char *tok, *save = NULL;
	unsigned int v;
	size_t len;

	*n = 0;
	if (strcmp(arg, "off") == 0)
		return 0;
	if (!*arg || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") || *arg == ',') {
		fprintf(stderr, "msfc: ce_threshold must be a time (1ms), one time or off per class joined by commas (off,1ms,500us), or off, got \"%s\"\n",
			arg);
		return -1;
	}
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == TC_MSFC_MAX_PRIOS) {
			fprintf(stderr, "msfc: " TC_MSFC_CE_THRESHOLD_COUNT_MSG " (prios is at most %u)\n",
				TC_MSFC_MAX_PRIOS);
			return -1;
		}
		if (strcmp(tok, "off") == 0) {
			us[(*n)++] = TC_MSFC_CE_THRESHOLD_OFF;
			continue;
		}
		/* tc reads a bare number as seconds: a unit is required */
		len = strlen(tok);
		if (!isalpha((unsigned char)tok[len - 1]) || get_time(&v, tok)) {
			fprintf(stderr, "msfc: ce_threshold must be %s, got \"%s\": not a time with a unit (us, ms or s: 1ms) or off\n",
				TC_MSFC_CE_THRESHOLD_RANGE, tok);
			return -1;
		}
		if (v > TC_MSFC_CE_THRESHOLD_MAX) {
			fprintf(stderr, "msfc: %s, got \"%s\"\n", TC_MSFC_CE_THRESHOLD_RANGE_MSG,
				tok);
			return -1;
		}
		us[(*n)++] = v;
	}
	return 0;
}

/* "0x01/0x03" (fq_codel's form) -> the selector's value and mask, each 0 .. 255 */
static int parse_ce_selector(__u32 *value, __u32 *mask, char *arg)
{
	char *slash = strchr(arg, '/');
	bool bad = !slash;

	if (slash) {
		*slash = '\0';
		bad = get_unsigned(value, arg, 0) || get_unsigned(mask, slash + 1, 0) ||
		      *value > TC_MSFC_CE_THRESHOLD_SELECTOR_MAX ||
		      *mask > TC_MSFC_CE_THRESHOLD_MASK_MAX;
		*slash = '/';
	}
	if (bad) {
		fprintf(stderr, "msfc: ce_threshold_selector must be VALUE/MASK, each %s (0x01/0x03: ECT(1)), got \"%s\"\n",
			TC_MSFC_CE_THRESHOLD_SELECTOR_RANGE, arg);
		return -1;
	}
	if (*value & ~*mask) {
		fprintf(stderr, "msfc: " TC_MSFC_CE_SELECTOR_MSG ", got 0x%02x/0x%02x\n", *value,
			*mask);
		return -1;
	}
	return 0;
}

enum msfc_unit { MSFC_COUNT, MSFC_BYTES, MSFC_TIME, MSFC_RATIO };

/* The u32 options: their ranges and the words naming them are those of the kernel */
static const struct msfc_opt {
	const char *name;
	int type;
	enum msfc_unit unit;
	__u32 lo, hi;
	const char *range;
} msfc_opts[] = {
	{ "prios", TCA_MSFC_PRIOS, MSFC_COUNT,
	  TC_MSFC_PRIOS_MIN, TC_MSFC_PRIOS_MAX, TC_MSFC_PRIOS_RANGE },
	{ "flows", TCA_MSFC_FLOWS, MSFC_COUNT,
	  TC_MSFC_FLOWS_MIN, TC_MSFC_FLOWS_MAX, TC_MSFC_FLOWS_RANGE },
	{ "quantum", TCA_MSFC_QUANTUM, MSFC_BYTES,
	  TC_MSFC_QUANTUM_MIN, TC_MSFC_QUANTUM_MAX, TC_MSFC_QUANTUM_RANGE },
	{ "ratio", TCA_MSFC_RATIO, MSFC_RATIO,
	  TC_MSFC_RATIO_MIN, TC_MSFC_RATIO_MAX, TC_MSFC_RATIO_RANGE },
	{ "target", TCA_MSFC_TARGET, MSFC_TIME,
	  TC_MSFC_TARGET_MIN, TC_MSFC_TARGET_MAX, TC_MSFC_TARGET_RANGE },
	{ "interval", TCA_MSFC_INTERVAL, MSFC_TIME,
	  TC_MSFC_INTERVAL_MIN, TC_MSFC_INTERVAL_MAX, TC_MSFC_INTERVAL_RANGE },
	{ "limit", TCA_MSFC_LIMIT, MSFC_COUNT,
	  TC_MSFC_LIMIT_MIN, TC_MSFC_LIMIT_MAX, TC_MSFC_LIMIT_RANGE },
	{ "memory_limit", TCA_MSFC_MEMORY_LIMIT, MSFC_BYTES,
	  TC_MSFC_MEMORY_LIMIT_MIN, TC_MSFC_MEMORY_LIMIT_MAX, TC_MSFC_MEMORY_LIMIT_RANGE },
	{ "drop_batch", TCA_MSFC_DROP_BATCH, MSFC_COUNT,
	  TC_MSFC_DROP_BATCH_MIN, TC_MSFC_DROP_BATCH_MAX, TC_MSFC_DROP_BATCH_RANGE },
};

/* what an option's value must look like, for the message when it does not */
static const char *const msfc_unit_words[] = {
	[MSFC_COUNT] = "a whole number below 2^32",
	[MSFC_BYTES] = "a size below 4 GiB (bytes, or with a unit: kb, mb, gb, kbit, ...)",
	[MSFC_TIME] = "a time with a unit (us, ms or s: 5ms)",
	[MSFC_RATIO] = "a decimal number",
};

/* Value of option o in arg, or -1 after saying what the option must be */
static int msfc_get_opt(const struct msfc_opt *o, __u32 *val, const char *arg)
{
	size_t len = strlen(arg);
	unsigned int v = 0;
	int err;

	switch (o->unit) {
	case MSFC_COUNT:
		err = get_unsigned(&v, arg, 0);
		break;
	case MSFC_BYTES:
		err = get_size(&v, arg);
		break;
	case MSFC_TIME:
		/* tc reads a bare number as seconds: "target 5" would be 5 s */
		err = !len || !isalpha((unsigned char)arg[len - 1]) || get_time(&v, arg);
		break;
	default:
		err = get_ratio(&v, arg);
		break;
	}
	if (err) {
		fprintf(stderr, "msfc: %s must be %s, got \"%s\": not %s\n", o->name, o->range, arg,
			msfc_unit_words[o->unit]);
		return -1;
	}
	if (v < o->lo || v > o->hi) {
		fprintf(stderr, "msfc: %s must be %s, got \"%s\"\n", o->name, o->range, arg);
		return -1;
	}
	*val = v;
	return 0;
}

/* What the words given set */
struct msfc_args {
	__u32 val[TCA_MSFC_MAX + 1];
	bool have[TCA_MSFC_MAX + 1];
	__u32 quanta[TC_MSFC_MAX_PRIOS];
	unsigned int nquanta;
	__u32 ce_threshold[TC_MSFC_MAX_PRIOS];
	unsigned int nce_threshold;
	__u8 map[TC_MSFC_DSCP_MAP_LEN];
	const struct msfc_dscp_map *map_base;
	__u64 bandwidth;
	__s32 overhead;
};

/* "100mbit" -> bytes/s; 0 only for a rate that is 0 ("0", "0bit"), never a rounded one */
static int msfc_get_bandwidth(__u64 *rate, const char *arg)
{
	double v = strtod(arg, NULL);

	if (strcmp(arg, "unlimited") == 0) {
		*rate = 0;
		return 0;
	}
	if (get_rate64(rate, arg) || !(v >= 0) || (v > 0 && !*rate)) {
		fprintf(stderr, "msfc: bandwidth must be " TC_MSFC_BANDWIDTH_RANGE ", got \"%s\": not a rate (100mbit, 1gbit, 512kbit, unlimited)\n",
			arg);
		return -1;
	}
	if (*rate > TC_MSFC_BANDWIDTH_MAX) {
		fprintf(stderr, "msfc: bandwidth must be " TC_MSFC_BANDWIDTH_RANGE ", got \"%s\"\n",
			arg);
		return -1;
	}
	return 0;
}

static int msfc_get_overhead(__s32 *val, const char *arg)
{
	int v;

	if (get_integer(&v, arg, 0)) {
		fprintf(stderr, "msfc: overhead must be " TC_MSFC_OVERHEAD_RANGE ", got \"%s\": not a whole number\n",
			arg);
		return -1;
	}
	if (v < TC_MSFC_OVERHEAD_MIN || v > TC_MSFC_OVERHEAD_MAX) {
		fprintf(stderr, "msfc: overhead must be " TC_MSFC_OVERHEAD_RANGE ", got \"%s\"\n",
			arg);
		return -1;
	}
	*val = v;
	return 0;
}

static int msfc_parse_words(int argc, char **argv, struct msfc_args *a, int depth);

/* A preset's words, parsed as if they stood in its place */
static int msfc_expand_preset(const char *words, struct msfc_args *a, int depth)
{
	char *copy = strdup(words), *tok, *save = NULL;
	char *argv[64];
	int argc = 0, err;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " ", &save); tok && argc < 64; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	err = msfc_parse_words(argc, argv, a, depth + 1);
	free(copy);
	return err;
}

/* the shaper's one-word options: attribute and the value the word sets */
static const struct {
	const char *name;
	int type;
	__u32 val;
} msfc_flags[] = {
	{ "noatm", TCA_MSFC_FRAMING, TC_MSFC_FRAMING_NONE },
	{ "atm", TCA_MSFC_FRAMING, TC_MSFC_FRAMING_ATM },
	{ "ptm", TCA_MSFC_FRAMING, TC_MSFC_FRAMING_PTM },
	{ "raw", TCA_MSFC_RAW, 1 },
	{ "ingress", TCA_MSFC_INGRESS, 1 },
	{ "egress", TCA_MSFC_INGRESS, 0 },
};

static int msfc_parse_words(int argc, char **argv, struct msfc_args *a, int depth)
{
	size_t i, m, f, p;
	int t;

	while (argc > 0) {
		for (i = 0; i < ARRAY_SIZE(msfc_opts); i++) {
			if (strcmp(*argv, msfc_opts[i].name) == 0)
				break;
		}
		for (m = 0; m < ARRAY_SIZE(msfc_modes); m++) {
			if (strcmp(*argv, msfc_modes[m].name) == 0)
				break;
		}
		for (f = 0; f < ARRAY_SIZE(msfc_flags); f++) {
			if (strcmp(*argv, msfc_flags[f].name) == 0)
				break;
		}
		for (p = 0; p < ARRAY_SIZE(msfc_presets); p++) {
			if (strcmp(*argv, msfc_presets[p].name) == 0)
				break;
		}
		if (i < ARRAY_SIZE(msfc_opts)) {
			NEXT_ARG();
			t = msfc_opts[i].type;
			if (msfc_get_opt(&msfc_opts[i], &a->val[t], *argv))
				return -1;
			a->have[t] = true;
		} else if (strcmp(*argv, "ecn") == 0 || strcmp(*argv, "noecn") == 0) {
			a->val[TCA_MSFC_ECN] = strcmp(*argv, "ecn") == 0;
			a->have[TCA_MSFC_ECN] = true;
		} else if (m < ARRAY_SIZE(msfc_modes)) {
			NEXT_ARG();
			t = msfc_modes[m].type;
			if (msfc_get_mode(&msfc_modes[m], &a->val[t], *argv))
				return -1;
			a->have[t] = true;
		} else if (f < ARRAY_SIZE(msfc_flags)) {
			t = msfc_flags[f].type;
			a->val[t] = msfc_flags[f].val;
			a->have[t] = true;
			if (t == TCA_MSFC_RAW)	/* raw takes back an overhead given before */
				a->have[TCA_MSFC_OVERHEAD] = false;
		} else if (p < ARRAY_SIZE(msfc_presets) && depth == 0) {
			if (msfc_expand_preset(msfc_presets[p].words, a, depth))
				return -1;
		} else if (strcmp(*argv, "bandwidth") == 0) {
			NEXT_ARG();
			if (msfc_get_bandwidth(&a->bandwidth, *argv))
				return -1;
			a->have[TCA_MSFC_BANDWIDTH] = true;
		} else if (strcmp(*argv, "unlimited") == 0) {
			a->bandwidth = 0;
			a->have[TCA_MSFC_BANDWIDTH] = true;
		} else if (strcmp(*argv, "overhead") == 0) {
			NEXT_ARG();
			if (msfc_get_overhead(&a->overhead, *argv))
				return -1;
			a->have[TCA_MSFC_OVERHEAD] = true;
			a->have[TCA_MSFC_RAW] = false;
		} else if (strcmp(*argv, "mpu") == 0) {
			NEXT_ARG();
			if (get_unsigned(&a->val[TCA_MSFC_MPU], *argv, 0)) {
				fprintf(stderr, "msfc: mpu must be " TC_MSFC_MPU_RANGE ", got \"%s\": not a whole number\n",
					*argv);
				return -1;
			}
			if (a->val[TCA_MSFC_MPU] > TC_MSFC_MPU_MAX) {
				fprintf(stderr, "msfc: mpu must be " TC_MSFC_MPU_RANGE ", got \"%s\"\n",
					*argv);
				return -1;
			}
			a->have[TCA_MSFC_MPU] = true;
		} else if (strcmp(*argv, "dscp_map") == 0) {
			NEXT_ARG();
			if (parse_dscp_map(a->map, *argv, &a->map_base))
				return -1;
			a->have[TCA_MSFC_DSCP_MAP] = true;
		} else if (strcmp(*argv, "quanta") == 0) {
			NEXT_ARG();
			if (parse_quanta(a->quanta, &a->nquanta, *argv))
				return -1;
			a->have[TCA_MSFC_QUANTA] = true;
		} else if (strcmp(*argv, "ce_threshold") == 0) {
			NEXT_ARG();
			if (parse_ce_threshold(a->ce_threshold, &a->nce_threshold, *argv))
				return -1;
			a->have[TCA_MSFC_CE_THRESHOLD] = true;
		} else if (strcmp(*argv, "ce_threshold_selector") == 0) {
			NEXT_ARG();
			if (parse_ce_selector(&a->val[TCA_MSFC_CE_THRESHOLD_SELECTOR],
					      &a->val[TCA_MSFC_CE_THRESHOLD_MASK], *argv))
				return -1;
			a->have[TCA_MSFC_CE_THRESHOLD_SELECTOR] = true;
			a->have[TCA_MSFC_CE_THRESHOLD_MASK] = true;
		} else {
			if (strcmp(*argv, "help") != 0)
				fprintf(stderr, "msfc: unknown option \"%s\"\n", *argv);
			explain();
			return -1;
		}
		argc--; argv++;
	}
	return 0;
}

/*
 * A named map with classes at or above the qdisc's prios works (the kernel clamps them to
 * prios - 1) but is not the map its name promises: say so, and what prios it needs.  prios is
 * known when given, or the default when the qdisc is created (tc qdisc add).
 */
static void msfc_warn_map_prios(const struct msfc_args *a, const struct nlmsghdr *n)
{
	unsigned int prios, top = 0, d;

	if (!a->have[TCA_MSFC_DSCP_MAP] || !a->map_base || a->map_base == &msfc_dscp_maps[0])
		return;
	if (a->have[TCA_MSFC_PRIOS])
		prios = a->val[TCA_MSFC_PRIOS];
	else if (n->nlmsg_flags & NLM_F_EXCL)
		prios = TC_MSFC_PRIOS_DEFAULT;
	else
		return;
	/* the classes of the entries (of an NQB entry too; the lane is none) */
	for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++) {
		unsigned int cls = a->map[d] & TC_MSFC_DSCP_CLASS_MASK;

		if (a->map[d] != TC_MSFC_DSCP_LE && cls > top)
			top = cls;
	}
	if (top < prios || prios < TC_MSFC_PRIOS_MIN)
		return;
	fprintf(stderr, "msfc: warning: dscp_map %s has classes 0 .. %u but prios is %u: its classes %u .. %u share class %u; give prios %u for the map's own classes\n",
		a->map_base->name, top, prios, prios - 1, top, prios - 1, top + 1);
}

static int msfc_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct msfc_args a = {};
	__u32 *val = a.val;
	bool *have = a.have;
	struct rtattr *tail;
	size_t m;
	int t;

	if (msfc_parse_words(argc, argv, &a, 0))
		return -1;
	msfc_warn_map_prios(&a, n);
	if (have[TCA_MSFC_TARGET] && have[TCA_MSFC_INTERVAL] &&
	    val[TCA_MSFC_TARGET] >= val[TCA_MSFC_INTERVAL]) {
		fprintf(stderr, "msfc: " TC_MSFC_TARGET_INTERVAL_MSG "\n");
		return -1;
	}
	if (have[TCA_MSFC_QUANTA] && a.nquanta && have[TCA_MSFC_PRIOS] &&
	    a.nquanta != val[TCA_MSFC_PRIOS]) {
		fprintf(stderr, "msfc: " TC_MSFC_QUANTA_COUNT_MSG " (%u quanta, prios %u)\n",
			a.nquanta, val[TCA_MSFC_PRIOS]);
		return -1;
	}
	if (have[TCA_MSFC_CE_THRESHOLD] && a.nce_threshold > 1 && have[TCA_MSFC_PRIOS] &&
	    a.nce_threshold != val[TCA_MSFC_PRIOS]) {
		fprintf(stderr, "msfc: " TC_MSFC_CE_THRESHOLD_COUNT_MSG " (%u thresholds, prios %u)\n",
			a.nce_threshold, val[TCA_MSFC_PRIOS]);
		return -1;
	}

	/* the kernel parses TCA_OPTIONS strictly: it must carry NLA_F_NESTED */
	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	for (t = TCA_MSFC_PRIOS; t <= TCA_MSFC_ECN; t++) {
		if (have[t])
			addattr32(n, 1024, t, val[t]);
	}
	if (have[TCA_MSFC_DSCP_MAP])
		addattr_l(n, 1024, TCA_MSFC_DSCP_MAP, a.map, sizeof(a.map));
	/* empty with "quanta ratio": the class quanta come from quantum and ratio again */
	if (have[TCA_MSFC_QUANTA])
		addattr_l(n, 1024, TCA_MSFC_QUANTA, a.quanta, a.nquanta * sizeof(__u32));
	for (m = 0; m < ARRAY_SIZE(msfc_modes); m++) {
		t = msfc_modes[m].type;
		if (have[t])
			addattr32(n, 1024, t, val[t]);
	}
	if (have[TCA_MSFC_BANDWIDTH])
		addattr64(n, 1024, TCA_MSFC_BANDWIDTH, a.bandwidth);
	if (have[TCA_MSFC_OVERHEAD])
		addattr32(n, 1024, TCA_MSFC_OVERHEAD, (__u32)a.overhead);
	for (t = TCA_MSFC_RAW; t <= TCA_MSFC_INGRESS; t++) {
		if (have[t])
			addattr32(n, 1024, t, val[t]);
	}
	/* empty with "ce_threshold off": no L4S marking */
	if (have[TCA_MSFC_CE_THRESHOLD])
		addattr_l(n, 1024, TCA_MSFC_CE_THRESHOLD, a.ce_threshold,
			  a.nce_threshold * sizeof(__u32));
	for (t = TCA_MSFC_CE_THRESHOLD_SELECTOR; t <= TCA_MSFC_CE_THRESHOLD_MASK; t++) {
		if (have[t])
			addattr32(n, 1024, t, val[t]);
	}
	addattr_nest_end(n, tail);
	return 0;
}

static __u32 get_u32_attr(struct rtattr *tb[], int type, __u32 dflt)
{
	if (tb[type] && RTA_PAYLOAD(tb[type]) >= sizeof(__u32))
		return rta_getattr_u32(tb[type]);
	return dflt;
}

static int msfc_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_MSFC_MAX + 1];
	char ratio_text[32];
	size_t i;
	__u32 v;
	int d, t;

	SPRINT_BUF(b1);

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_MSFC_MAX, opt);

	if (tb[TCA_MSFC_PRIOS])
		print_uint(PRINT_ANY, "prios", "prios %u ", get_u32_attr(tb, TCA_MSFC_PRIOS, 0));
	if (tb[TCA_MSFC_RATIO]) {
		v = get_u32_attr(tb, TCA_MSFC_RATIO, 0);
		snprintf(ratio_text, sizeof(ratio_text), "%.6g", v / 65536.0);
		print_float(PRINT_JSON, "ratio", NULL, v / 65536.0);
		print_uint(PRINT_JSON, "ratio_fp", NULL, v);
		print_string(PRINT_FP, NULL, "ratio %s ", ratio_text);
	}
	if (tb[TCA_MSFC_FLOWS])
		print_uint(PRINT_ANY, "flows", "flows %u ", get_u32_attr(tb, TCA_MSFC_FLOWS, 0));
	if (tb[TCA_MSFC_QUANTUM])
		print_uint(PRINT_ANY, "quantum", "quantum %u ",
			   get_u32_attr(tb, TCA_MSFC_QUANTUM, 0));
	/* only when set (without it the class quanta come from quantum and ratio) */
	if (tb[TCA_MSFC_QUANTA] && RTA_PAYLOAD(tb[TCA_MSFC_QUANTA]) >= sizeof(__u32)) {
		unsigned int nq = RTA_PAYLOAD(tb[TCA_MSFC_QUANTA]) / sizeof(__u32), k;
		const __u8 *data = RTA_DATA(tb[TCA_MSFC_QUANTA]);

		open_json_array(PRINT_JSON, "quanta");
		print_string(PRINT_FP, NULL, "%s", "quanta ");
		for (k = 0; k < nq; k++) {
			memcpy(&v, data + k * sizeof(__u32), sizeof(__u32));
			print_uint(PRINT_JSON, NULL, NULL, v);
			print_uint(PRINT_FP, NULL, k ? ",%u" : "%u", v);
		}
		close_json_array(PRINT_JSON, NULL);
		print_string(PRINT_FP, NULL, "%s", " ");
	}
	if (tb[TCA_MSFC_TARGET]) {
		v = get_u32_attr(tb, TCA_MSFC_TARGET, 0);
		print_uint(PRINT_JSON, "target", NULL, v);
		print_string(PRINT_FP, NULL, "target %s ", sprint_time(v, b1));
	}
	if (tb[TCA_MSFC_INTERVAL]) {
		v = get_u32_attr(tb, TCA_MSFC_INTERVAL, 0);
		print_uint(PRINT_JSON, "interval", NULL, v);
		print_string(PRINT_FP, NULL, "interval %s ", sprint_time(v, b1));
	}
	if (tb[TCA_MSFC_LIMIT])
		print_uint(PRINT_ANY, "limit", "limit %up ", get_u32_attr(tb, TCA_MSFC_LIMIT, 0));
	if (tb[TCA_MSFC_MEMORY_LIMIT])
		print_size(PRINT_ANY, "memory_limit", "memory_limit %s ",
			   get_u32_attr(tb, TCA_MSFC_MEMORY_LIMIT, 0));
	if (tb[TCA_MSFC_DROP_BATCH])
		print_uint(PRINT_ANY, "drop_batch", "drop_batch %u ",
			   get_u32_attr(tb, TCA_MSFC_DROP_BATCH, 0));
	if (tb[TCA_MSFC_ECN])
		print_bool(PRINT_ANY, "ecn", get_u32_attr(tb, TCA_MSFC_ECN, 0) ? "ecn " : "noecn ",
			   get_u32_attr(tb, TCA_MSFC_ECN, 0));
	/* L4S marking, only when set: us per entry in JSON (null: off in that class) */
	if (tb[TCA_MSFC_CE_THRESHOLD] && RTA_PAYLOAD(tb[TCA_MSFC_CE_THRESHOLD]) >= sizeof(__u32)) {
		unsigned int nc = RTA_PAYLOAD(tb[TCA_MSFC_CE_THRESHOLD]) / sizeof(__u32), k;
		const __u8 *data = RTA_DATA(tb[TCA_MSFC_CE_THRESHOLD]);

		open_json_array(PRINT_JSON, "ce_threshold");
		print_string(PRINT_FP, NULL, "%s", "ce_threshold ");
		for (k = 0; k < nc; k++) {
			memcpy(&v, data + k * sizeof(__u32), sizeof(__u32));
			if (k)
				print_string(PRINT_FP, NULL, "%s", ",");
			if (v == TC_MSFC_CE_THRESHOLD_OFF) {
				print_null(PRINT_JSON, NULL, NULL, NULL);
				print_string(PRINT_FP, NULL, "%s", "off");
			} else {
				print_uint(PRINT_JSON, NULL, NULL, v);
				print_string(PRINT_FP, NULL, "%s", sprint_time(v, b1));
			}
		}
		close_json_array(PRINT_JSON, NULL);
		print_string(PRINT_FP, NULL, "%s", " ");
		if (tb[TCA_MSFC_CE_THRESHOLD_SELECTOR] && tb[TCA_MSFC_CE_THRESHOLD_MASK]) {
			__u32 sel = get_u32_attr(tb, TCA_MSFC_CE_THRESHOLD_SELECTOR, 0);
			__u32 mask = get_u32_attr(tb, TCA_MSFC_CE_THRESHOLD_MASK, 0);

			print_uint(PRINT_JSON, "ce_threshold_selector", NULL, sel);
			print_uint(PRINT_JSON, "ce_threshold_mask", NULL, mask);
			print_0xhex(PRINT_FP, NULL, "ce_threshold_selector %#llx", sel);
			print_0xhex(PRINT_FP, NULL, "/%#llx ", mask);
		}
	}
	for (i = 0; i < ARRAY_SIZE(msfc_modes); i++) {
		t = msfc_modes[i].type;
		if (tb[t])
			msfc_print_mode(&msfc_modes[i], get_u32_attr(tb, t, 0));
	}
	/* the shaper: the kernel sends only what differs from no shaper */
	if (tb[TCA_MSFC_BANDWIDTH] && RTA_PAYLOAD(tb[TCA_MSFC_BANDWIDTH]) >= sizeof(__u64))
		tc_print_rate(PRINT_ANY, "bandwidth", "bandwidth %s ",
			      rta_getattr_u64(tb[TCA_MSFC_BANDWIDTH]));
	if (tb[TCA_MSFC_OVERHEAD])
		print_int(PRINT_ANY, "overhead", "overhead %d ",
			  (__s32)get_u32_attr(tb, TCA_MSFC_OVERHEAD, 0));
	if (tb[TCA_MSFC_MPU])
		print_uint(PRINT_ANY, "mpu", "mpu %u ", get_u32_attr(tb, TCA_MSFC_MPU, 0));
	if (tb[TCA_MSFC_FRAMING]) {
		v = get_u32_attr(tb, TCA_MSFC_FRAMING, 0);
		if (v < __TC_MSFC_FRAMING_MAX)
			print_string(PRINT_ANY, "framing", "%s ", msfc_framing_names[v]);
		else
			print_uint(PRINT_ANY, "framing", "framing %u ", v);
	}
	if (tb[TCA_MSFC_INGRESS] && get_u32_attr(tb, TCA_MSFC_INGRESS, 0))
		print_bool(PRINT_ANY, "ingress", "ingress ", true);
	if (tb[TCA_MSFC_DSCP_MAP] &&
	    RTA_PAYLOAD(tb[TCA_MSFC_DSCP_MAP]) == TC_MSFC_DSCP_MAP_LEN) {
		const __u8 *map = RTA_DATA(tb[TCA_MSFC_DSCP_MAP]);
		const struct msfc_dscp_map *base = NULL;
		unsigned int base_diff = 0;
		bool first = true;

		open_json_array(PRINT_JSON, "dscp_map");
		for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++)
			print_uint(PRINT_JSON, NULL, NULL, map[d]);
		close_json_array(PRINT_JSON, NULL);

		/*
		 * text: the named map it differs least from (the default on a tie), then the
		 * entries that differ from it: "default", "wifi", "wifi,48:1", or "8:1,46:3" on
		 * the default map; tc reads each back as the same map
		 */
		for (i = 0; i < ARRAY_SIZE(msfc_dscp_maps); i++) {
			unsigned int diff = 0;

			for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++)
				diff += map[d] != msfc_dscp_maps[i].map[d];
			if (!base || diff < base_diff) {
				base = &msfc_dscp_maps[i];
				base_diff = diff;
			}
		}
		print_string(PRINT_FP, NULL, "%s", "dscp_map ");
		if (!base_diff || base != &msfc_dscp_maps[0])
			print_string(PRINT_FP, NULL, "%s", base->name);
		for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++) {
			if (map[d] == base->map[d])
				continue;
			if (!first || base != &msfc_dscp_maps[0])
				print_string(PRINT_FP, NULL, "%s", ",");
			print_uint(PRINT_FP, NULL, "%u:", d);
			print_map_entry(map[d]);
			first = false;
		}
		print_string(PRINT_FP, NULL, "%s", " ");
	}
	return 0;
}

static int msfc_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats)
{
	struct tc_msfc_xstats _st = {}, *st;

	if (!xstats)
		return 0;
	st = RTA_DATA(xstats);
	if (RTA_PAYLOAD(xstats) < sizeof(*st)) {
		memcpy(&_st, st, RTA_PAYLOAD(xstats));
		st = &_st;
	}
	if (st->type == TCA_MSFC_XSTATS_QDISC) {
		const struct tc_msfc_qd_stats *s = &st->qdisc_stats;

		print_lluint(PRINT_ANY, "codel_drops", "  codel_drops %llu", s->codel_drops);
		print_lluint(PRINT_ANY, "overload_drops", " overload_drops %llu",
			     s->overload_drops);
		print_lluint(PRINT_ANY, "overmemory_drops", " overmemory_drops %llu",
			     s->overmemory_drops);
		print_lluint(PRINT_ANY, "ecn_marks", " ecn_marks %llu", s->ecn_marks);
		print_lluint(PRINT_ANY, "overload_events", " overload_events %llu",
			     s->overload_events);
		print_nl();
		print_uint(PRINT_ANY, "maxpacket", "  maxpacket %u", s->maxpacket);
		print_uint(PRINT_ANY, "memory_used", " memory_used %u", s->memory_usage);
		print_uint(PRINT_ANY, "active_classes", " active_classes %u",
			   s->active_classes);
		print_uint(PRINT_ANY, "active_flows", " active_flows %u", s->active_flows);
		/* older kernels send a shorter record: no shaper figures (zeroed above) */
		if (s->bandwidth) {
			print_nl();
			tc_print_rate(PRINT_ANY, "shaper_bandwidth", "  shaper bandwidth %s",
				      s->bandwidth);
			print_lluint(PRINT_ANY, "throttled", " throttled %llu", s->throttled);
		}
		/* auto's counters, from kernels that send them */
		if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_msfc_xstats, qdisc_stats) +
					   offsetof(struct tc_msfc_qd_stats, ce_threshold_marks)) {
			print_nl();
			print_lluint(PRINT_ANY, "auto_promotions", "  auto_promotions %llu",
				     s->auto_promotions);
			print_lluint(PRINT_ANY, "auto_demotions", " auto_demotions %llu",
				     s->auto_demotions);
		}
		/* ce_threshold's marks, from kernels that send them */
		if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_msfc_xstats, qdisc_stats) +
					   offsetof(struct tc_msfc_qd_stats, nqb_demotions))
			print_lluint(PRINT_ANY, "ce_threshold_marks", " ce_threshold_marks %llu",
				     s->ce_threshold_marks);
		/* NQB queue protection, from kernels that send it */
		if (RTA_PAYLOAD(xstats) >= offsetof(struct tc_msfc_xstats, qdisc_stats) +
					   sizeof(struct tc_msfc_qd_stats))
			print_lluint(PRINT_ANY, "nqb_demotions", " nqb_demotions %llu",
				     s->nqb_demotions);
	} else if (st->type == TCA_MSFC_XSTATS_CLASS) {
		const struct tc_msfc_cl_stats *s = &st->class_stats;

		print_lluint(PRINT_ANY, "enq_packets", "  enqueued %llu pkt", s->enq_packets);
		print_lluint(PRINT_ANY, "enq_bytes", " %llu bytes", s->enq_bytes);
		print_lluint(PRINT_ANY, "codel_drops", " codel_drops %llu", s->codel_drops);
		print_lluint(PRINT_ANY, "overload_drops", " overload_drops %llu",
			     s->overload_drops);
		print_lluint(PRINT_ANY, "ecn_marks", " ecn_marks %llu", s->ecn_marks);
		print_nl();
		print_lluint(PRINT_ANY, "quantum", "  quantum %llu", s->quantum);
		print_s64(PRINT_ANY, "deficit", " deficit %lld", s->deficit);
		print_uint(PRINT_ANY, "active_flows", " active_flows %u", s->active_flows);
		/* older kernels send a shorter record, zeroed above: no L4S marks, no
		 * NQB demotions
		 */
		print_lluint(PRINT_ANY, "ce_threshold_marks", " ce_threshold_marks %llu",
			     s->ce_threshold_marks);
		print_lluint(PRINT_ANY, "nqb_demotions", " nqb_demotions %llu", s->nqb_demotions);
	}
	return 0;
}

struct qdisc_util msfc_qdisc_util = {
	.id		= "msfc",
	.parse_qopt	= msfc_parse_opt,
	.print_qopt	= msfc_print_opt,
	.print_xstats	= msfc_print_xstats,
};
