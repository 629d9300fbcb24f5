// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The comedi card's parameters: their attribute spaces, the encoding of a
 * request (SI calibrations become the kernel's fractions here), the
 * decoding of a DEV_GET reply.
 *
 * A scale s (m or N per count) goes to the kernel as the fraction num/den
 * nearest to s * 10^9 (nm) or s * 10^6 (uN) with |num| <= 2^30 and
 * den <= 2^22: the continued fraction of the double, in exact integer
 * arithmetic, cut at the last convergent within both bounds, or the
 * semiconvergent after it when that is closer.  Any fraction within the
 * bounds comes back exactly (a binary fraction with up to 22 fraction
 * bits, an integer nm per count, 3/7 nm per count...); otherwise the
 * relative error is below 2^-22 (below 2^-30 from 256 nm per count up).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dev/internal.h"

#define A(n, t)		{ .name = (n), .type = (t) }
#define NESTED(n, sp)	{ .name = (n), .type = MNL_TYPE_NESTED, .nest = (sp) }

static const struct rths_attr_desc chan_attrs[RTHS_COMEDI_CH_A_MAX + 1] = {
	[RTHS_COMEDI_CH_A_PAD] = A("pad", MNL_TYPE_UNSPEC),
	[RTHS_COMEDI_CH_A_INDEX] = A("index", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_AO_CHAN] = A("ao-chan", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_AO_RANGE] = A("ao-range", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_DISP_CHAN] = A("disp-chan", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_DISP_RANGE] = A("disp-range", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_FORCE_CHAN] = A("force-chan", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_FORCE_RANGE] = A("force-range", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_FORCE_NONE] = A("force-none", MNL_TYPE_FLAG),
	[RTHS_COMEDI_CH_A_AREF] = A("aref", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_AO_NUM] = A("ao-num", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_AO_DEN] = A("ao-den", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_AO_OFFSET] = A("ao-offset", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_DISP_NUM] = A("disp-num", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_DISP_DEN] = A("disp-den", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_DISP_OFFSET] = A("disp-offset", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_FORCE_NUM] = A("force-num", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_FORCE_DEN] = A("force-den", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_FORCE_OFFSET] = A("force-offset", MNL_TYPE_U64),
	[RTHS_COMEDI_CH_A_AO_MAXDATA] = A("ao-maxdata", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_DISP_MAXDATA] = A("disp-maxdata", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_FORCE_MAXDATA] = A("force-maxdata", MNL_TYPE_U32),
	[RTHS_COMEDI_CH_A_CLAMPS] = A("clamps", MNL_TYPE_U64),
};

const struct rths_attr_space rths_space_comedi_chan = {
	.max = RTHS_COMEDI_CH_A_MAX,
	.label_attr = RTHS_COMEDI_CH_A_INDEX,
	.attrs = chan_attrs,
};

/* RTHS_COMEDI_A_CHANNELS holds attributes of the top-level space. */
static const struct rths_attr_desc chan_list_attrs[RTHS_COMEDI_A_MAX + 1] = {
	[RTHS_COMEDI_A_CHANNEL] = NESTED("channel", &rths_space_comedi_chan),
};

static const struct rths_attr_space space_chan_list = {
	.max = RTHS_COMEDI_A_MAX,
	.attrs = chan_list_attrs,
};

static const struct rths_attr_desc comedi_attrs[RTHS_COMEDI_A_MAX + 1] = {
	[RTHS_COMEDI_A_PAD] = A("pad", MNL_TYPE_UNSPEC),
	[RTHS_COMEDI_A_MINOR] = A("minor", MNL_TYPE_U32),
	[RTHS_COMEDI_A_AO_SUBDEV] = A("ao-subdev", MNL_TYPE_U32),
	[RTHS_COMEDI_A_AI_SUBDEV] = A("ai-subdev", MNL_TYPE_U32),
	[RTHS_COMEDI_A_CHANNELS] = NESTED("channels", &space_chan_list),
	[RTHS_COMEDI_A_CHANNEL] = NESTED("channel", &rths_space_comedi_chan),
	[RTHS_COMEDI_A_BOARD] = A("board", MNL_TYPE_NUL_STRING),
	[RTHS_COMEDI_A_DRIVER] = A("driver", MNL_TYPE_NUL_STRING),
};

const struct rths_attr_space rths_space_comedi = {
	.max = RTHS_COMEDI_A_MAX,
	.attrs = comedi_attrs,
};

/* ---- scales as fractions ------------------------------------------------ */

typedef unsigned __int128 u128;

static u128 absdiff(u128 a, u128 b)
{
	return a > b ? a - b : b - a;
}

int rths_comedi_ratio(double per_count, int64_t *num, uint32_t *den)
{
	const uint64_t pmax = RTHS_COMEDI_NUM_MAX, qmax = RTHS_COMEDI_DEN_MAX;
	uint64_t p0 = 0, q0 = 1, p1 = 1, q1 = 0, sp, sq, k;
	double x = fabs(per_count);
	u128 n, d, n0, d0, r;
	int e;

	if (!isfinite(per_count) || x < 0x1p-23 || x > 0x1p30)
		return -ERANGE;
	/* x = m / 2^s exactly: m < 2^53, 0.5 <= frexp < 1, -22 <= e <= 31,
	 * so 22 <= s <= 75 */
	n0 = n = (uint64_t)ldexp(frexp(x, &e), 53);
	d0 = d = (u128)1 << (53 - e);
	for (;;) {
		u128 a = n / d;
		uint64_t a64;

		/* the next convergent p0 + a p1 / q0 + a q1 within bounds? */
		if (p1 && a > (pmax - p0) / p1)
			break;
		if (q1 && a > (qmax - q0) / q1)
			break;
		a64 = (uint64_t)a;
		sp = p0 + a64 * p1;
		sq = q0 + a64 * q1;
		p0 = p1;
		q0 = q1;
		p1 = sp;
		q1 = sq;
		r = n - a * d;
		n = d;
		d = r;
		if (!d)
			goto done;	/* x is p1 / q1 exactly */
	}
	/* The largest semiconvergent within bounds; q1 >= 1 here since the
	 * first convergent floor(x) / 1 always fits. */
	k = (qmax - q0) / q1;
	if (p1 && (pmax - p0) / p1 < k)
		k = (pmax - p0) / p1;
	sp = p0 + k * p1;
	sq = q0 + k * q1;
	/* |x - p/q| = |n0 q - p d0| / (d0 q); n0 q < 2^75, p d0 <= 2^105,
	 * times the other q (<= 2^22): below 2^128 */
	if (sq && absdiff(n0 * sq, sp * d0) * q1 <
		  absdiff(n0 * q1, p1 * d0) * sq) {
		p1 = sp;
		q1 = sq;
	}
done:
	if (!p1)
		return -ERANGE;		/* rounds to 0 */
	*num = per_count < 0 ? -(int64_t)p1 : (int64_t)p1;
	*den = (uint32_t)q1;
	return 0;
}

/* ---- requests ----------------------------------------------------------- */

struct cal_attrs {
	uint16_t num, den, offset;
	const char *scale_word, *offset_word;
	double unit;		/* kernel units per SI unit */
	const char *si;
};

static const struct cal_attrs cal_ao = {
	RTHS_COMEDI_CH_A_AO_NUM, RTHS_COMEDI_CH_A_AO_DEN,
	RTHS_COMEDI_CH_A_AO_OFFSET, "scale-ao", "offset-ao", 1e9, "m",
};
static const struct cal_attrs cal_disp = {
	RTHS_COMEDI_CH_A_DISP_NUM, RTHS_COMEDI_CH_A_DISP_DEN,
	RTHS_COMEDI_CH_A_DISP_OFFSET, "scale-disp", "offset-disp", 1e9, "m",
};
static const struct cal_attrs cal_force = {
	RTHS_COMEDI_CH_A_FORCE_NUM, RTHS_COMEDI_CH_A_FORCE_DEN,
	RTHS_COMEDI_CH_A_FORCE_OFFSET, "scale-force", "offset-force", 1e6, "N",
};

/* A calibration's scale (@scale) and offset (@offset) as given. */
static int put_cal(struct rths_msgbuf *mb, unsigned int ch,
		   const struct cal_attrs *ca, const struct rths_comedi_cal *cal,
		   const struct rths_comedi_cal *offset_cal, bool scale,
		   bool offset)
{
	int64_t num;
	uint32_t den;
	int ret = 0;

	if (scale) {
		if (rths_comedi_ratio(cal->scale * ca->unit, &num, &den)) {
			mb->err->attr = ca->num;
			return rths_err_set(mb->err, -ERANGE,
					    "channel %u %s: %g is out of range (magnitude %g to %g %s per count, not 0)",
					    ch, ca->scale_word, cal->scale,
					    0x1p-22 / ca->unit,
					    0x1p30 / ca->unit, ca->si);
		}
		ret = rths_put_u64(mb, ca->num, (uint64_t)num);
		if (!ret)
			ret = rths_put_u32(mb, ca->den, den);
	}
	if (!ret && offset)
		ret = rths_put_u64(mb, ca->offset, (uint64_t)offset_cal->offset);
	return ret;
}

static int put_chan(struct rths_msgbuf *mb, unsigned int ch,
		    const struct rths_comedi_chan *c)
{
	static const struct {
		unsigned int bit;
		uint16_t attr;
		size_t off;
	} u32s[] = {
#define F(bit, attr, field) \
	{ bit, attr, offsetof(struct rths_comedi_chan, field) }
		F(RTHS_COMEDI_CH_AO_CHAN, RTHS_COMEDI_CH_A_AO_CHAN, ao_chan),
		F(RTHS_COMEDI_CH_AO_RANGE, RTHS_COMEDI_CH_A_AO_RANGE, ao_range),
		F(RTHS_COMEDI_CH_DISP_CHAN, RTHS_COMEDI_CH_A_DISP_CHAN,
		  disp_chan),
		F(RTHS_COMEDI_CH_DISP_RANGE, RTHS_COMEDI_CH_A_DISP_RANGE,
		  disp_range),
		F(RTHS_COMEDI_CH_FORCE_RANGE, RTHS_COMEDI_CH_A_FORCE_RANGE,
		  force_range),
		F(RTHS_COMEDI_CH_AREF, RTHS_COMEDI_CH_A_AREF, aref),
#undef F
	};
	struct nlattr *nest = rths_nest_start(mb, RTHS_COMEDI_A_CHANNEL);
	unsigned int set = c->set, i;
	bool ao_scale, ao_offset;
	int ret;

	if (!nest)
		return rths_err_set(mb->err, -EMSGSIZE, "request too large");
	ret = rths_put_u32(mb, RTHS_COMEDI_CH_A_INDEX, ch);
	for (i = 0; !ret && i < sizeof(u32s) / sizeof(u32s[0]); i++) {
		uint32_t v;

		if (!(set & u32s[i].bit))
			continue;
		memcpy(&v, (const char *)c + u32s[i].off, sizeof(v));
		ret = rths_put_u32(mb, u32s[i].attr, v);
	}
	if (!ret && (set & RTHS_COMEDI_CH_FORCE_CHAN)) {
		static const char flag;

		if (c->force_chan < 0)
			ret = mnl_attr_put_check(mb->nlh, mb->size,
						 RTHS_COMEDI_CH_A_FORCE_NONE, 0,
						 &flag) ? 0 :
			      rths_err_set(mb->err, -EMSGSIZE,
					   "request too large");
		else
			ret = rths_put_u32(mb, RTHS_COMEDI_CH_A_FORCE_CHAN,
					   (uint32_t)c->force_chan);
	}
	/* an AO calibration left out follows the displacement's */
	ao_scale = set & (RTHS_COMEDI_CH_SCALE_AO | RTHS_COMEDI_CH_SCALE_DISP);
	ao_offset = set & (RTHS_COMEDI_CH_OFFSET_AO | RTHS_COMEDI_CH_OFFSET_DISP);
	if (!ret)
		ret = put_cal(mb, ch, &cal_ao,
			      set & RTHS_COMEDI_CH_SCALE_AO ? &c->ao : &c->disp,
			      set & RTHS_COMEDI_CH_OFFSET_AO ? &c->ao : &c->disp,
			      ao_scale, ao_offset);
	if (!ret)
		ret = put_cal(mb, ch, &cal_disp, &c->disp, &c->disp,
			      set & RTHS_COMEDI_CH_SCALE_DISP,
			      set & RTHS_COMEDI_CH_OFFSET_DISP);
	if (!ret)
		ret = put_cal(mb, ch, &cal_force, &c->force, &c->force,
			      set & RTHS_COMEDI_CH_SCALE_FORCE,
			      set & RTHS_COMEDI_CH_OFFSET_FORCE);
	if (ret)
		return ret;
	mnl_attr_nest_end(mb->nlh, nest);
	return 0;
}

int rths_put_comedi(struct rths_msgbuf *mb, const struct rths_comedi_params *p)
{
	struct nlattr *nest = rths_nest_start(mb, RTHS_A_DEV_CARD_PARAMS);
	struct nlattr *chans = NULL;
	unsigned int ch;
	int ret = 0;

	mb->params = &rths_space_comedi;
	if (!nest)
		return rths_err_set(mb->err, -EMSGSIZE, "request too large");
	if (p->set & RTHS_COMEDI_MINOR)
		ret = rths_put_u32(mb, RTHS_COMEDI_A_MINOR, p->minor);
	if (!ret && (p->set & RTHS_COMEDI_AO_SUBDEV))
		ret = rths_put_u32(mb, RTHS_COMEDI_A_AO_SUBDEV, p->ao_subdev);
	if (!ret && (p->set & RTHS_COMEDI_AI_SUBDEV))
		ret = rths_put_u32(mb, RTHS_COMEDI_A_AI_SUBDEV, p->ai_subdev);
	for (ch = 0; !ret && ch < RTHS_MAX_CHANNELS; ch++) {
		if (!p->chan[ch].set)
			continue;
		if (!chans) {
			chans = rths_nest_start(mb, RTHS_COMEDI_A_CHANNELS);
			if (!chans)
				return rths_err_set(mb->err, -EMSGSIZE,
						    "request too large");
		}
		ret = put_chan(mb, ch, &p->chan[ch]);
	}
	if (ret)
		return ret;
	if (chans)
		mnl_attr_nest_end(mb->nlh, chans);
	mnl_attr_nest_end(mb->nlh, nest);
	return 0;
}

/* ---- DEV_GET ---------------------------------------------------------------- */

static int parse_cal(const struct nlattr **tb, const struct cal_attrs *ca,
		     struct rths_comedi_cal *cal)
{
	if (!tb[ca->num] || !tb[ca->den])
		return 0;
	cal->num = (int64_t)rths_attr_u64(tb[ca->num]);
	cal->den = rths_attr_u32(tb[ca->den]);
	if (!cal->den)
		return -EPROTO;
	cal->scale = (double)cal->num / cal->den / ca->unit;
	cal->offset = (int64_t)rths_attr_u64(tb[ca->offset]);
	return 1;
}

static void get_u32(const struct nlattr *a, unsigned int bit, uint32_t *dst,
		    unsigned int *set)
{
	if (a) {
		*dst = rths_attr_u32(a);
		*set |= bit;
	}
}

static int parse_chan(const struct nlattr *nest, struct rths_comedi_params *p)
{
	const struct nlattr *tb[RTHS_COMEDI_CH_A_MAX + 1] = { NULL };
	struct rths_comedi_chan *c;
	uint32_t ch;
	int ret;

	if (rths_attr_parse_nest(nest, &rths_space_comedi_chan, tb) ||
	    !tb[RTHS_COMEDI_CH_A_INDEX])
		return -EPROTO;
	ch = rths_attr_u32(tb[RTHS_COMEDI_CH_A_INDEX]);
	if (ch >= RTHS_MAX_CHANNELS)
		return 0;
	c = &p->chan[ch];
	memset(c, 0, sizeof(*c));
	get_u32(tb[RTHS_COMEDI_CH_A_AO_CHAN], RTHS_COMEDI_CH_AO_CHAN,
		&c->ao_chan, &c->set);
	get_u32(tb[RTHS_COMEDI_CH_A_AO_RANGE], RTHS_COMEDI_CH_AO_RANGE,
		&c->ao_range, &c->set);
	get_u32(tb[RTHS_COMEDI_CH_A_DISP_CHAN], RTHS_COMEDI_CH_DISP_CHAN,
		&c->disp_chan, &c->set);
	get_u32(tb[RTHS_COMEDI_CH_A_DISP_RANGE], RTHS_COMEDI_CH_DISP_RANGE,
		&c->disp_range, &c->set);
	get_u32(tb[RTHS_COMEDI_CH_A_FORCE_RANGE], RTHS_COMEDI_CH_FORCE_RANGE,
		&c->force_range, &c->set);
	get_u32(tb[RTHS_COMEDI_CH_A_AREF], RTHS_COMEDI_CH_AREF, &c->aref,
		&c->set);
	/* the kernel reports every channel whole: no force channel is none */
	c->set |= RTHS_COMEDI_CH_FORCE_CHAN;
	c->force_chan = tb[RTHS_COMEDI_CH_A_FORCE_CHAN] ?
		(int32_t)rths_attr_u32(tb[RTHS_COMEDI_CH_A_FORCE_CHAN]) : -1;
	ret = parse_cal(tb, &cal_disp, &c->disp);
	if (ret < 0)
		return ret;
	if (ret)
		c->set |= RTHS_COMEDI_CH_SCALE_DISP | RTHS_COMEDI_CH_OFFSET_DISP;
	/* left out: the same as the displacement's */
	ret = parse_cal(tb, &cal_ao, &c->ao);
	if (ret < 0)
		return ret;
	if (!ret)
		c->ao = c->disp;
	if (ret || (c->set & RTHS_COMEDI_CH_SCALE_DISP))
		c->set |= RTHS_COMEDI_CH_SCALE_AO | RTHS_COMEDI_CH_OFFSET_AO;
	ret = parse_cal(tb, &cal_force, &c->force);
	if (ret < 0)
		return ret;
	if (ret)
		c->set |= RTHS_COMEDI_CH_SCALE_FORCE |
			  RTHS_COMEDI_CH_OFFSET_FORCE;
	c->ao_maxdata = rths_attr_u32(tb[RTHS_COMEDI_CH_A_AO_MAXDATA]);
	c->disp_maxdata = rths_attr_u32(tb[RTHS_COMEDI_CH_A_DISP_MAXDATA]);
	c->force_maxdata = rths_attr_u32(tb[RTHS_COMEDI_CH_A_FORCE_MAXDATA]);
	c->clamps = rths_attr_u64(tb[RTHS_COMEDI_CH_A_CLAMPS]);
	return 0;
}

static void copy_str(char *dst, size_t size, const struct nlattr *a)
{
	snprintf(dst, size, "%s", a ? mnl_attr_get_str(a) : "");
}

int rths_comedi_parse(const struct nlattr *nest, struct rths_comedi_params *p)
{
	const struct nlattr *tb[RTHS_COMEDI_A_MAX + 1] = { NULL };
	const struct nlattr *a;
	int ret = rths_attr_parse_nest(nest, &rths_space_comedi, tb);

	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	if (tb[RTHS_COMEDI_A_MINOR]) {
		p->minor = rths_attr_u32(tb[RTHS_COMEDI_A_MINOR]);
		p->set |= RTHS_COMEDI_MINOR;
	}
	if (tb[RTHS_COMEDI_A_AO_SUBDEV]) {
		p->ao_subdev = rths_attr_u32(tb[RTHS_COMEDI_A_AO_SUBDEV]);
		p->set |= RTHS_COMEDI_AO_SUBDEV;
	}
	if (tb[RTHS_COMEDI_A_AI_SUBDEV]) {
		p->ai_subdev = rths_attr_u32(tb[RTHS_COMEDI_A_AI_SUBDEV]);
		p->set |= RTHS_COMEDI_AI_SUBDEV;
	}
	copy_str(p->board, sizeof(p->board), tb[RTHS_COMEDI_A_BOARD]);
	copy_str(p->driver, sizeof(p->driver), tb[RTHS_COMEDI_A_DRIVER]);
	if (!tb[RTHS_COMEDI_A_CHANNELS])
		return 0;
	mnl_attr_for_each_nested(a, tb[RTHS_COMEDI_A_CHANNELS]) {
		if (mnl_attr_get_type(a) != RTHS_COMEDI_A_CHANNEL)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		ret = parse_chan(a, p);
		if (ret)
			return ret;
	}
	return 0;
}
