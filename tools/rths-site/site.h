/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rths-site: serves numerical and device substructures over OpenFresco's
 * protocols and the rths native protocol.  Shared declarations of the
 * tool's parts (config.c, log.c, openfresco.c, native.c, exec.c, model.c,
 * device.c, device_session.c); the sessions' own API is session.h.
 */
#ifndef RTHS_SITE_H
#define RTHS_SITE_H

#include <stddef.h>
#include <stdint.h>

#include <rths/hs_model.h>

#include "../net/conn.h"
#include "../net/tls.h"
#include "../net/wire.h"

/* OpenFresco's fixed message length before setup (FrescoGlobals.h). */
#define OF_DATA_SIZE 256
/* ECGenericTCP's init-file line: byte 0 is 2, then NUL-terminated text. */
#define OF_TEXT_SIZE 16385
/* Largest message a session may declare, in doubles (8 MiB). */
#define SITE_MAX_DATA_SIZE (1 << 20)
#define SITE_MAX_DOF 1024
#define SITE_MAX_SESSIONS 256
/* Connections not yet proven (TLS handshake, no first message or HELLO)
 * past which the oldest of them is closed for a new one. */
#define SITE_MAX_PENDING 64
#define SITE_MAX_SUBS 64

enum site_proto {
	PROTO_SITE,		/* A: ShadowExpSite -> ActorExpSite */
	PROTO_CONTROLLER,	/* B: ECGenericTCP lab controller */
	PROTO_ELEMENT,		/* C: OpenSees GenericClient element */
	PROTO_NATIVE,		/* the rths native protocol (rths-coord) */
};

struct session;

/* The specimen's state: what a step starts from and changes. */
struct sub_state {
	struct rths_hs_element *el;	/* committed springs */
	struct device_sub *dev;		/* a device substructure's, from its
					 * test's first step to the test's end */
};

/* What a step reports besides displacements and forces (RESULT). */
struct sub_step_info {
	uint32_t flags;		/* RNP_RES_LATE, RNP_RES_HELD */
	uint32_t late_ticks;
	uint32_t fb_flags;
	char why[200];		/* a failed step: why, for ERROR device */
};

/*
 * The native protocol's state of a substructure.  It outlives sessions,
 * so that a coordinator that reconnects goes on where it was: the test it
 * runs, the last step executed and its RESULT, and the specimen.
 */
struct native_sub {
	uint64_t test_id;	/* 0: no test */
	uint64_t last_seq;	/* last executed step of test_id */
	struct session *owner;	/* the session commanding it, or NULL */
	struct sub_state state;
	struct rnp_result cached;	/* last_seq's RESULT, when > 0 */
	/* Counted since the site started (logged when it stops). */
	uint64_t executed, cached_answers, replayed;
};

/*
 * A substructure: f = K u + C v + M a (row-major n x n) plus the engine's
 * springs (bilinear, Bouc-Wen) between DOF pairs, whose state each session
 * keeps for itself.
 */
struct substructure {
	char *name;
	enum site_proto proto;
	int tag;
	char *address;
	int port;
	int n;
	double *k, *c, *m;
	int nel;
	struct rths_hs_element *el;	/* initial state, copied per session */
	int listen_fd;
	int bound_port;
	/* TLS: -1 unset in the file (native: on when the site has
	 * credentials; OpenFresco: off), 0 plain TCP, 1 TLS.  allow lists
	 * the peers (PSK identities, certificate CNs) that may command it;
	 * none: every authenticated peer. */
	int tls;
	char **allow;
	int nallow;
	struct native_sub nat;	/* PROTO_NATIVE only */
	/* A device substructure (device.c): its sections as librths reads
	 * an experiment, and the session driving it (0: none). */
	struct rths_hs_experiment *dev;
	unsigned dev_session;
	int live_group;		/* its group in the live view, -1: none */
};

struct site {
	struct substructure *subs;
	int nsubs;
	int timeout_ms;
	int heartbeat_ms;	/* native: WELCOME's period */
	int quickack;
	struct tls_creds *creds;	/* NULL: no TLS */
};

/* config.c: parse the JSON site file; on error, msg names file and path. */
int site_config_load(const char *path, struct site *site, char *msg,
		     size_t len);
void site_config_free(struct site *site);
const char *site_proto_name(enum site_proto p);

/* model.c */
void model_force(const struct substructure *sub, struct rths_hs_element *el,
		 const double *u, const double *v, const double *a, double *f);
void model_tangent(const struct substructure *sub,
		   struct rths_hs_element *el, const double *u, int initial,
		   double *rm);
void model_commit(const struct substructure *sub, struct rths_hs_element *el,
		  const double *u);
void model_matrix_colmajor(const struct substructure *sub, const double *rm,
			   double *out);

/* exec.c: the one place a step moves a specimen. */
int sub_state_init(const struct substructure *sub, struct sub_state *st);
void sub_state_reset(const struct substructure *sub, struct sub_state *st);
void sub_state_free(const struct substructure *sub, struct sub_state *st);
void sub_device_timing(const struct substructure *sub, uint32_t *rate,
		       uint32_t *step_ticks);
int sub_check_input(const struct substructure *sub, uint32_t ndof,
		    const double *u, const double *v, const double *a,
		    const double *t, char *why, size_t len);
