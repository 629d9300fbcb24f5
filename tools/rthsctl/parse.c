// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl's command-line parser.  Pure functions from argv to the
 * library's structures, so that tests can drive them; nothing here talks
 * to the kernel or prints.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int rc_err_set(struct rc_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int rc_parse_global(int argc, char **argv, struct rc_global *g,
		    struct rc_err *e)
{
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--json")) {
			g->json = true;
		} else if (!strcmp(a, "--pretty")) {
			g->pretty = true;
		} else if (!strcmp(a, "--version")) {
			g->version = true;
		} else if (!strcmp(a, "--help")) {
			g->help = true;
		} else if (a[1] == '-') {
			return rc_err_set(e, "unknown option \"%s\"", a);
		} else {
			/* bundled short options: -jp */
			for (a++; *a; a++) {
				switch (*a) {
				case 'j': g->json = true; break;
				case 'p': g->pretty = true; break;
				case 'V': g->version = true; break;
				case 'h': g->help = true; break;
				default:
					return rc_err_set(e, "unknown option \"-%c\" (valid: -j -p -V -h)",
						    *a);
				}
			}
		}
	}
	/* -p alone means pretty JSON */
	if (g->pretty)
		g->json = true;
	return i;
}

/* The "valid:" list after "unknown @what \"@word\"". */
static int unknown_word(const char *word, const char *what,
			const char *(*name)(const void *tab, int i),
			const void *tab, struct rc_err *e)
{
	size_t used;
	int i;

	used = (size_t)snprintf(e->msg, sizeof(e->msg),
				"unknown %s \"%s\"; valid:", what, word);
	for (i = 0; name(tab, i) && used < sizeof(e->msg); i++)
		used += (size_t)snprintf(e->msg + used, sizeof(e->msg) - used,
					 " %s", name(tab, i));
	return -EINVAL;
}

static const char *word_name(const void *tab, int i)
{
	return ((const char *const *)tab)[i];
}

static const char *cmd_name(const void *tab, int i)
{
	return ((const struct rc_cmd *)tab)[i].name;
}

const struct rc_cmd *rc_cmd_find(const char *word, const struct rc_cmd *tab,
				 const char *what, struct rc_err *e)
{
	size_t n = strlen(word);
	int i;

	for (i = 0; tab[i].name; i++)
		if (!strcmp(word, tab[i].name))
			return &tab[i];
	for (i = 0; n && tab[i].name; i++)
		if (!strncmp(word, tab[i].name, n))
			return &tab[i];
	unknown_word(word, what, cmd_name, tab, e);
	return NULL;
}

int rc_keyword(const char *word, const char *const *valid, const char *what,
	       struct rc_err *e)
{
	int i;

	for (i = 0; valid[i]; i++)
		if (!strcmp(word, valid[i]))
			return i;
	return unknown_word(word, what, word_name, valid, e);
}

/* Digits only (strtoul alone would take "-1", " 1" and "0x1"). */
static int parse_digits(const char *field, const char *s, const char *suffix,
			uint64_t max, uint64_t *v, struct rc_err *e)
{
	const char *p = s;
	uint64_t x = 0;

	if (!s || !*s)
		return rc_err_set(e, "%s: missing value", field);
	if (*p < '0' || *p > '9')
		return rc_err_set(e, "%s: \"%s\" is not a non-negative integer",
			    field, s);
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (x > (max - d) / 10)
			return rc_err_set(e, "%s: %s is too large (at most %llu)",
				    field, s, (unsigned long long)max);
		x = x * 10 + d;
	}
	if (*p && !(suffix && !strcmp(p, suffix)))
		return rc_err_set(e, "%s: \"%s\" is not a non-negative integer%s%s%s",
			    field, s, suffix ? " (optionally followed by " : "",
			    suffix ? suffix : "", suffix ? ")" : "");
	*v = x;
	return 0;
}

int rc_parse_u32(const char *field, const char *s, const char *suffix,
		 uint32_t *v, struct rc_err *e)
{
	uint64_t x;
	int ret = parse_digits(field, s, suffix, UINT32_MAX, &x, e);

	if (!ret)
		*v = (uint32_t)x;
	return ret;
}

