/* SPDX-License-Identifier: GPL-2.0 */
/* rths-run's parts. */
#ifndef RTHS_RUN_H
#define RTHS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_output.h>

/* A progress bar on stderr; silent unless stderr is a terminal. */
struct progress {
	bool on;
	double dt;
	uint64_t last_pct;
};

void progress_init(struct progress *p, bool wanted, double dt);
/* The loop's callback (ctx: struct progress). */
void progress_update(void *ctx, uint64_t step, uint64_t steps);
void progress_done(struct progress *p);

/*
 * The backend the experiment asks for (offline if @offline).  Fills a
 * short description for the summary; a device backend writes its
 * actuator-rate trace into @dir.
 */
int backend_open(const struct rths_hs_experiment *x, bool offline,
		 const char *dir, struct rths_hs_backend *b, char *desc,
		 size_t desc_len, char *actuator, size_t act_len,
		 struct rths_hs_error *err);

#endif /* RTHS_RUN_H */
