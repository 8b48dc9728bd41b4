// SPDX-License-Identifier: GPL-2.0
/*
 * Multilevel Stochastically Fair CoDel (MSFC)
 *
 * tc front end: parse, print (text and JSON) and statistics.
 */

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

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... msfc [ prios NUMBER ] [ ratio RATIO ] [ flows NUMBER ]\n"
		"                [ quantum BYTES ] [ target TIME ] [ interval TIME ]\n"
		"                [ limit PACKETS ] [ memory_limit BYTES ]\n"
		"                [ drop_batch PACKETS ] [ ecn | noecn ]\n"
		"                [ overload { flow | class } ] [ weights { rounded | exact } ]\n"
		"                [ dscp_map { default | DSCP:CLASS[,DSCP:CLASS...] } ]\n"
		"  prios     classes, 1..16, class prios-1 is the most important (3)\n"
		"  ratio     class p gets quantum * ratio^p, 1/65536..16 (2)\n"
		"  flows     flow queues per class, 1..65536 (1024)\n"
		"  quantum   bytes per flow and for class 0 (device MTU)\n"
		"  overload  victim of drops over limit: the fattest flow (flow), or the\n"
		"            class most above its share, then its fattest flow (class)\n"
		"  weights   class quanta in whole bytes (rounded) or 1/65536 byte (exact)\n"
		"  DSCP      a number 0..63 or a name: be cs0..cs7 af11..af43 ef va le\n"
		"  dscp_map  changes entries of the default map (LE,CS1 -> 0; other\n"
		"            precedence 0/1 -> 1; precedence k -> k, clamped to prios-1)\n");
}

static const struct {
	const char *name;
	unsigned int dscp;
} dscp_names[] = {
	{ "be", 0 }, { "le", 1 },
	{ "cs0", 0 }, { "cs1", 8 }, { "cs2", 16 }, { "cs3", 24 },
	{ "cs4", 32 }, { "cs5", 40 }, { "cs6", 48 }, { "cs7", 56 },
	{ "af11", 10 }, { "af12", 12 }, { "af13", 14 },
	{ "af21", 18 }, { "af22", 20 }, { "af23", 22 },
	{ "af31", 26 }, { "af32", 28 }, { "af33", 30 },
	{ "af41", 34 }, { "af42", 36 }, { "af43", 38 },
	{ "va", 44 }, { "ef", 46 },
};

static void msfc_default_map(__u8 *map)
{
	int d;

	for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++)
		map[d] = (d >> 3) > 1 ? d >> 3 : 1;
	map[1] = 0;
	map[8] = 0;
}

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

/* "46:2,cs1:0" applied on top of the default map */
static int parse_dscp_map(__u8 *map, char *arg)
{
	char *tok, *save = NULL;

	msfc_default_map(map);
	if (strcmp(arg, "default") == 0)
		return 0;
	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned int dscp, cls;

		if (!colon) {
			fprintf(stderr, "msfc: dscp_map entry \"%s\" is not DSCP:CLASS (e.g. ef:2)\n",
				tok);
			return -1;
		}
		*colon = '\0';
		if (get_dscp(&dscp, tok)) {
			fprintf(stderr, "msfc: \"%s\" is not a DSCP: use 0..63 or a name such as ef, af41, cs1, le\n",
				tok);
			return -1;
		}
		if (get_unsigned(&cls, colon + 1, 0) || cls >= TC_MSFC_MAX_PRIOS) {
			fprintf(stderr, "msfc: class \"%s\" for DSCP %u is not 0..15\n",
				colon + 1, dscp);
			return -1;
		}
		map[dscp] = cls;
	}
	return 0;
}

/* decimal ratio -> 16.16 fixed point, rounded half up */
static int get_ratio(__u32 *fp, const char *arg)
{
	char *end;
	double r;

	errno = 0;
	r = strtod(arg, &end);
	if (errno || end == arg || *end || !(r > 0))
		return -1;
	r = floor(r * 65536.0 + 0.5);
	if (r < 1 || r > 16 * 65536)
		return -1;
	*fp = (__u32)r;
	return 0;
}

