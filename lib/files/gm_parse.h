/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the ground motion readers, private. */
#ifndef RTHS_FILES_GM_PARSE_H
#define RTHS_FILES_GM_PARSE_H

#include <stdbool.h>
#include <stdio.h>

#include <rths/hs_groundmotion.h>

/* Empty @gm and open @path for reading (NULL and an error if not). */
FILE *rths_hs_gm_open(struct rths_hs_gm *gm, const char *path,
		      struct rths_error *err);

/* A whole token as a number; Fortran D exponents accepted.  0 or -1. */
int rths_hs_gm_parse_number(const char *tok, double *v);
/* @v, read in the file's units, times @to_si: *si in m/s^2.  A product
 * that is no finite number (1e308 g overflows) is refused at @path:@line,
 * field @field, where it can be mended; the run would diverge later with
 * no word of the file. */
int rths_hs_gm_to_si(double v, double to_si, const char *path,
		     unsigned int line, int field, double *si,
		     struct rths_error *err);
/* The end of a read of @path: @gm names its source, @line is freed and
 * @f closed; @r < 0 (returned) empties @gm. */
int rths_hs_gm_read_end(struct rths_hs_gm *gm, const char *path, FILE *f,
			char *line, int r);
/* Append one value, growing gm->acc (capacity in *cap). */
int rths_hs_gm_append(struct rths_hs_gm *gm, size_t *cap, double v,
		      struct rths_error *err);

/* The first line of a PEER NGA record (.AT2, .VT2, .DT2)? */
bool rths_hs_gm_is_peer(const char *line);
/* Why a PEER record (line 1 read from @f) is no two-column file: what it
 * holds, from its header.  Always an error. */
int rths_hs_gm_peer_not_two_column(FILE *f, const char *path,
				   struct rths_error *err);

#endif /* RTHS_FILES_GM_PARSE_H */
