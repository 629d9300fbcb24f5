/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl's command line: the parser (parse.c; units and human values,
 * units.c; the sim card's plant, plant.c).  Pure functions from argv to
 * the library's structures, unit-tested on their own; nothing here talks
 * to the kernel or prints.  The bottom of rthsctl's parts.
 */
#ifndef RTHSCTL_PARSE_H
#define RTHSCTL_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rths/device.h"

/* The project's, from debian/changelog (the Makefile defines it). */
#define RTHSCTL_VERSION RTHS_VERSION

/* Exit statuses (Documentation/tool-conventions.rst). */
enum { RC_OK = 0, RC_ERROR = 1, RC_USAGE = 2, RC_UNREACHABLE = 3 };

/* What was wrong with the command line, in words. */
struct rc_err {
	char msg[1024];	/* room for the longest "valid:" list */
};

/* Set @e's message (printf style); returns -EINVAL. */
int rc_err_set(struct rc_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct rc_global {
	bool json, pretty, version, help;
};

/* Global options; returns the index of the first argument after them,
 * or -EINVAL. */
int rc_parse_global(int argc, char **argv, struct rc_global *g,
		    struct rc_err *e);

/* Index of @word in the NULL-terminated @valid, or -EINVAL with a message
 * that names @word and lists the valid ones ("unknown @what"). */
int rc_keyword(const char *word, const char *const *valid, const char *what,
	       struct rc_err *e);

/*
 * A command table, as ip's: {name, func} pairs ended by { NULL }.  A word
 * names the entry it equals, else the first entry, in table order, that
 * it begins ("d" is dev, "run st" is start): put the common commands
 * first.  Returns the entry, or NULL with a message that lists the names.
 */
struct rc;
struct rc_cmd {
	const char *name;
	int (*func)(struct rc *rc, int argc, char **argv);
};

const struct rc_cmd *rc_cmd_find(const char *word, const struct rc_cmd *tab,
				 const char *what, struct rc_err *e);

/* Unsigned decimal integers (an optional @suffix such as "Hz" is allowed
 * after the digits). */
int rc_parse_u32(const char *field, const char *s, const char *suffix,
		 uint32_t *v, struct rc_err *e);
int rc_parse_u64(const char *field, const char *s, uint64_t *v,
		 struct rc_err *e);

enum rc_quantity {
	RC_LENGTH,	/* m; mm, um, nm */
	RC_FORCE,	/* N; kN, MN */
	RC_VELOCITY,	/* m/s; mm/s */
	RC_TIME,	/* s; ms, us */
	RC_STIFFNESS,	/* N/m; kN/m, N/mm, kN/mm, MN/m */
	RC_DAMPING,	/* Ns/m; N*s/m, kNs/m, Ns/mm, kNs/mm */
};

/* A finite number with an optional unit suffix, in SI base units
 * (units.c). */
int rc_parse_quantity(const char *field, const char *s, enum rc_quantity q,
		      double *v, struct rc_err *e);
/* The kernel's "no limit" values, and what "unlimited" on the command
 * line sets (velocity: the largest round number below 2^64 nm/s). */
#define RC_UNLIMITED_POS	((double)RTHS_POS_MAX / 1e9)	/* m */
#define RC_UNLIMITED_VEL	1.8e10				/* m/s */
#define RC_UNLIMITED_FORCE	((double)RTHS_FORCE_MAX / 1e6)	/* N */
/* Is @v (a limit of quantity @q) so large that it limits nothing? */
bool rc_unlimited(double v, enum rc_quantity q);

/* Human values: "100mm", "1.5kN", "5ms" (fixed point down to the kernel's
 * resolution, no trailing zeros); @buf of at least 48 bytes. */
const char *rc_fmt(char *buf, double v, enum rc_quantity q);

/* Values of "clock" and "late-policy", in enum order from 1. */
extern const char *const rc_clock_words[];
extern const char *const rc_policy_words[];

/*
 * The sim card's plant: "none" (back to the lag) or "benchmark" with any
 * of rc_plant_keys changed ("benchmark:b1=2.2,ke=1e5").  The parser
 * only reads it; rc_plant_design() (plant.c, with librths) designs it at
 * the device's rate.
 */
enum {
	RC_PLANT_GAIN, RC_PLANT_A1B0, RC_PLANT_A2, RC_PLANT_B1, RC_PLANT_B2,
	RC_PLANT_A3, RC_PLANT_ME, RC_PLANT_KE, RC_PLANT_ZETA,
	RC_PLANT_PREWARP, RC_PLANT_KEYS
};

struct rc_plant {
	bool given, none;
	unsigned int set;		/* 1 << RC_PLANT_* */
	double v[RC_PLANT_KEYS];
};

extern const char *const rc_plant_keys[];

int rc_plant_design(const struct rc_plant *p, uint32_t rate,
		    struct rths_sim_params *sim, struct rc_err *e);

struct rc_dev_add {
	const char *name, *card;
	uint32_t channels;
	struct rc_plant plant;
	struct rths_sim_params sim;
	struct rths_comedi_params comedi;	/* card "comedi" */
};

/* Values of "aref", in AREF_* order from 0. */
extern const char *const rc_aref_words[];

/* "NAME type CARD channels N [sim params | comedi params]" */
int rc_parse_dev_add(int argc, char **argv, struct rc_dev_add *a,
		     struct rc_err *e);
/* What "dev set" sends: core settings and one card's parameters. */
struct rc_dev_set {
	const char *name;
	struct rths_dev_config cfg;
	bool sim_given, comedi_given;
	struct rc_plant plant;
	struct rths_sim_params sim;
	struct rths_comedi_params comedi;
};

/* "NAME [config keywords]..." */
int rc_parse_dev_set(int argc, char **argv, struct rc_dev_set *s,
		     struct rc_err *e);

#endif /* RTHSCTL_PARSE_H */
