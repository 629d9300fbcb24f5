/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a run's outputs came from: the tool and its version (and git
 * describe when it was built from a git checkout), the host, its kernel,
 * the card, when the run started and ended, and the experiment file,
 * which is copied next to the outputs.  Into summary.json as
 * "provenance", and into a CSV's side file "NAME.csv-metadata.json" (W3C
 * CSV on the Web), so that the CSVs themselves stay plain: a header row
 * and numbers, which every CSV reader takes.
 */
#ifndef RTHS_TOOLS_PROVENANCE_H
#define RTHS_TOOLS_PROVENANCE_H

#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

struct rths_hs_history;

struct provenance {
	char tool[32];
	char version[32];
	char git[64];		/* "" outside a git checkout */
	char host[256];
	char kernel[400];	/* uname -srvm */
	char card[64];		/* "" all-numerical */
	char started[32], ended[32];	/* UTC, ISO 8601 */
	char experiment[PATH_MAX];	/* as given */
};

/* The run starts now. */
void provenance_start(struct provenance *p, const char *tool,
		      const char *card, const char *experiment);
/* ... and ends now. */
void provenance_end(struct provenance *p);
json_t *provenance_json(const struct provenance *p);
/* The experiment file, byte for byte, as DIR/experiment.json; -errno,
 * said on stderr. */
int provenance_copy_experiment(const struct provenance *p, const char *dir);
/*
 * CSV_PATH-metadata.json: CSV on the Web metadata for the CSV at
 * CSV_PATH, with the provenance and, if not NULL, @extra's members (e.g.
 * the device a trace came from), merged over what the file already
 * holds.  With @h the CSV is @h's history (rths_hs_write_csv(), a
 * reference if @with_ref) and its columns are named from it; without,
 * the columns are what the file holds.  -errno, said.
 */
int provenance_csv_metadata(const struct provenance *p, const char *csv_path,
			    const struct rths_hs_history *h, bool with_ref,
			    json_t *extra);

#endif /* RTHS_TOOLS_PROVENANCE_H */