int rc_parse_u64(const char *field, const char *s, uint64_t *v,
		 struct rc_err *e)
{
	return parse_digits(field, s, NULL, UINT64_MAX, v, e);
}

/* ---- keyword lists ---------------------------------------------------------- */

static const char *const sim_words[] = {
	"lag", "delay", "stiffness", "damping", "noise-disp", "noise-force",
	"seed", "spring-stiffness", "yield-force", "post-stiffness", NULL
};

/* One sim parameter: @word (from sim_words) with its value @s. */
static int parse_sim_param(int which, const char *s,
			   struct rths_sim_params *sim, struct rc_err *e)
{
	static const unsigned int bit[] = {
		RTHS_SIM_LAG, RTHS_SIM_DELAY, RTHS_SIM_STIFFNESS,
		RTHS_SIM_DAMPING, RTHS_SIM_NOISE_DISP, RTHS_SIM_NOISE_FORCE,
		RTHS_SIM_SEED, RTHS_SIM_SPRING_STIFFNESS, RTHS_SIM_YIELD_FORCE,
		RTHS_SIM_POST_STIFFNESS,
	};
	const char *w = sim_words[which];

	if (sim->set & bit[which])
		return rc_err_set(e, "%s given twice", w);
	sim->set |= bit[which];
	switch (bit[which]) {
	case RTHS_SIM_LAG:
		return rc_parse_quantity(w, s, RC_TIME, &sim->lag, e);
	case RTHS_SIM_DELAY:
		return rc_parse_u32(w, s, NULL, &sim->delay_ticks, e);
	case RTHS_SIM_STIFFNESS:
		return rc_parse_quantity(w, s, RC_STIFFNESS, &sim->stiffness, e);
	case RTHS_SIM_DAMPING:
		return rc_parse_quantity(w, s, RC_DAMPING, &sim->damping, e);
	case RTHS_SIM_NOISE_DISP:
		return rc_parse_quantity(w, s, RC_LENGTH, &sim->noise_disp, e);
	case RTHS_SIM_NOISE_FORCE:
		return rc_parse_quantity(w, s, RC_FORCE, &sim->noise_force, e);
	case RTHS_SIM_SPRING_STIFFNESS:
		return rc_parse_quantity(w, s, RC_STIFFNESS,
					 &sim->spring_stiffness, e);
	case RTHS_SIM_YIELD_FORCE:
		return rc_parse_quantity(w, s, RC_FORCE, &sim->yield_force, e);
	case RTHS_SIM_POST_STIFFNESS:
		return rc_parse_quantity(w, s, RC_STIFFNESS,
					 &sim->post_stiffness, e);
	default:
		return rc_parse_u64(w, s, &sim->seed, e);
	}
}

/* ---- the sim card's plant --------------------------------------------------- */

const char *const rc_plant_keys[] = {
	"gain", "a1b0", "a2", "b1", "b2", "a3", "me", "ke", "zeta", "prewarp",
	NULL
};

/* none | benchmark[:KEY=VALUE,...] */
static int parse_plant(const char *v, struct rc_plant *p, struct rc_err *e)
{
	const char *rest;
	char buf[256], *item, *save = NULL;

	if (p->given)
		return rc_err_set(e, "plant given twice");
	p->given = true;
	if (!strcmp(v, "none")) {
		p->none = true;
		return 0;
	}
	if (strncmp(v, "benchmark", 9) || (v[9] && v[9] != ':'))
		return rc_err_set(e, "plant: \"%s\" is no plant; expected none or benchmark[:KEY=VALUE,...]",
				  v);
	if (!v[9])
		return 0;
	rest = v + 10;
	if (strlen(rest) >= sizeof(buf))
		return rc_err_set(e, "plant: too long");
	strcpy(buf, rest);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *end;
		bool zero_ok;
		double x;
		int k;

		if (!eq)
			return rc_err_set(e, "plant benchmark: \"%s\": expected KEY=VALUE",
					  item);
		*eq = '\0';
		k = rc_keyword(item, rc_plant_keys, "plant benchmark key", e);
		if (k < 0)
			return k;
		if (p->set & (1u << k))
			return rc_err_set(e, "plant benchmark: %s given twice",
					  item);
		zero_ok = k == RC_PLANT_GAIN || k == RC_PLANT_PREWARP;
		errno = 0;
		x = strtod(eq + 1, &end);
		if (end == eq + 1 || *end || errno || !isfinite(x) || x < 0 ||
		    (x == 0 && !zero_ok))
			return rc_err_set(e, "plant benchmark: %s: \"%s\" is not a %s number",
					  item, eq + 1,
					  zero_ok ? "non-negative" : "positive");
		p->set |= 1u << k;
		p->v[k] = x;
	}
	if (!p->set)
		return rc_err_set(e, "plant benchmark: nothing after ':'");
	return 0;
}

