// SPDX-License-Identifier: GPL-2.0
/*
 * librths never prints: errors and warnings are returned as data, and
 * what to show is the tool's business.  A whole offline experiment, bad
 * inputs and a device that is not there run with stdout and stderr going
 * to a file that must stay empty; and no library source names stdout or
 * stderr, prints, spawns programs or names its tool.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <ctype.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_output.h>

/* Everything a caller of the engine does, errors included. */
static void exercise(const char *dir)
{
	static const char *const bad[] = {
		"bad-syntax.json", "bad-io.json", "bad-coarse-step.json",
		"bad-late-start.json", "bad-units-on-at2.json",
	};
	struct rths_hs_device_config dev = { 0 };
	struct rths_hs_device_params dp = { 0 };
	struct rths_hs_offline_params op;
	struct rths_hs_experiment *x = NULL;
	struct rths_hs_sim_config cfg;
	struct rths_hs_history h = { 0 };
	struct rths_hs_run_result res;
	struct rths_hs_backend b;
	struct rths_hs_gm gm;
	char path[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", RTHS_HS_TESTDATA, bad[i]);
		if (rths_hs_experiment_load(path, &x, NULL) == 0)
			rths_hs_experiment_free(x);
	}
	if (rths_hs_gm_read_at2(&gm, RTHS_HS_TESTDATA "/bad-huge-npts.AT2",
				NULL) == 0)
		rths_hs_gm_free(&gm);
	/* a run with warnings: a coarse step allowed, tens of g */
	if (rths_hs_experiment_parse(
		"{ \"model\": { \"type\": \"shear_building\", \"stories\": ["
		" { \"mass\": 1000, \"stiffness\": 1.19e6 },"
		" { \"mass\": 1000, \"stiffness\": 1.0e6 } ] },"
		" \"substructure\": { \"experimental_stories\": [0] },"
		" \"device\": { \"backend\": \"offline\", \"step_ticks\": 8 },"
		" \"integrator\": { \"allow_coarse_step\": true },"
		" \"ground_motion\": { \"synthetic\": { \"duration\": 1,"
		"   \"pga_g\": 0.3 }, \"scale\": 100 } }",
		"inline", ".", &x, NULL) == 0) {
		rths_hs_experiment_offline_params(x, &op);
		if (rths_hs_offline_open(&b, &op, NULL) == 0) {
			rths_hs_experiment_sim_config(x, &cfg);
			cfg.backend = &b;
			rths_hs_sim_run(&cfg, &h, &res, NULL);
			rths_hs_backend_close(&b);
		}
		snprintf(path, sizeof(path), "%s/history.csv", dir);
		rths_hs_write_csv(path, &h, NULL, 1, NULL);
		rths_hs_write_csv("/nonexistent/dir/h.csv", &h, NULL, 1, NULL);
		rths_hs_history_free(&h);
		rths_hs_experiment_free(x);
	}
	/* no such device here, and a trace nobody can write */
	snprintf(dev.name, sizeof(dev.name), "rthsq%d", (int)getpid() % 1000);
	snprintf(dev.card, sizeof(dev.card), "sim");
	dev.rate = 1024;
	dev.step_ticks = 4;
	dp.dev = &dev;
	dp.channels = 1;
	dp.trace_path = "/nonexistent/dir/trace.csv";
	if (rths_hs_device_open(&b, &dp, NULL) == 0)
		rths_hs_backend_close(&b);
	snprintf(path, sizeof(path), "%s/trace.csv", dir);
	dp.trace_path = path;
	if (rths_hs_device_open(&b, &dp, NULL) == 0)
		rths_hs_backend_close(&b);
}

TEST(library_writes_nothing_to_stdout_or_stderr)
{
	char dir[] = "/tmp/rths-hs-quiet-XXXXXX", out[128], p[160];
	int fd, saved1, saved2;
	struct stat st;
	off_t written;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/out", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	fflush(stdout);
	fflush(stderr);
	saved1 = dup(1);
	saved2 = dup(2);
	dup2(fd, 1);
	dup2(fd, 2);
	exercise(dir);
	fflush(stdout);
	fflush(stderr);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	close(fd);
	ASSERT_EQ(0, stat(out, &st));
	written = st.st_size;
	EXPECT_EQ(0, written) TH_LOG("the library wrote %lld bytes (in %s)",
				     (long long)written, out);
	/* the run did happen: its CSV is there */
	snprintf(p, sizeof(p), "%s/history.csv", dir);
	EXPECT_EQ(0, stat(p, &st));
	EXPECT_LT(1000, st.st_size);
	if (written == 0) {	/* else kept for a look */
		unlink(p);
		snprintf(p, sizeof(p), "%s/trace.csv", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/trace.csv-metadata.json", dir);
		unlink(p);
		unlink(out);
		rmdir(dir);
	}
}

/* The source text without its comments. */
static char *strip_comments(const char *s)
{
	char *o = malloc(strlen(s) + 1), *q = o;
	char in_str = 0;

	while (o && *s) {
		if (in_str) {
			if (*s == '\\' && s[1])
				*q++ = *s++;
			else if (*s == in_str)
				in_str = 0;
			*q++ = *s++;
		} else if (s[0] == '/' && s[1] == '*') {
			const char *e = strstr(s + 2, "*/");

			s = e ? e + 2 : s + strlen(s);
		} else if (s[0] == '/' && s[1] == '/') {
			s += strcspn(s, "\n");
		} else {
			if (*s == '"' || *s == '\'')
				in_str = *s;
			*q++ = *s++;
		}
	}
	if (o)
		*q = '\0';
	return o;
}

/* @word in @text, not as part of a longer identifier; a trailing '*'
 * matches any identifier that starts with the rest. */
static const char *find_word(const char *text, const char *word)
{
	char w[64];
	size_t n = strlen(word);
	bool prefix = word[n - 1] == '*';

	snprintf(w, sizeof(w), "%.*s", (int)(prefix ? n - 1 : n), word);
	n = strlen(w);
	for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
		if ((p == text || !(isalnum((unsigned char)p[-1]) ||
				    p[-1] == '_')) &&
		    (prefix || !isalnum((unsigned char)w[n - 1]) ||
		     !(isalnum((unsigned char)p[n]) || p[n] == '_')))
			return p;
	return NULL;
}

TEST(no_library_source_prints_or_spawns)
{
	static const char *const banned[] = {
		"stdout", "stderr", "printf(", "vprintf(", "puts(", "putchar(",
		"perror(", "posix_spawn*", "popen(", "system(", "fork(",
		"exec*", "rths-run", "isatty(",
	};
	glob_t g;
	size_t files = 0;

	ASSERT_EQ(0, glob(RTHS_HS_EXAMPLES "/../lib/*/*.[ch]", 0, NULL, &g));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		char *text, *code;
		long len;

		ASSERT_NE(NULL, f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		text = calloc(1, (size_t)len + 1);
		ASSERT_EQ((size_t)len, fread(text, 1, (size_t)len, f));
		fclose(f);
		code = strip_comments(text);
		ASSERT_NE(NULL, code);
		for (size_t k = 0; k < sizeof(banned) / sizeof(banned[0]); k++) {
			const char *w = banned[k];

			EXPECT_EQ(NULL, find_word(code, w))
				TH_LOG("%s uses %s", g.gl_pathv[i], w);
		}
		free(code);
		free(text);
		files++;
	}
	globfree(&g);
	EXPECT_LT(40, files);
}

TEST_HARNESS_MAIN
