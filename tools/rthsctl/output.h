/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl's handle on the kernel and its messages (output.c): the control
 * socket, errors, command dispatch and JSON documents.
 */
#ifndef RTHSCTL_OUTPUT_H
#define RTHSCTL_OUTPUT_H

#include <stdio.h>
#include <jansson.h>

#include "parse.h"

struct rc {
	struct rc_global opt;
	struct rths_ctl *ctl;
};

/* The control socket, opened on first use; NULL after printing why
 * (the caller exits RC_UNREACHABLE). */
struct rths_ctl *rc_ctl(struct rc *rc);
/* Print "rthsctl: @what: <the library's reason>" for @ret; returns
 * RC_ERROR. */
int rc_fail(struct rc *rc, int ret, const char *what);
/* RC_OK for @ret 0, else rc_fail() for the words @fmt makes. */
int rc_result(struct rc *rc, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Print a command-line error and where to look; returns RC_USAGE. */
int rc_usage_error(const struct rc_err *e, const char *object);

/*
 * Run the command @argv[0] names in @tab (rc_cmd_find) with the words
 * after it; an entry without a func is "help" and prints @usage; no
 * word runs @tab[0].  Returns the exit status.
 */
int rc_dispatch(struct rc *rc, const struct rc_cmd *tab, const char *object,
		void (*usage)(FILE *f), int argc, char **argv);

/* Print @j (then free it) as the -j / -p options say. */
void rc_json_print(const struct rc *rc, json_t *j);

#endif /* RTHSCTL_OUTPUT_H */