/* The value after keyword argv[*i], or an error naming the keyword. */
static int value_of(int argc, char **argv, int *i, const char **v,
		    const char *what, struct rc_err *e)
{
	if (*i + 1 >= argc)
		return rc_err_set(e, "%s: missing %s", argv[*i], what);
	*v = argv[++*i];
	return 0;
}

/* ---- comedi card parameters ------------------------------------------------ */

static const char *const comedi_words[] = {
	"device", "ao-subdev", "ai-subdev", "channel", "ao", "disp", "force",
	"range", "aref", "scale-ao", "offset-ao", "scale-disp", "offset-disp",
	"scale-force", "offset-force", NULL
};

enum {
	CW_DEVICE, CW_AO_SUBDEV, CW_AI_SUBDEV, CW_CHANNEL, CW_AO, CW_DISP,
	CW_FORCE, CW_RANGE, CW_AREF, CW_SCALE_AO, CW_OFFSET_AO, CW_SCALE_DISP,
	CW_OFFSET_DISP, CW_SCALE_FORCE, CW_OFFSET_FORCE,
};

/* AREF_GROUND, AREF_COMMON, AREF_DIFF, AREF_OTHER */
const char *const rc_aref_words[] = { "ground", "common", "diff", "other", NULL };

/* Where the comedi keywords of a command line stand. */
struct comedi_ctx {
	int ch;		/* the "channel I" the keywords that follow are for */
	int signal;	/* CW_AO, CW_DISP or CW_FORCE a "range" is for; -1 */
};

#define COMEDI_CTX_INIT { -1, -1 }

/* A channel's keywords end; "channel I" alone would send nothing. */
static int comedi_end_channel(struct comedi_ctx *cx,
			      const struct rths_comedi_params *p,
			      struct rc_err *e)
{
	if (cx->ch >= 0 && !p->chan[cx->ch].set)
		return rc_err_set(e, "channel %d: give ao, disp, force, aref, scale-* or offset-*",
				  cx->ch);
	cx->ch = -1;
	cx->signal = -1;
	return 0;
}

/* A count offset: an integer, optionally negative. */
static int parse_offset(const char *field, const char *s, int64_t *v,
			struct rc_err *e)
{
	bool neg = s && (*s == '-' || *s == '+');
	uint64_t x;
	int ret;

	ret = parse_digits(field, neg ? s + 1 : s, NULL, INT64_MAX, &x, e);
	if (ret)
		return rc_err_set(e, "%s: \"%s\" is not an integer", field, s);
	*v = s[0] == '-' ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* Set @bit of @set, or say that @field was given twice. */
static int once(unsigned int *set, unsigned int bit, const char *field,
		int ch, struct rc_err *e)
{
	if (*set & bit)
		return ch < 0 ? rc_err_set(e, "%s given twice", field) :
			rc_err_set(e, "channel %d %s given twice", ch, field);
	*set |= bit;
	return 0;
}

static int parse_comedi_chan(int w, const char *word, const char *v,
			     struct comedi_ctx *cx, struct rths_comedi_chan *c,
			     struct rc_err *e)
{
	static const unsigned int scale_bit[] = {
		[CW_SCALE_AO] = RTHS_COMEDI_CH_SCALE_AO,
		[CW_OFFSET_AO] = RTHS_COMEDI_CH_OFFSET_AO,
		[CW_SCALE_DISP] = RTHS_COMEDI_CH_SCALE_DISP,
		[CW_OFFSET_DISP] = RTHS_COMEDI_CH_OFFSET_DISP,
		[CW_SCALE_FORCE] = RTHS_COMEDI_CH_SCALE_FORCE,
		[CW_OFFSET_FORCE] = RTHS_COMEDI_CH_OFFSET_FORCE,
	};
	char field[48], scale[64];
	unsigned int bit;
	size_t len;
	int k, ret;