static int msfc_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	unsigned int prios = 0, flows = 0, quantum = 0, limit = 0;
	unsigned int target = 0, interval = 0, drop_batch = 0;
	unsigned int memory = ~0U;
	__u8 map[TC_MSFC_DSCP_MAP_LEN];
	bool have_map = false;
	__u32 ratio = 0;
	int ecn = -1, overload = -1, weights = -1;
	struct rtattr *tail;

	while (argc > 0) {
		if (strcmp(*argv, "prios") == 0) {
			NEXT_ARG();
			if (get_unsigned(&prios, *argv, 0) || !prios || prios > 16) {
				fprintf(stderr, "msfc: \"prios\" must be 1..16, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "flows") == 0) {
			NEXT_ARG();
			if (get_unsigned(&flows, *argv, 0) || !flows || flows > 65536) {
				fprintf(stderr, "msfc: \"flows\" must be 1..65536, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "quantum") == 0) {
			NEXT_ARG();
			if (get_size(&quantum, *argv) || !quantum || quantum > (1U << 20)) {
				fprintf(stderr, "msfc: \"quantum\" must be 1..1048576 bytes, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "ratio") == 0) {
			NEXT_ARG();
			if (get_ratio(&ratio, *argv)) {
				fprintf(stderr, "msfc: \"ratio\" must be a number in 1/65536..16 (e.g. 2 or 1.5), got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "target") == 0) {
			NEXT_ARG();
			if (get_time(&target, *argv) || !target) {
				fprintf(stderr, "msfc: \"target\" must be a time such as 5ms, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "interval") == 0) {
			NEXT_ARG();
			if (get_time(&interval, *argv) || !interval) {
				fprintf(stderr, "msfc: \"interval\" must be a time such as 100ms, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (get_unsigned(&limit, *argv, 0) || !limit) {
				fprintf(stderr, "msfc: \"limit\" must be at least 1 packet, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "memory_limit") == 0) {
			NEXT_ARG();
			if (get_size(&memory, *argv) || !memory) {
				fprintf(stderr, "msfc: \"memory_limit\" must be a size such as 32Mb, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "drop_batch") == 0) {
			NEXT_ARG();
			if (get_unsigned(&drop_batch, *argv, 0) || !drop_batch ||
			    drop_batch > 65536) {
				fprintf(stderr, "msfc: \"drop_batch\" must be 1..65536, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "overload") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "flow") == 0) {
				overload = TC_MSFC_OVERLOAD_FLOW;
			} else if (strcmp(*argv, "class") == 0) {
				overload = TC_MSFC_OVERLOAD_CLASS;
			} else {
				fprintf(stderr, "msfc: \"overload\" must be flow or class, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "weights") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "rounded") == 0) {
				weights = TC_MSFC_WEIGHTS_ROUNDED;
			} else if (strcmp(*argv, "exact") == 0) {
				weights = TC_MSFC_WEIGHTS_EXACT;
			} else {
				fprintf(stderr, "msfc: \"weights\" must be rounded or exact, got \"%s\"\n",
					*argv);
				return -1;
			}
		} else if (strcmp(*argv, "ecn") == 0) {
			ecn = 1;
		} else if (strcmp(*argv, "noecn") == 0) {
			ecn = 0;
		} else if (strcmp(*argv, "dscp_map") == 0) {
			NEXT_ARG();
			if (parse_dscp_map(map, *argv))
				return -1;
			have_map = true;
		} else {
			if (strcmp(*argv, "help") != 0)
				fprintf(stderr, "msfc: unknown option \"%s\"\n", *argv);
			explain();
			return -1;
		}
		argc--; argv++;
	}
	if (target && interval && target >= interval) {
		fprintf(stderr, "msfc: target must be below interval\n");
		return -1;
	}

	/* the kernel parses TCA_OPTIONS strictly: it must carry NLA_F_NESTED */
	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	if (prios)
		addattr32(n, 1024, TCA_MSFC_PRIOS, prios);
	if (flows)
		addattr32(n, 1024, TCA_MSFC_FLOWS, flows);
	if (quantum)
		addattr32(n, 1024, TCA_MSFC_QUANTUM, quantum);
	if (ratio)
		addattr32(n, 1024, TCA_MSFC_RATIO, ratio);
	if (target)
		addattr32(n, 1024, TCA_MSFC_TARGET, target);
	if (interval)
		addattr32(n, 1024, TCA_MSFC_INTERVAL, interval);
	if (limit)
		addattr32(n, 1024, TCA_MSFC_LIMIT, limit);
	if (memory != ~0U)
		addattr32(n, 1024, TCA_MSFC_MEMORY_LIMIT, memory);
	if (drop_batch)
		addattr32(n, 1024, TCA_MSFC_DROP_BATCH, drop_batch);
	if (ecn != -1)
		addattr32(n, 1024, TCA_MSFC_ECN, ecn);
	if (have_map)
		addattr_l(n, 1024, TCA_MSFC_DSCP_MAP, map, sizeof(map));
	if (overload != -1)
		addattr32(n, 1024, TCA_MSFC_OVERLOAD, overload);
	if (weights != -1)
		addattr32(n, 1024, TCA_MSFC_WEIGHTS, weights);
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
	__u8 dflt[TC_MSFC_DSCP_MAP_LEN];
	char ratio_text[32];
	__u32 v;
	int d;

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
	if (tb[TCA_MSFC_OVERLOAD]) {
		v = get_u32_attr(tb, TCA_MSFC_OVERLOAD, 0);
		if (v == TC_MSFC_OVERLOAD_FLOW || v == TC_MSFC_OVERLOAD_CLASS)
			print_string(PRINT_ANY, "overload", "overload %s ",
				     v == TC_MSFC_OVERLOAD_CLASS ? "class" : "flow");
		else
			print_uint(PRINT_ANY, "overload", "overload %u ", v);
	}
	if (tb[TCA_MSFC_WEIGHTS]) {
		v = get_u32_attr(tb, TCA_MSFC_WEIGHTS, 0);
		if (v == TC_MSFC_WEIGHTS_ROUNDED || v == TC_MSFC_WEIGHTS_EXACT)
			print_string(PRINT_ANY, "weights", "weights %s ",
				     v == TC_MSFC_WEIGHTS_EXACT ? "exact" : "rounded");
		else
			print_uint(PRINT_ANY, "weights", "weights %u ", v);
	}
	if (tb[TCA_MSFC_DSCP_MAP] &&
	    RTA_PAYLOAD(tb[TCA_MSFC_DSCP_MAP]) == TC_MSFC_DSCP_MAP_LEN) {
		const __u8 *map = RTA_DATA(tb[TCA_MSFC_DSCP_MAP]);
		bool first = true;

		open_json_array(PRINT_JSON, "dscp_map");
		for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++)
			print_uint(PRINT_JSON, NULL, NULL, map[d]);
		close_json_array(PRINT_JSON, NULL);

		/* text: only the entries that differ from the default map */
		msfc_default_map(dflt);
		if (memcmp(map, dflt, sizeof(dflt)) == 0) {
			print_string(PRINT_FP, NULL, "dscp_map %s ", "default");
		} else {
			for (d = 0; d < TC_MSFC_DSCP_MAP_LEN; d++) {
				if (map[d] == dflt[d])
					continue;
				print_string(PRINT_FP, NULL, "%s", first ? "dscp_map " : ",");
				print_uint(PRINT_FP, NULL, "%u", d);
				print_uint(PRINT_FP, NULL, ":%u", map[d]);
				first = false;
			}
			print_string(PRINT_FP, NULL, "%s", " ");
		}
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
	}
	return 0;
}

struct qdisc_util msfc_qdisc_util = {
	.id		= "msfc",
	.parse_qopt	= msfc_parse_opt,
	.print_qopt	= msfc_print_opt,
	.print_xstats	= msfc_print_xstats,
};
