/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl -b FILE: a file of "dev add", "dev set" and "dev del" lines
 * (/etc/rths/devices.conf at boot), checked whole before any is applied
 * (batch.c; rthsctl(8), "BATCH MODE").
 */
#ifndef RTHSCTL_BATCH_H
#define RTHSCTL_BATCH_H

#include <stdio.h>

#include "cmds.h"

enum rc_batch_op { RC_BATCH_ADD, RC_BATCH_SET, RC_BATCH_DEL };

struct rc_batch_line {
	unsigned int lineno;
	enum rc_batch_op op;
	const char *name;
	int argc;		/* after "dev": argv[0] is add, set or del */
	char **argv;
	/* add: the card; set: a new rate (0 if none) and a plant given */
	const char *card;
	uint32_t rate;
	bool plant;
	struct rc_plant plant_spec;
};

struct rc_batch {
	const char *file;	/* as given; "-" is standard input */
	unsigned int n;
	struct rc_batch_line *lines;
	char **words;		/* every line's words, to free */
	unsigned int nwords;
};

/*
 * Read and check @f (named @file in messages) without the kernel: every
 * line's syntax and values, a plant against the rate the device will
 * have, and the names (an add of a name the batch already added, a set
 * or del of one it deleted).  On error @e says "FILE:LINE: ..." and
 * nothing is kept; returns 0 or -EINVAL (-ENOMEM, -EIO).
 */
int rc_batch_load(FILE *f, const char *file, struct rc_batch *b,
		  struct rc_err *e);
void rc_batch_free(struct rc_batch *b);

/* "-b FILE" or "--batch FILE" among the leading options: taken out of
 * argv (argc updated), *@file set; -EINVAL if FILE is missing. */
int rc_batch_option(int *argc, char **argv, const char **file,
		    struct rc_err *e);

/* rthsctl -b FILE: load, check against the kernel's devices, apply in
 * order; if the kernel refuses a line, delete the devices the batch
 * created.  Returns the exit status. */
int rc_batch_run(struct rc *rc, const char *file);

#endif /* RTHSCTL_BATCH_H */