	snprintf(field, sizeof(field), "channel %d %s", cx->ch, word);
	switch (w) {
	case CW_AO:
	case CW_DISP:
	case CW_FORCE:
		bit = w == CW_AO ? RTHS_COMEDI_CH_AO_CHAN :
		      w == CW_DISP ? RTHS_COMEDI_CH_DISP_CHAN :
		      RTHS_COMEDI_CH_FORCE_CHAN;
		ret = once(&c->set, bit, word, cx->ch, e);
		if (ret)
			return ret;
		cx->signal = w;
		if (w == CW_FORCE && !strcmp(v, "none")) {
			c->force_chan = -1;
			return 0;
		}
		if (w == CW_FORCE) {
			uint32_t fc;

			ret = rc_parse_u32(field, v, NULL, &fc, e);
			if (!ret && fc > RTHS_COMEDI_CHAN_MAX)
				ret = rc_err_set(e, "%s: %u does not exist (0 to %d, or none)",
						 field, fc, RTHS_COMEDI_CHAN_MAX);
			c->force_chan = (int32_t)fc;
			return ret;
		}
		return rc_parse_u32(field, v, NULL,
				    w == CW_AO ? &c->ao_chan : &c->disp_chan, e);
	case CW_RANGE:
		if (cx->signal < 0)
			return rc_err_set(e, "channel %d range: give ao, disp or force first",
					  cx->ch);
		snprintf(field, sizeof(field), "channel %d %s range", cx->ch,
			 comedi_words[cx->signal]);
		if (cx->signal == CW_FORCE && c->force_chan < 0)
			return rc_err_set(e, "%s: no force channel", field);
		bit = cx->signal == CW_AO ? RTHS_COMEDI_CH_AO_RANGE :
		      cx->signal == CW_DISP ? RTHS_COMEDI_CH_DISP_RANGE :
		      RTHS_COMEDI_CH_FORCE_RANGE;
		if (c->set & bit)
			return rc_err_set(e, "%s given twice", field);
		c->set |= bit;
		return rc_parse_u32(field, v, NULL,
				    cx->signal == CW_AO ? &c->ao_range :
				    cx->signal == CW_DISP ? &c->disp_range :
				    &c->force_range, e);
	case CW_AREF:
		ret = once(&c->set, RTHS_COMEDI_CH_AREF, word, cx->ch, e);
		if (ret)
			return ret;
		k = rc_keyword(v, rc_aref_words, field, e);
		if (k < 0)
			return k;
		c->aref = (uint32_t)k;
		return 0;
	}
	ret = once(&c->set, scale_bit[w], word, cx->ch, e);
	if (ret)
		return ret;
	/* a scale may say what it is per: "7.63um/count" */
	len = strlen(v);
	if ((w == CW_SCALE_AO || w == CW_SCALE_DISP || w == CW_SCALE_FORCE) &&
	    len > 6 && len < sizeof(scale) && !strcmp(v + len - 6, "/count")) {
		memcpy(scale, v, len - 6);
		scale[len - 6] = '\0';
		v = scale;
	}
	switch (w) {
	case CW_SCALE_AO:
		return rc_parse_quantity(field, v, RC_LENGTH, &c->ao.scale, e);
	case CW_SCALE_DISP:
		return rc_parse_quantity(field, v, RC_LENGTH, &c->disp.scale, e);
	case CW_SCALE_FORCE:
		return rc_parse_quantity(field, v, RC_FORCE, &c->force.scale, e);
	case CW_OFFSET_AO:
		return parse_offset(field, v, &c->ao.offset, e);
	case CW_OFFSET_DISP:
		return parse_offset(field, v, &c->disp.offset, e);
	default:
		return parse_offset(field, v, &c->force.offset, e);
	}
}

/* The comedi keyword argv[*i] (@w in comedi_words) and its value. */
static int parse_comedi(int w, int argc, char **argv, int *i,
			struct comedi_ctx *cx, struct rths_comedi_params *p,
			struct rc_err *e)
{
	static const char dev_prefix[] = "/dev/comedi";
	const char *word = argv[*i], *v = NULL;
	uint32_t ch;
	int ret;

