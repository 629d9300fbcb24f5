// SPDX-License-Identifier: GPL-2.0
/*
 * The journal: one text line a completed step, appended and flushed, the
 * doubles as C99 hex floats so that they read back bit for bit
 * (Documentation/rths-coord.rst).  A kill mid-write leaves at most a torn
 * last line, which reading drops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord.h"

#define MAGIC "rths-coord journal 1"

static int jfail(char *msg, size_t len, const char *path, unsigned line,
		 const char *what)
{
	if (line)
		snprintf(msg, len, "%s:%u: %s", path, line, what);
	else
		snprintf(msg, len, "%s: %s", path, what);
	return -EINVAL;
}

/* Reads @n doubles after the word @tag; advances *p. */
static bool read_vec(char **p, const char *tag, double *v, size_t n)
{
	size_t tl = strlen(tag);
	char *end;

	while (**p == ' ')
		(*p)++;
	if (strncmp(*p, tag, tl) || (*p)[tl] != ' ')
		return false;
	*p += tl;
	for (size_t i = 0; i < n; i++) {
		errno = 0;
		v[i] = strtod(*p, &end);
		if (end == *p || errno == ERANGE)
			return false;
		*p = end;
	}
	return true;
}

static int parse_header(char *line, unsigned no, const char *path,
			const struct coord_config *cc, struct journal *j,
			char *msg, size_t len)
{
	unsigned long long hash, test;
	size_t q;
	char dt[64];
	double d;

	if (no == 1)
		return strcmp(line, MAGIC) ?
		       jfail(msg, len, path, no, "not an rths-coord journal (version 1)") : 0;
	if (no == 2) {
		if (sscanf(line, "test %llx", &test) != 1 || !test)
			return jfail(msg, len, path, no, "expected 'test ID'");
		j->test_id = test;
		return 0;
	}
	if (sscanf(line, "experiment fnv1a64 %llx n_if %zu dt %63s", &hash, &q,
		   dt) != 3)
		return jfail(msg, len, path, no, "expected 'experiment fnv1a64 HASH n_if Q dt DT'");
	d = strtod(dt, NULL);
	if (hash != cc->hash)
		return jfail(msg, len, path, no, "the experiment file changed since this journal was written");
	if (q != cc->n_if || d != cc->x->integrator.dt)
		return jfail(msg, len, path, no, "another substructure or step than the experiment's");
	return 0;
}

int journal_read(const char *path, const struct coord_config *cc,
		 struct journal *j, char *msg, size_t len)
{
	size_t q = cc->n_if, cap = 0, lcap = 0;
	char *line = NULL;
	ssize_t n;
	unsigned no = 0;
	long pos = 0;
	FILE *f;
	int r = 0;

	memset(j, 0, sizeof(*j));
	j->q = q;
	f = fopen(path, "r");
	if (!f) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while ((n = getline(&line, &lcap, f)) > 0) {
		char *p = line;
		uint64_t k;

		if (line[n - 1] != '\n')
			break;		/* torn: the kill came mid-write */
		line[--n] = '\0';
		no++;
		if (no <= 3) {
			r = parse_header(line, no, path, cc, j, msg, len);
			if (r)
				break;
			pos = ftell(f);
			continue;
		}
		if (!strcmp(line, "end")) {
			j->ended = true;
			pos = ftell(f);
			continue;
		}
		if (j->ended) {
			r = jfail(msg, len, path, no, "a step after 'end'");
			break;
		}
		if (j->n_steps == cap) {
			size_t nc = cap ? 2 * cap : 1024;
			double *x = realloc(j->x, nc * q * sizeof(double));
			double *d = x ? realloc(j->d, nc * q * sizeof(double)) : NULL;
			double *fm = d ? realloc(j->f_meas, nc * q * sizeof(double)) : NULL;

			if (x)
				j->x = x;
			if (d)
				j->d = d;
			if (!fm) {
				r = jfail(msg, len, path, no, "out of memory");
				break;
			}
			j->f_meas = fm;
			cap = nc;
		}
		if (sscanf(p, "step %" SCNu64, &k) != 1 || k != j->n_steps + 1) {
			r = jfail(msg, len, path, no, "expected 'step N' with N one more than the line before");
			break;
		}
		p += strcspn(p + 5, " ") + 5;
		strtod(p, &p);	/* the time: t = N dt */
		if (!read_vec(&p, "x", j->x + j->n_steps * q, q) ||
		    !read_vec(&p, "d", j->d + j->n_steps * q, q) ||
		    !read_vec(&p, "f", j->f_meas + j->n_steps * q, q) || *p) {
			r = jfail(msg, len, path, no, "expected 'step N T x Q values d Q values f Q values'");
			break;
		}
		j->n_steps++;
		pos = ftell(f);
	}
	free(line);
	fclose(f);
	if (r == 0 && no < 3)
		r = jfail(msg, len, path, 0, "no journal header (the run never started)");
	j->good_end = pos;
	if (r)
		journal_close(j);
	return r;
}

int journal_open(const char *path, const struct coord_config *cc,
		 struct journal *j, bool append, char *msg, size_t len)
{
	if (append) {
		if (truncate(path, j->good_end) < 0 ||
		    !(j->f = fopen(path, "a"))) {
			snprintf(msg, len, "%s: %s", path, strerror(errno));
			return -errno;
		}
		return 0;
	}
	j->f = fopen(path, "w");
	if (!j->f) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	j->q = cc->n_if;
	fprintf(j->f, MAGIC "\ntest 0x%016" PRIx64 "\nexperiment fnv1a64 0x%016" PRIx64 " n_if %zu dt %a\n",
		j->test_id, cc->hash, j->q, cc->x->integrator.dt);
	if (fflush(j->f)) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

static void put_vec(FILE *f, const char *tag, const double *v, size_t n)
{
	fprintf(f, " %s", tag);
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %a", v[i]);
}

int journal_step(struct journal *j, uint64_t n, double t, const double *x,
		 const double *d, const double *f)
{
	fprintf(j->f, "step %" PRIu64 " %a", n, t);
	put_vec(j->f, "x", x, j->q);
	put_vec(j->f, "d", d, j->q);
	put_vec(j->f, "f", f, j->q);
	fputc('\n', j->f);
	if (fflush(j->f))
		return -1;
	/* On disk before the next STEP: a crash of the machine, not only
	 * of the process, must not lose a step the sites have executed. */
	return !j->no_sync && fdatasync(fileno(j->f)) ? -1 : 0;
}

void journal_end(struct journal *j)
{
	if (j->f) {
		fputs("end\n", j->f);
		fflush(j->f);
	}
}

void journal_close(struct journal *j)
{
	if (j->f)
		fclose(j->f);
	j->f = NULL;
	free(j->x);
	free(j->d);
	free(j->f_meas);
	j->x = j->d = j->f_meas = NULL;
}
