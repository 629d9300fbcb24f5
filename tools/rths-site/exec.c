// SPDX-License-Identifier: GPL-2.0
/*
 * One step of a substructure, whatever serves it: the native protocol
 * calls sub_execute() once per executed step, and nothing else moves the
 * specimen.  A numerical substructure computes its forces and commits its
 * springs; a device substructure would command its actuators here.
 */
#include <stdlib.h>
#include <string.h>

#include "site.h"

int sub_state_init(const struct substructure *sub, struct sub_state *st)
{
	st->el = calloc(sub->nel + 1, sizeof(*st->el));
	if (!st->el)
		return -1;
	sub_state_reset(sub, st);
	return 0;
}

/* Back to the virgin specimen of the site file. */
void sub_state_reset(const struct substructure *sub, struct sub_state *st)
{
	if (sub->nel)
		memcpy(st->el, sub->el, sub->nel * sizeof(*st->el));
}

void sub_state_free(struct sub_state *st)
{
	free(st->el);
	st->el = NULL;
}

/*
 * Execute step 'seq' at displacements u (velocities v and accelerations
 * a, or NULL: their terms are zero), from the committed state, which the
 * step then becomes.  Fills the measured displacements and the restoring
 * forces (n each) and the device's timing; returns 0, or -RNP_ERR_DEVICE
 * when the specimen could not be moved (nothing changed then).
 */
int sub_execute(struct substructure *sub, struct sub_state *st, uint64_t seq,
		const double *u, const double *v, const double *a,
		double *disp, double *force, struct sub_step_info *info)
{
	(void)seq;
	memset(info, 0, sizeof(*info));
	memcpy(disp, u, (size_t)sub->n * sizeof(double));
	model_force(sub, st->el, u, v, a, force);
	model_commit(sub, st->el, u);
	return 0;
}