	ret = value_of(argc, argv, i, &v, "value", e);
	if (ret)
		return ret;
	if (w > CW_CHANNEL) {
		if (cx->ch < 0)
			return rc_err_set(e, "%s: give \"channel I\" first", word);
		return parse_comedi_chan(w, word, v, cx, &p->chan[cx->ch], e);
	}
	ret = comedi_end_channel(cx, p, e);
	if (ret)
		return ret;
	switch (w) {
	case CW_DEVICE:
		ret = once(&p->set, RTHS_COMEDI_MINOR, word, -1, e);
		if (ret)
			return ret;
		if (strncmp(v, dev_prefix, sizeof(dev_prefix) - 1))
			return rc_err_set(e, "device: \"%s\" is not /dev/comediN", v);
		return rc_parse_u32("device", v + sizeof(dev_prefix) - 1, NULL,
				    &p->minor, e);
	case CW_AO_SUBDEV:
		ret = once(&p->set, RTHS_COMEDI_AO_SUBDEV, word, -1, e);
		return ret ? ret : rc_parse_u32(word, v, NULL, &p->ao_subdev, e);
	case CW_AI_SUBDEV:
		ret = once(&p->set, RTHS_COMEDI_AI_SUBDEV, word, -1, e);
		return ret ? ret : rc_parse_u32(word, v, NULL, &p->ai_subdev, e);
	}
	ret = rc_parse_u32("channel", v, NULL, &ch, e);
	if (ret)
		return ret;
	if (ch >= RTHS_MAX_CHANNELS)
		return rc_err_set(e, "channel: %u does not exist (0 to %d)", ch,
				  RTHS_MAX_CHANNELS - 1);
	if (p->chan[ch].set)
		return rc_err_set(e, "channel %u given twice", ch);
	cx->ch = (int)ch;
	return 0;
}

static bool comedi_given(const struct rths_comedi_params *p)
{
	unsigned int ch;

	for (ch = 0; ch < RTHS_MAX_CHANNELS; ch++)
		if (p->chan[ch].set)
			return true;
	return p->set != 0;
}

static const char *const add_words[] = {
	"type", "channels", "lag", "delay", "stiffness", "damping",
	"noise-disp", "noise-force", "seed", "spring-stiffness", "yield-force",
	"post-stiffness", "plant",
	/* comedi_words, in their order */
	"device", "ao-subdev", "ai-subdev", "channel", "ao", "disp", "force",
	"range", "aref", "scale-ao", "offset-ao", "scale-disp", "offset-disp",
	"scale-force", "offset-force", NULL
};

#define ADD_PLANT 12
#define ADD_COMEDI_FIRST 13

int rc_parse_dev_add(int argc, char **argv, struct rc_dev_add *a,
		     struct rc_err *e)
{
	struct comedi_ctx cx = COMEDI_CTX_INIT;
	int i, k, ret;
	const char *v = NULL;

