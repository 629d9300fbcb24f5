/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rths-coord: the global integration of a distributed hybrid test.  The
 * engine's model runs here (rths_hs_sim_run()); the substructures are N
 * rths-site processes reached over the native protocol.  The sites are
 * one composite backend: channel i is interface coordinate i, each site
 * owns some channels.  Parts: config.c (the experiment file's "sites"),
 * links.c (sessions, one poll loop), backend.c (the backend ops, replay,
 * re-issue), journal.c, report.c, plot.c, progress.c.
 */
#ifndef RTHS_COORD_H
#define RTHS_COORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/socket.h>

#include <rths/hs.h>
#include <rths/hs_experiment.h>
#include <rths/hs_output.h>

#include "../live/live.h"
#include "../net/conn.h"
#include "../net/wire.h"

/* A site is one device of at most RTHS_HS_MAX_CHANNELS DOFs, and owns
 * one interface coordinate at least: the coordinator's channels. */
#define COORD_MAX_SITES RTHS_HS_MAX_INTERFACE
#define COORD_NAME_LEN 32
#define COORD_PATH_LEN 4096

struct site_tls {
	bool on;
	char psk_file[COORD_PATH_LEN];
	char psk_identity[128];
	char ca[COORD_PATH_LEN], cert[COORD_PATH_LEN], key[COORD_PATH_LEN];
	char server_name[256];
};

/* A site as the experiment file describes it. */
struct site_config {
	char name[COORD_NAME_LEN];
	char address[256];
	int port;
	char substructure[RNP_NAME_LEN];
	uint32_t ndof;
	uint32_t dofs[RTHS_HS_MAX_CHANNELS];	/* site DOF j: coordinate dofs[j] */
	double step_timeout, connect_timeout, give_up;	/* s */
	uint32_t max_retries;	/* sessions lost in a row, then give up */
	struct site_tls tls;
	struct sockaddr_storage addr;
	socklen_t addr_len;
};

/*
 * More interface coordinates than librths's experiment holds: its
 * specimen and the integrator's estimate are RTHS_HS_NCH square (an
 * actuator device's channels).  rths-coord then reads "substructure",
 * "specimen" and "setup" itself (config.c) and librths the rest, as an
 * all-numerical experiment.
 */
struct coord_wide {
	struct rths_hs_substructure sub;
	struct rths_hs_setup setup;	/* direct, a channel a coordinate */
	double *k, *c;			/* n_if x n_if: the specimen's */
	double *k_est, *c_est;		/* the integrator's estimate */
};

struct coord_config {
	struct rths_hs_experiment *x;
	uint64_t hash;		/* FNV-1a 64 of the file's bytes */
	size_t n_sites;
	struct site_config *sites;	/* n_sites */
	struct tls_creds **creds;
	bool replay_warn;	/* "replay": {"on_mismatch": "warn"} */
	/* The interface, x's or (more than RTHS_HS_NCH coordinates) wide's */
	size_t n_if;
	const struct rths_hs_substructure *sub;
	const struct rths_hs_setup *setup;
	const double *k_est, *c_est;
	struct coord_wide *wide;	/* NULL: x's */
};

/*
 * Why a run failed (Documentation/distributed-testing.rst, the fault
 * policy): each has its exit status (rths-coord.c).
 */
enum coord_fault {
	COORD_FAULT_NONE,
	COORD_FAULT_NETWORK,	/* unreachable past give_up / max_retries */
	COORD_FAULT_PROTOCOL,	/* the site refused (busy, DOF, ...) */
	COORD_FAULT_DEVICE,	/* a site's device refused a step: held */
	COORD_FAULT_AUTH,	/* authentication or authorisation */
	COORD_FAULT_REPLAY,	/* a replay's forces differ: stopped */
};

/* config.c: loads the file; on error, msg names the file and JSON path.
 * The sites' TLS credentials are loaded too (cc->creds[i], NULL for
 * plain TCP). */
int coord_config_load(const char *path, struct coord_config *cc, char *msg,
		      size_t len);
void coord_config_free(struct coord_config *cc);
/* The loop's configuration: x's with the interface above. */
void coord_sim_config(const struct coord_config *cc,
		      struct rths_hs_sim_config *cfg);
/* The all-numerical structure of --reference: the specimen inside. */
int coord_reference_run(const struct coord_config *cc,
			struct rths_hs_history *ref, struct rths_error *err);

/* log.c */
extern int coord_verbose;
void coord_log(const char *site, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void coord_debug(const char *site, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int64_t coord_now_ns(void);
/* The counts of lines the log held back (at the end of a run). */
void coord_log_flush(void);

/* Per-site counters for the summary. */
struct site_stats {
	uint64_t steps, reissues, reconnects, replays, replayed_steps;
	uint64_t cached, replay_mismatches, connects;
	double slowest_reconnect;	/* s, a session lost to the WELCOME */
};

/* One completed step of one site. */
struct site_step {
	double rtt;		/* s, STEP sent (last time) to RESULT */
	double compute;		/* s, the site's compute time */
	uint32_t flags;		/* RNP_RES_* */
	uint32_t fb_flags;	/* a device's RTHS_FB_F_* */
	uint32_t late_ticks;
	uint32_t reissues;	/* of this step */
};

/* The journal (journal.c). */
struct journal {
	FILE *f;
	uint64_t test_id;
	size_t q;
	/* read back for --resume: steps 1..n_steps */
	uint64_t n_steps;
	double *x, *d, *f_meas;		/* n_steps x q, row k-1 is step k */
	bool ended;
	long good_end;		/* bytes up to the last whole line */
	bool no_sync;		/* --no-journal-sync: fflush only */
};

int journal_read(const char *path, const struct coord_config *cc,
		 struct journal *j, char *msg, size_t len);
/* New journal (truncates), or append to the one read (after dropping a
 * torn last line). */
int journal_open(const char *path, const struct coord_config *cc,
		 struct journal *j, bool append, char *msg, size_t len);
int journal_step(struct journal *j, uint64_t n, double t, const double *x,
		 const double *d, const double *f);
void journal_end(struct journal *j);
void journal_close(struct journal *j);

/* The composite backend over the sites (backend.c). */
struct coord_options {
	bool serial, reset;
	uint64_t test_id;
	const volatile sig_atomic_t *stop;
};

struct coord;

int coord_backend_open(struct rths_hs_backend *b,
		       const struct coord_config *cc,
		       const struct coord_options *o, struct journal *j,
		       uint64_t steps, struct rths_error *err);
/* After the run (before close): per-site statistics and step records. */
const struct site_stats *coord_site_stats(const struct rths_hs_backend *b,
					  size_t site);
/* Step n's record of a site (n from 1), NULL past what ran. */
const struct site_step *coord_site_step(const struct rths_hs_backend *b,
					size_t site, uint64_t n);
/* Wall time of step n (post to the last RESULT), s; 0 if replayed from
 * the journal. */
double coord_step_time(const struct rths_hs_backend *b, uint64_t n);
uint64_t coord_steps_done(const struct rths_hs_backend *b);
uint64_t coord_steps_journaled(const struct rths_hs_backend *b);
/* Why the run failed (COORD_FAULT_NONE: it did not). */
enum coord_fault coord_fault(const struct rths_hs_backend *b);
const char *coord_fault_name(enum coord_fault f);
/* The progress line's per-site mean round trip since the last call. */
double coord_take_rtt(struct rths_hs_backend *b, size_t site);

/* progress.c */
struct progress {
	bool on, tty;
	double dt;
	int64_t last_ns, start_ns;
	uint64_t last_step;
	struct rths_hs_backend *b;
	const struct coord_config *cc;
};

void progress_init(struct progress *p, bool on, double dt,
		   struct rths_hs_backend *b, const struct coord_config *cc);
void progress_update(void *ctx, uint64_t step, uint64_t steps);
void progress_done(struct progress *p);

/* view.c: the live view (--live). */
struct coord_view_options {
	const char *listen;		/* --live ADDR:PORT, or NULL */
	const char *token;		/* --live-token's, or NULL */
	const char *cert, *key;		/* --live-cert, --live-key */
};

struct coord_view {
	struct live *live;
	const struct rths_hs_history *h;	/* the run's, row by row */
	struct rths_hs_backend *b;
	size_t n_sites;
	void *chain_ctx;		/* struct progress */
};

/* Starts the view if asked (its URL on stderr); -errno, said. */
int coord_view_start(struct coord_view *v, const struct coord_config *cc,
		     const struct coord_view_options *o,
		     const struct rths_hs_history *h,
		     struct rths_hs_backend *b);
/* The loop's per-step callback (ctx: struct coord_view): publishes the
 * step, then the progress line (progress_update()). */
void coord_view_step(void *ctx, uint64_t step, uint64_t steps);
/* The run is over: rths_hs_sim_run()'s @r and @res, and the tool's own
 * stop flag (live_run_state()). */
void coord_view_finish(struct coord_view *v, int r,
		       const struct rths_hs_run_result *res, bool interrupted);
/* After the outputs: @linger s more (less if *@stop), then stops. */
void coord_view_stop(struct coord_view *v, double linger,
		     const volatile sig_atomic_t *stop);

/* report.c: what the summary shows. */
struct report {
	const struct coord_config *cc;
	const struct rths_hs_history *h, *ref;
	const struct rths_hs_run_result *res;
	struct rths_hs_backend *b;
	uint64_t test_id;
	bool serial, resumed;
	bool interrupted;	/* SIGINT/SIGTERM, also while waiting */
};

void report_text(FILE *f, const struct report *r);
int report_json(const char *path, const struct report *r);
int report_steps_csv(const char *path, const struct report *r);
int report_exact(const char *path, const struct rths_hs_history *h);

/* plot.c: DIR/plots.gp and, if @run, the PNGs (-RTHS_E_UNSUPPORTED
 * without gnuplot). */
int plot(const char *dir, const struct report *r, bool run,
	 struct rths_error *err);

#endif
