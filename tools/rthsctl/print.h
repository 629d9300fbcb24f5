/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl's one printer (as iproute2's lib/json_print.c): each field is
 * one call that writes it as text or as JSON, so the two cannot drift.
 * The text carries every JSON key under the same name
 * (tests/unit/test_rthsctl_print.c checks it for every show command),
 * but for the comedi card's channels, which print as "dev add" takes
 * them.  rthsctl latency keeps the formats of cyclictest and rtla
 * (latfmt.c), not this one.
 *
 * @key is the JSON key (NULL inside an array); @fmt the text, printf
 * style with the one value (NULL: nothing in text; only for values the
 * text already says in other words).
 */
#ifndef RTHSCTL_PRINT_H
#define RTHSCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "output.h"

#define PR_DEPTH 8

struct pr {
	FILE *f;			/* text goes here; NULL for JSON */
	json_t *stack[PR_DEPTH];	/* JSON: the open objects and arrays */
	int depth;
};

/* Begin a document: JSON's is an array (one element per device...). */
void pr_begin(struct pr *p, bool json, FILE *f);
/* End it: the JSON document (the caller's), or NULL for text. */
json_t *pr_finish(struct pr *p);

/* Nested objects and arrays; @text is written on entry in text. */
void pr_obj(struct pr *p, const char *key, const char *text);
void pr_arr(struct pr *p, const char *key, const char *text);
void pr_close(struct pr *p);

void pr_u64(struct pr *p, const char *key, const char *fmt, uint64_t v);
void pr_i64(struct pr *p, const char *key, const char *fmt, int64_t v);
/* A NULL @s (a value the library has no name for) is JSON null and
 * "unknown" in text. */
void pr_str(struct pr *p, const char *key, const char *fmt, const char *s);
/* Text: @fmt with "yes" or "no". */
void pr_bool(struct pr *p, const char *key, const char *fmt, bool b);
/* JSON: @v; text: @fmt with @v * @scale (a double). */
void pr_real(struct pr *p, const char *key, const char *fmt, double v,
	     double scale);
/* JSON: @v in SI base units; text: @fmt with rc_fmt()'s "100mm". */
void pr_qty(struct pr *p, const char *key, const char *fmt, double v,
	    enum rc_quantity q);
/* JSON: the integer @v; text: @fmt with @v / @div (a double). */
void pr_fixed(struct pr *p, const char *key, const char *fmt, int64_t v,
	      double div);
/* JSON null; text @fmt as it is. */
void pr_null(struct pr *p, const char *key, const char *fmt);
/* Layout in text only (line breaks, indents); nothing in JSON. */
void pr_text(struct pr *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* End a show command: on @ret < 0, say why (rc_fail, for @what);
 * else print the JSON document.  Returns the exit status. */
int rc_show_done(struct rc *rc, struct pr *p, int ret, const char *what);

/* The show commands' renderers (dev.c, stats.c, card.c, monitor.c). */
void rc_show_dev(struct pr *p, const struct rths_dev_info *d,
		 const struct rths_card_params *card);
void rc_show_stats(struct pr *p, uint32_t id, const char *name,
		   const struct rths_stats *st);
void rc_show_card(struct pr *p, const char *card);
void rc_show_event(struct pr *p, const struct rths_event *ev);
void rc_show_plant(struct pr *p, const struct rths_sim_params *sim);

#endif /* RTHSCTL_PRINT_H */