	memset(a, 0, sizeof(*a));
	if (argc < 1)
		return rc_err_set(e, "dev add: missing NAME");
	a->name = argv[0];
	for (i = 1; i < argc; i++) {
		k = rc_keyword(argv[i], add_words, "dev add keyword", e);
		if (k < 0)
			return k;
		if (k >= ADD_COMEDI_FIRST) {
			ret = parse_comedi(k - ADD_COMEDI_FIRST, argc, argv, &i,
					   &cx, &a->comedi, e);
			if (ret)
				return ret;
			continue;
		}
		ret = comedi_end_channel(&cx, &a->comedi, e);
		if (ret)
			return ret;
		ret = value_of(argc, argv, &i, &v, "value", e);
		if (ret)
			return ret;
		if (k == 0) {
			if (a->card)
				return rc_err_set(e, "type given twice");
			a->card = v;
		} else if (k == 1) {
			if (a->channels)
				return rc_err_set(e, "channels given twice");
			ret = rc_parse_u32("channels", v, NULL, &a->channels, e);
			if (!ret && !a->channels)
				ret = rc_err_set(e, "channels: must be at least 1");
		} else if (k == ADD_PLANT) {
			ret = parse_plant(v, &a->plant, e);
		} else {
			ret = parse_sim_param(k - 2, v, &a->sim, e);
		}
		if (ret)
			return ret;
	}
	ret = comedi_end_channel(&cx, &a->comedi, e);
	if (ret)
		return ret;
	if (!a->card)
		return rc_err_set(e, "dev add %s: missing \"type CARD\"", a->name);
	if (!a->channels)
		return rc_err_set(e, "dev add %s: missing \"channels N\"", a->name);
	if (strcmp(a->card, "sim") && a->plant.given)
		return rc_err_set(e, "dev add %s: plant: only the sim card has one, the card is %s",
				  a->name, a->card);
	if (strcmp(a->card, "sim") && a->sim.set)
		return rc_err_set(e, "dev add %s: sim parameters (lag, delay, stiffness, ...), but the card is %s",
				  a->name, a->card);
	if (strcmp(a->card, "comedi") && comedi_given(&a->comedi))
		return rc_err_set(e, "dev add %s: comedi parameters, but the card is %s",
				  a->name, a->card);
	if (!strcmp(a->card, "comedi") && !(a->comedi.set & RTHS_COMEDI_MINOR))
		return rc_err_set(e, "dev add %s: card comedi needs \"device /dev/comediN\"",
				  a->name);
	return 0;
}

static const char *const set_words[] = {
	"clock", "rate", "step-ticks", "late-policy", "deadline", "ramp",
	"cpu", "priority", "cmd-entries", "fb-entries", "trace-entries",
	"limit", "stroke", "velocity", "force", "plant",
	"lag", "delay", "stiffness", "damping", "noise-disp", "noise-force",
	"seed", "spring-stiffness", "yield-force", "post-stiffness",
	/* comedi_words but "force" (after "channel I" it is comedi's) */
	"device", "ao-subdev", "ai-subdev", "channel", "ao", "disp", "range",
	"aref", "scale-ao", "offset-ao", "scale-disp", "offset-disp",
	"scale-force", "offset-force", NULL
};

enum {
	W_CLOCK, W_RATE, W_STEP_TICKS, W_LATE_POLICY, W_DEADLINE, W_RAMP,
	W_CPU, W_PRIORITY, W_CMD_ENTRIES, W_FB_ENTRIES, W_TRACE_ENTRIES,
	W_LIMIT, W_STROKE, W_VELOCITY, W_FORCE, W_PLANT, W_SIM_FIRST,
	W_COMEDI_FIRST = W_SIM_FIRST + 10,
};

/* set_words from W_COMEDI_FIRST as comedi_words */
static const int set_comedi[] = {
	CW_DEVICE, CW_AO_SUBDEV, CW_AI_SUBDEV, CW_CHANNEL, CW_AO, CW_DISP,
	CW_RANGE, CW_AREF, CW_SCALE_AO, CW_OFFSET_AO, CW_SCALE_DISP,
	CW_OFFSET_DISP, CW_SCALE_FORCE, CW_OFFSET_FORCE,
};

/* In enum order, value = index + 1 (the parser links without librths;
 * its test checks these against the library's names). */
const char *const rc_clock_words[] = { "hrtimer", "manual", NULL };
const char *const rc_policy_words[] = {
	"strict", "hold", "event-driven", NULL
};

/* The plain u32 settings, in set_words order from W_RATE. */
static uint32_t *u32_field(struct rths_dev_config *cfg, int w,
			   unsigned int *bit)
{
	switch (w) {
	case W_RATE: *bit = RTHS_CFG_RATE; return &cfg->rate_hz;
	case W_STEP_TICKS: *bit = RTHS_CFG_STEP_TICKS; return &cfg->step_ticks;
	case W_DEADLINE: *bit = RTHS_CFG_LATE_DEADLINE;
		return &cfg->late_deadline;
	case W_RAMP: *bit = RTHS_CFG_RAMP_TICKS; return &cfg->ramp_ticks;
	case W_CPU: *bit = RTHS_CFG_CPU; return &cfg->cpu;
	case W_PRIORITY: *bit = RTHS_CFG_PRIORITY; return &cfg->priority;
	case W_CMD_ENTRIES: *bit = RTHS_CFG_CMD_ENTRIES;
		return &cfg->cmd_entries;
	case W_FB_ENTRIES: *bit = RTHS_CFG_FB_ENTRIES; return &cfg->fb_entries;
	case W_TRACE_ENTRIES: *bit = RTHS_CFG_TRACE_ENTRIES;
		return &cfg->trace_entries;
	}
	return NULL;
}

/* A bound that may be given once: quantity @q in @v, or "unlimited". */
static int parse_limit_max(struct rths_limits *l, unsigned int bit,
			   const char *field, const char *v,
			   enum rc_quantity q, double unlimited, double *max,
			   struct rc_err *e)
{
	if (l->set & bit)
		return rc_err_set(e, "%s given twice", field);
	l->set |= bit;
	if (!strcmp(v, "unlimited")) {
		*max = unlimited;
		return 0;
	}
	return rc_parse_quantity(field, v, q, max, e);
}

/* stroke MIN MAX | velocity V | force F, for limit channel @ch. */
static int parse_limit_part(int w, int argc, char **argv, int *i, int ch,
			    struct rths_dev_config *cfg, struct rc_err *e)
{
	struct rths_limits *l;
	char field[40];
	const char *v = NULL;
	int ret;