int sub_check_output(const struct substructure *sub, const double *f,
		     char *why, size_t len);
int sub_execute(struct substructure *sub, struct sub_state *st, uint64_t seq,
		const double *u, const double *v, const double *a,
		double *disp, double *force, struct sub_step_info *info);

/* realtime.c: the site's thread made real-time by the first device
 * substructure whose "realtime" section asks (once; 0: --no-realtime).
 * An error only with realtime.required. */
extern int site_realtime;
extern int site_step_cpu;	/* the real-time thread's CPU, -1 */
struct rths_error;
int site_realtime_enter(const struct substructure *sub,
			struct rths_error *err);

/* view.c: rths-site --live (tools/live): a device substructure's test
 * begins (its device started), its steps, its end (the device at rest). */
struct site_view_options {
	const char *file;	/* the site file: the view's name */
	const char *listen;	/* ADDR:PORT; NULL: no view */
	const char *token;	/* NULL: none */
	const char *cert, *key;	/* PEM: HTTPS */
};
struct device_step_info;
int site_view_start(struct site *site, const struct site_view_options *o);
void site_view_running(const struct substructure *sub);
void site_view_ended(const struct substructure *sub);
void site_view_step(const struct substructure *sub, uint64_t step,
		    const double *u, const double *disp, const double *force,
		    const struct device_step_info *info);
void site_view_stop(const char *state);

/* log.c: one line per event on stderr. */
enum { LOG_ERR, LOG_WARN, LOG_INFO, LOG_DEBUG };
extern int site_log_level;
void site_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A session: one TCP connection, one protocol state machine. */
struct session {
	struct conn c;		/* socket, TLS, buffers, deadline */
	unsigned id;
	struct substructure *sub;
	const struct site *site;
	char peer[200];		/* address, then the TLS identity */
	int state;
	int started;		/* a first message came in */
	int keep;		/* the bytes in stay: the message goes on */
	int closing;		/* close once the output is written */
	int done;		/* close now */
	int data_size;		/* doubles per message after setup */
	int size_in[5], size_out[5];
	double *u, *v, *a, *f, t;
	double *fq;		/* the element protocol's force: f less C v */
	struct rths_hs_element *el;
	double *kt;		/* n x n tangent, row-major */
	int trial;		/* a trial since the last commit */
	double *reply;
	int steps;
	int64_t last_rx_ms;	/* when bytes last came in */
	int64_t frame_ms;	/* when the message being read began */
	int64_t out_ms;		/* since when a reply waits to be read, 0 */
	/* Native protocol: HELLO accepted, and the frame being read. */
	int hello;
	struct rnp_hdr hdr;
	struct device_sub *dev;	/* a device substructure's, while open */
	double *meas;		/* its measured displacement */
	/* OpenFresco: action codes already logged as ignored (each once a
	 * session), and how many came. */
	uint64_t ignored_seen[2];
	unsigned ignored;
};

/* device.c: device substructures (sim card, comedi, offline model). */
struct device_sub;
struct device_step_info {
	uint32_t late_ticks;	/* how late the command was, device ticks */
	uint32_t flags;		/* RTHS_FB_F_* of the step's feedback */
	int held;		/* the device held or decelerated */
	int repeated;		/* the last step re-issued: nothing moved */
	double compute;		/* s, the site's own work on the step (all
				 * but the wait for the device) */
};
struct json_t;
int device_sub_is_section(const char *key);
int device_sub_config(struct json_t *js, const char *file, const char *path,
		      struct substructure *sub, char *msg, size_t len);
int device_sub_estimate(struct substructure *sub);
int device_sub_open(struct device_sub **out, const struct substructure *sub);
int device_sub_start(struct device_sub *d);
int device_sub_step(struct device_sub *d, uint64_t seq, const double *u,
		    double *disp, double *force, struct device_step_info *info);
int device_sub_stop(struct device_sub *d);
void device_sub_close(struct device_sub *d);
const char *device_sub_error(const struct device_sub *d);
uint64_t device_sub_steps(const struct device_sub *d);	/* device steps */
uint64_t device_sub_seq(const struct device_sub *d);	/* last seq run */
const char *device_sub_backend(const struct device_sub *d);
/* device_session.c: a device in an OpenFresco session. */
int device_session_open(struct session *s);
void device_session_close(struct session *s);
int device_session_execute(struct session *s);

/* openfresco.c */
int of_session_start(struct session *s);
/* The 'need' bytes in s->in are complete: act on them. */
int of_session_input(struct session *s);
const char *session_state_name(const struct session *s);

/* Log a protocol error for the session and end it. */
void session_fail(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void session_log(const struct session *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* native.c */
int native_sub_init(struct substructure *sub);
void native_sub_free(struct substructure *sub);
void native_sub_report(const struct substructure *sub);
int native_session_start(struct session *s);
int native_session_input(struct session *s);
void native_session_end(struct session *s);
void native_session_deadline(struct session *s, int64_t now);
void native_session_closed(struct session *s);
void native_session_refuse_auth(struct session *s);
const char *native_state_name(const struct session *s);

int64_t site_now_ms(void);
uint64_t site_now_ns(void);

#endif
