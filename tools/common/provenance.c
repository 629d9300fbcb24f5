// SPDX-License-Identifier: GPL-2.0
/* Where a run's outputs came from (provenance.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <rths/hs_output.h>


#include "rths_git.h"		/* RTHS_GIT, written by mk/tools.mk */
#include "provenance.h"

static void now_utc(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void provenance_start(struct provenance *p, const char *tool,
		      const char *card, const char *experiment)
{
	struct utsname u;

	memset(p, 0, sizeof(*p));
	snprintf(p->tool, sizeof(p->tool), "%s", tool);
	snprintf(p->version, sizeof(p->version), "%s", RTHS_VERSION);
	snprintf(p->git, sizeof(p->git), "%s", RTHS_GIT);
	if (gethostname(p->host, sizeof(p->host) - 1) < 0)
		p->host[0] = '\0';
	if (uname(&u) == 0)
		snprintf(p->kernel, sizeof(p->kernel), "%s %s %s %s",
			 u.sysname, u.release, u.version, u.machine);
	snprintf(p->card, sizeof(p->card), "%s", card ? card : "");
	snprintf(p->experiment, sizeof(p->experiment), "%s",
		 experiment ? experiment : "");
	now_utc(p->started, sizeof(p->started));
}

void provenance_end(struct provenance *p)
{
	now_utc(p->ended, sizeof(p->ended));
}

json_t *provenance_json(const struct provenance *p)
{
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "tool", p->tool,
			      "version", p->version, "host", p->host,
			      "kernel", p->kernel, "started", p->started,
			      "ended", p->ended, "experiment", p->experiment);

	if (o && p->git[0])
		json_object_set_new(o, "git", json_string(p->git));
	if (o && p->card[0])
		json_object_set_new(o, "card", json_string(p->card));
	return o;
}

int provenance_copy_experiment(const struct provenance *p, const char *dir)
{
	char path[PATH_MAX + 32], buf[65536];
	FILE *in, *out;
	size_t n;
	int r = 0;

	if (!p->experiment[0])
		return 0;
	snprintf(path, sizeof(path), "%s/experiment.json", dir);
	in = fopen(p->experiment, "rb");
	if (!in) {
		r = -errno;
		fprintf(stderr, "%s: %s: io: %s\n", p->tool, p->experiment,
			strerror(errno));
		return r;
	}
	out = fopen(path, "wb");
	if (!out) {
		r = -errno;
		fprintf(stderr, "%s: %s: io: %s\n", p->tool, path,
			strerror(errno));
		fclose(in);
		return r;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			r = -EIO;
			break;
		}
	if (ferror(in))
		r = -EIO;
	if (fclose(out) && !r)
		r = -errno;
	fclose(in);
	if (r)
		fprintf(stderr, "%s: %s: io: %s\n", p->tool, path,
			strerror(-r));
	return r;
}

/* A column's CSV on the Web description from its name. */
static json_t *column(const char *name)
{
	static const char *const integers[] = { "step", "tick", "step_tick",
						"flags", NULL };
	const char *type = "double";

	for (const char *const *i = integers; *i; i++)
		if (!strcmp(name, *i))
			type = "integer";
	if (!strcmp(name, "state"))
		type = "string";
	return json_pack("{s:s,s:s,s:s}", "name", name, "titles", name,
			 "datatype", type);
}

int provenance_csv_metadata(const struct provenance *p, const char *csv_path,
			    const struct rths_hs_history *h, bool with_ref,
			    json_t *extra)
{
	char path[PATH_MAX + 32], name[32];
	const char *base = strrchr(csv_path, '/');
	json_t *meta;
	int r = 0;

	snprintf(path, sizeof(path), "%s-metadata.json", csv_path);
	/* what the writer of the CSV said already (the device, for a
	 * trace) stays */
	meta = json_load_file(path, 0, NULL);
	if (!json_is_object(meta)) {
		json_decref(meta);
		meta = json_object();
	}
	json_object_set_new(meta, "@context", json_string("http://www.w3.org/ns/csvw"));
	json_object_set_new(meta, "url", json_string(base ? base + 1 : csv_path));
	json_object_set_new(meta, "dc:creator", json_sprintf("%s %s", p->tool,
							     p->version));
	json_object_set_new(meta, "rths:provenance", provenance_json(p));
	/* a history's columns as rths_hs_write_csv() heads them; other
	 * CSVs' (a trace's) are what their writer said */
	if (h) {
		json_t *cols = json_array();

		for (int c = 1; rths_hs_csv_column_name(h, with_ref, c, name,
							sizeof(name)) >= 0; c++)
			json_array_append_new(cols, column(name));
		json_object_set_new(meta, "tableSchema",
				    json_pack("{s:o}", "columns", cols));
	}
	if (extra)
		json_object_update(meta, extra);
	if (json_dump_file(meta, path, JSON_INDENT(2)) < 0) {
		r = -EIO;
		fprintf(stderr, "%s: %s: io: cannot write it\n", p->tool, path);
	}
	json_decref(meta);
	return r;
}