	if (ch < 0)
		return rc_err_set(e, "%s: give \"limit CH\" first", argv[*i]);
	l = &cfg->limits[ch];
	snprintf(field, sizeof(field), "limit %d %s", ch, argv[*i]);
	if (w == W_STROKE) {
		if (l->set & (RTHS_LIM_POS_MIN | RTHS_LIM_POS_MAX))
			return rc_err_set(e, "%s given twice", field);
		l->set |= RTHS_LIM_POS_MIN | RTHS_LIM_POS_MAX;
		if (*i + 1 < argc && !strcmp(argv[*i + 1], "unlimited")) {
			l->pos_min = -RC_UNLIMITED_POS;
			l->pos_max = RC_UNLIMITED_POS;
			*i += 1;
			return 0;
		}
		if (*i + 2 >= argc)
			return rc_err_set(e, "%s: needs MIN and MAX", field);
		ret = rc_parse_quantity(field, argv[*i + 1], RC_LENGTH,
					&l->pos_min, e);
		if (!ret)
			ret = rc_parse_quantity(field, argv[*i + 2], RC_LENGTH,
						&l->pos_max, e);
		if (ret)
			return ret;
		if (l->pos_min > l->pos_max)
			return rc_err_set(e, "%s: MIN %s is above MAX %s", field,
				    argv[*i + 1], argv[*i + 2]);
		*i += 2;
		return 0;
	}
	ret = value_of(argc, argv, i, &v, "value", e);
	if (ret)
		return ret;
	if (w == W_VELOCITY)
		return parse_limit_max(l, RTHS_LIM_VEL_MAX, field, v, RC_VELOCITY,
				       RC_UNLIMITED_VEL, &l->vel_max, e);
	return parse_limit_max(l, RTHS_LIM_FORCE_MAX, field, v, RC_FORCE,
			       RC_UNLIMITED_FORCE, &l->force_max, e);
}

int rc_parse_dev_set(int argc, char **argv, struct rc_dev_set *s,
		     struct rc_err *e)
{
	struct rths_dev_config *cfg = &s->cfg;
	struct comedi_ctx cx = COMEDI_CTX_INIT;
	int i, w, ret = 0, ch = -1;
	unsigned int bit = 0;
	uint32_t *field;
	const char *v = NULL;

