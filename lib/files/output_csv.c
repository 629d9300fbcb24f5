// SPDX-License-Identifier: LGPL-2.1-or-later
/* The step history as CSV. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_output.h>

int rths_hs_csv_column(const struct rths_hs_history *h, bool with_ref,
		       enum rths_hs_csv_field f, size_t index)
{
	size_t n = h->n_dof, m = h->n_act;
	int base = 3 + 3 * (int)n;	/* step, time, ag, u, v, a */

	switch (f) {
	case RTHS_HS_CSV_TIME: return 2;
	case RTHS_HS_CSV_AG: return 3;
	case RTHS_HS_CSV_U: return 4 + (int)index;
	case RTHS_HS_CSV_V: return 4 + (int)(n + index);
	case RTHS_HS_CSV_A: return 4 + (int)(2 * n + index);
	case RTHS_HS_CSV_TARGET: return base + 1 + (int)(4 * index);
	case RTHS_HS_CSV_COMMAND: return base + 2 + (int)(4 * index);
	case RTHS_HS_CSV_DISP: return base + 3 + (int)(4 * index);
	case RTHS_HS_CSV_FORCE: return base + 4 + (int)(4 * index);
	case RTHS_HS_CSV_UREF:
		/* after compute_us and flags, which come with actuators */
		return with_ref ? base + 4 * (int)m + (m ? 2 : 0) + 1 +
				  (int)index : -ENOENT;
	}
	return -EINVAL;
}

int rths_hs_csv_column_name(const struct rths_hs_history *h, bool with_ref,
			    int col, char *buf, size_t size)
{
	static const char *const head[] = { "step", "time_s", "ag_mps2" };
	static const char *const dof[] = { "u%zu_m", "v%zu_mps", "a%zu_mps2" };
	static const char *const act[] = { "target%zu_m", "command%zu_m",
					   "disp%zu_m", "force%zu_N" };
	size_t n = h->n_dof, m = h->n_act, k;

	if (col < 1)
		return -EINVAL;
	k = (size_t)col - 1;
	if (k < 3)
		return snprintf(buf, size, "%s", head[k]);
	k -= 3;
	if (k < 3 * n)
		return snprintf(buf, size, dof[k / n], k % n + 1);
	k -= 3 * n;
	if (k < 4 * m)
		return snprintf(buf, size, act[k % 4], k / 4 + 1);
	k -= 4 * m;
	/* compute_us and flags come with actuators */
	if (m && k < 2)
		return snprintf(buf, size, "%s", k ? "flags" : "compute_us");
	k -= m ? 2 : 0;
	if (with_ref && k < n)
		return snprintf(buf, size, "uref%zu_m", k + 1);
	return -ENOENT;
}

int rths_hs_write_csv(const char *path, const struct rths_hs_history *h,
		      const struct rths_hs_history *ref, unsigned int every,
		      struct rths_error *err)
{
	size_t n = h->n_dof, m = h->n_act;
	char name[32];
	FILE *f = fopen(path, "w");
	int r = 0;

	if (!f)
		return rths_error_set(err, errno, path, 0, NULL,
				      "cannot write: %s", rths_strerror(errno));
	if (every < 1)
		every = 1;
	for (int c = 1; rths_hs_csv_column_name(h, ref != NULL, c, name,
						sizeof(name)) >= 0; c++)
		fprintf(f, "%s%s", c > 1 ? "," : "", name);
	fputc('\n', f);
	for (size_t k = 0; k < h->rows; k += every) {
		fprintf(f, "%zu,%.9g,%.9g", k, h->t[k], h->ag[k]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, ",%.9g", h->u[k * n + i]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, ",%.9g", h->v[k * n + i]);
		for (size_t i = 0; i < n; i++)
			fprintf(f, ",%.9g", h->a[k * n + i]);
		for (size_t i = 0; i < m; i++)
			fprintf(f, ",%.9g,%.9g,%.9g,%.9g", h->target[k * m + i],
				h->command[k * m + i], h->disp[k * m + i],
				h->force[k * m + i]);
		if (m)
			fprintf(f, ",%.3f,%u", h->compute[k] * 1e6, h->flags[k]);
		for (size_t i = 0; ref && i < n; i++)
			fprintf(f, ",%.9g", k < ref->rows ? ref->u[k * n + i] : 0.0);
		fputc('\n', f);
	}
	if (ferror(f))
		r = rths_error_set(err, EIO, path, 0, NULL,
				   "write failed");
	if (fclose(f) != 0 && r == 0)
		r = rths_error_set(err, errno, path, 0, NULL,
				   "cannot write: %s", rths_strerror(errno));
	return r;
}