	memset(s, 0, sizeof(*s));
	if (argc < 1)
		return rc_err_set(e, "dev set: missing NAME");
	s->name = argv[0];
	for (i = 1; i < argc && !ret; i++) {
		w = rc_keyword(argv[i], set_words, "dev set keyword", e);
		if (w < 0)
			return w;
		if (w >= W_COMEDI_FIRST || (w == W_FORCE && cx.ch >= 0)) {
			if (ch >= 0 && !cfg->limits[ch].set)
				return rc_err_set(e, "limit %d: give stroke, velocity or force",
						  ch);
			ch = -1;
			s->comedi_given = true;
			ret = parse_comedi(w == W_FORCE ? CW_FORCE :
					   set_comedi[w - W_COMEDI_FIRST],
					   argc, argv, &i, &cx, &s->comedi, e);
			continue;
		}
		ret = comedi_end_channel(&cx, &s->comedi, e);
		if (ret)
			return ret;
		if (w == W_STROKE || w == W_VELOCITY || w == W_FORCE) {
			ret = parse_limit_part(w, argc, argv, &i, ch, cfg, e);
			continue;
		}
		/* a limit channel with nothing to set would send nothing */
		if (ch >= 0 && !cfg->limits[ch].set)
			return rc_err_set(e, "limit %d: give stroke, velocity or force",
				    ch);
		ret = value_of(argc, argv, &i, &v, "value", e);
		if (ret)
			return ret;
		if (w == W_PLANT) {
			ret = parse_plant(v, &s->plant, e);
			ch = -1;
			continue;
		}
		if (w >= W_SIM_FIRST && w < W_COMEDI_FIRST) {
			ret = parse_sim_param(w - W_SIM_FIRST, v, &s->sim, e);
			s->sim_given = true;
			ch = -1;
			continue;
		}
		if (w == W_LIMIT) {
			uint32_t c;

			ret = rc_parse_u32("limit", v, NULL, &c, e);
			if (ret)
				return ret;
			if (c >= RTHS_MAX_CHANNELS)
				return rc_err_set(e, "limit: channel %u does not exist (0 to %d)",
					    c, RTHS_MAX_CHANNELS - 1);
			if (cfg->limits_set & (1u << c))
				return rc_err_set(e, "limit %u given twice", c);
			cfg->limits_set |= 1u << c;
			cfg->set |= RTHS_CFG_LIMITS;
			ch = (int)c;
			continue;
		}
		ch = -1;
		if (w == W_CLOCK || w == W_LATE_POLICY) {
			unsigned int b = w == W_CLOCK ? RTHS_CFG_CLOCK :
				       RTHS_CFG_LATE_POLICY;
			int k = rc_keyword(v, w == W_CLOCK ? rc_clock_words :
					   rc_policy_words, argv[i - 1], e);

			if (k < 0)
				return k;
			if (cfg->set & b)
				return rc_err_set(e, "%s given twice", argv[i - 1]);
			cfg->set |= b;
			if (w == W_CLOCK)
				cfg->clock = (enum rths_clock)(k + 1);
			else
				cfg->late_policy = (enum rths_late_policy)(k + 1);
			continue;
		}
		field = u32_field(cfg, w, &bit);
		if (cfg->set & bit)
			return rc_err_set(e, "%s given twice", argv[i - 1]);
		cfg->set |= bit;
		ret = rc_parse_u32(argv[i - 1], v, w == W_RATE ? "Hz" : NULL,
				   field, e);
	}
	if (ret)
		return ret;
	if (ch >= 0 && !cfg->limits[ch].set)
		return rc_err_set(e, "limit %d: give stroke, velocity or force", ch);
	ret = comedi_end_channel(&cx, &s->comedi, e);
	if (ret)
		return ret;
	if ((s->sim_given || s->plant.given) && s->comedi_given)
		return rc_err_set(e, "dev set %s: sim and comedi parameters together",
				  s->name);
	if (!cfg->set && !s->sim_given && !s->comedi_given && !s->plant.given)
		return rc_err_set(e, "dev set %s: nothing to set", s->name);
	return 0;
}
