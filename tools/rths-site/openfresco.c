// SPDX-License-Identifier: GPL-2.0
/*
 * OpenFresco's three protocols as state machines fed with complete
 * messages (Documentation/rths-site.rst, "Protocols"):
 *   A  ShadowExpSite -> ActorExpSite (handshake, open, setup, steps)
 *   B  ECGenericTCP -> lab controller (header, init-file text, steps)
 *   C  OpenSees GenericClient -> element server (header, codes 3..15)
 * Messages are native doubles without framing, so every length is known
 * from the state; a message that cannot be one ends only its session.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "site.h"

enum {
	A_HANDSHAKE, A_OPEN, A_SETUP, A_SIZES, A_RUN,
	B_HEADER, B_PEEK, B_TEXT, B_MSG,
	C_HEADER, C_RUN,
};

static const char *const state_names[] = {
	[A_HANDSHAKE] = "endianness handshake", [A_OPEN] = "open",
	[A_SETUP] = "setup", [A_SIZES] = "setup sizes", [A_RUN] = "steps",
	[B_HEADER] = "header", [B_PEEK] = "steps", [B_TEXT] = "init-file text",
	[B_MSG] = "steps", [C_HEADER] = "header", [C_RUN] = "steps",
};

/* OpenFresco's action codes (FrescoGlobals.h). */
enum {
	OF_OPEN = 1, OF_SETUP = 2, OF_SET_TRIAL = 3, OF_EXECUTE = 4,
	OF_COMMIT = 5, OF_GET_DAQ = 6, OF_GET_DISP = 7, OF_GET_VEL = 8,
	OF_GET_ACCEL = 9, OF_GET_FORCE = 10, OF_GET_TIME = 11,
	OF_GET_INIT_STIFF = 12, OF_GET_TANG_STIFF = 13, OF_GET_DAMP = 14,
	OF_GET_MASS = 15, OF_SHUTDOWN = 98, OF_DIE = 99,
};
#define OF_VERSION 2.8		/* atof("2.8.0 (Build ...)") */
#define OF_COMPLETED 0.0
#define OF_RECEIVED 4.0

/* Slots of a response: disp, vel, accel, force, time. */
enum { R_DISP, R_VEL, R_ACCEL, R_FORCE, R_TIME };

const char *session_state_name(const struct session *s)
{
	if (s->sub->proto == PROTO_NATIVE)
		return native_state_name(s);
	return state_names[s->state];
}

int of_session_start(struct session *s)
{
	switch (s->sub->proto) {
	case PROTO_SITE:
		return session_expect(s, A_HANDSHAKE, sizeof(int32_t));
	case PROTO_CONTROLLER:
		return session_expect(s, B_HEADER, 11 * sizeof(int32_t));
	case PROTO_ELEMENT:
		return session_expect(s, C_HEADER, 11 * sizeof(int32_t));
	case PROTO_NATIVE:
		break;
	}
	return -1;
}

/* The action code, or -1 for anything but a small whole number. */
static int action_code(const double *d)
{
	if (!isfinite(d[0]) || d[0] < 0 || d[0] > 99 || d[0] != floor(d[0]))
		return -1;
	return (int)d[0];
}

static int bad_code(struct session *s, const double *d)
{
	session_fail(s, "garbage in %s: first double %.17g is not an OpenFresco action code",
		     session_state_name(s), d[0]);
	return -1;
}

static int send_doubles(struct session *s, const double *d, int count)
{
	return session_send(s, d, (size_t)count * sizeof(double));
}

/* Check declared sizes against the substructure: each is 0 or n (time 0
 * or 1); the controlled displacement must be n and force control is not
 * offered (a numerical substructure here is displacement-controlled). */
static int check_sizes(struct session *s, const int32_t *in,
		       const int32_t *out, const char *what_in,
		       const char *what_out)
{
	static const char *const slot[] = { "disp", "vel", "accel", "force",
					    "time" };
	int n = s->sub->n;

	for (int k = 0; k < 10; k++) {
		const int32_t v = k < 5 ? in[k] : out[k - 5];
		int ok = k % 5 == R_TIME ? (v == 0 || v == 1) :
			(v == 0 || v == n);

		if (!ok) {
			session_fail(s, "absurd declared size: %s %s = %d (substructure has %d DOF; expected 0 or %d)",
				     k < 5 ? what_in : what_out, slot[k % 5],
				     (int)v, n, k % 5 == R_TIME ? 1 : n);
			return -1;
		}
	}
	if (in[R_DISP] != n) {
		session_fail(s, "%s disp = %d but the substructure has %d DOF",
			     what_in, (int)in[R_DISP], n);
		return -1;
	}
	if (in[R_FORCE]) {
		session_fail(s, "%s force = %d: force control is not offered by a numerical substructure",
			     what_in, (int)in[R_FORCE]);
		return -1;
	}
	memcpy(s->size_in, in, 5 * sizeof(int32_t));
	memcpy(s->size_out, out, 5 * sizeof(int32_t));
	return 0;
}

static int sum5(const int *v)
{
	return v[0] + v[1] + v[2] + v[3] + v[4];
}

static int alloc_state(struct session *s)
{
	int n = s->sub->n;

	s->u = calloc(n, sizeof(double));
	s->v = calloc(n, sizeof(double));
	s->a = calloc(n, sizeof(double));
	s->f = calloc(n, sizeof(double));
	s->fq = calloc(n, sizeof(double));
	s->reply = calloc(s->data_size, sizeof(double));
	s->kt = calloc((size_t)n * n, sizeof(double));
	s->el = calloc(s->sub->nel + 1, sizeof(*s->el));
	if (!s->u || !s->v || !s->a || !s->f || !s->fq || !s->reply ||
	    !s->kt || !s->el) {
		session_fail(s, "out of memory");
		return -1;
	}
	/* Every session is its own specimen: springs start virgin. */
	if (s->sub->nel)
		memcpy(s->el, s->sub->el, s->sub->nel * sizeof(*s->el));
	/* A device substructure's is the device, for this session. */
	if (s->sub->dev) {
		s->meas = calloc(n, sizeof(double));
		if (!s->meas) {
			session_fail(s, "out of memory");
			return -1;
		}
		return device_session_open(s);
	}
	return 0;
}

/* Trial values packed from index 1 in the order disp, vel, accel, (force),
 * time; absent ones stay zero. */
static void take_trial(struct session *s, const double *d)
{
	int n = s->sub->n, k = 1;

	memcpy(s->u, d + k, n * sizeof(double));
	k += n;
	if (s->size_in[R_VEL]) {
		memcpy(s->v, d + k, n * sizeof(double));
		k += n;
	}
	if (s->size_in[R_ACCEL]) {
		memcpy(s->a, d + k, n * sizeof(double));
		k += n;
	}
	if (s->size_in[R_TIME])
		s->t = d[k];
}

/* A trial arrived: it passes the substructures' one check
 * (sub_check_input(), as a native STEP does), then a device executes it
 * at once (its command is late otherwise); a numerical substructure
 * computes when asked. */
static int trial_in(struct session *s, const double *d)
{
	char why[200];

	take_trial(s, d);
	if (sub_check_input(s->sub, (uint32_t)s->sub->n, s->u,
			    s->size_in[R_VEL] ? s->v : NULL,
			    s->size_in[R_ACCEL] ? s->a : NULL,
			    s->size_in[R_TIME] ? &s->t : NULL, why,
			    sizeof(why))) {
		session_fail(s, "trial refused: %s", why);
		return -1;
	}
	return s->dev ? device_session_execute(s) : 0;
}

/* A numerical model's forces at the trial u with v and a (either may be
 * NULL: that term left out) into out, checked as a native step's. */
static int model_force_checked(struct session *s, const double *v,
			       const double *a, double *out)
{
	char why[200];

	model_force(s->sub, s->el, s->u, v, a, out);
	if (sub_check_output(s->sub, out, why, sizeof(why))) {
		session_fail(s, "trial refused: %s", why);
		return -1;
	}
	return 0;
}

/* The whole force at the trial; a device's is the last step's measure. */
static int trial_force(struct session *s, int with_inertia)
{
	if (s->dev)
		return 0;
	return model_force_checked(s, s->v, with_inertia ? s->a : NULL, s->f);
}

/* An action this kind of client never needs answered: one line a
 * session, however often it comes. */
static void ignored(struct session *s, int code, const char *client)
{
	uint64_t bit = 1ull << (code % 64);

	s->ignored++;
	if (s->ignored_seen[code / 64] & bit)
		return;
	s->ignored_seen[code / 64] |= bit;
	session_log(s, LOG_WARN, "action %d ignored (%s does not %s it); told once a session",
		    code, client, s->sub->proto == PROTO_SITE ? "answer" :
		    "send");
}

/* A commit without a trial since the last one (the displacement did not
 * change): a device still takes the step, holding its target. */
static int commit_in(struct session *s)
{
	model_commit(s->sub, s->el, s->u);
	s->steps++;
	if (s->dev && !s->trial && device_session_execute(s))
		return -1;
	s->trial = 0;
	return 0;
}

/*
 * The force GenericClient asks for.  OpenSees's element adds getDamp() v
 * and getMass() a to it (GenericClient::getResistingForceIncInertia), and
 * builds its tangent from getTangentStiff(), getDamp() and getMass(): the
 * force must leave out what the damping matrix it is given describes, as
 * OpenFresco's own element servers do, or C v counts twice.  So: K u
 * and the springs for a numerical substructure; a device's measure less
 * C v, with C the matrix OF_GET_DAMP answers (its damping estimate).
 */
static int element_force(struct session *s)
{
	const double *c = s->sub->c;
	int n = s->sub->n;

	if (!s->dev)
		return model_force_checked(s, NULL, NULL, s->fq);
	for (int i = 0; i < n; i++) {
		double cv = 0;

		for (int j = 0; c && j < n; j++)
			cv += c[i * n + j] * s->v[j];
		s->fq[i] = s->f[i] - cv;
	}
	return 0;
}

/* The response packed from index 0 per size_out; zeros after it; the
 * force is the element protocol's (element_force()) for a
 * GenericClient. */
static int send_daq(struct session *s, int with_inertia, int element)
{
	int n = s->sub->n, k = 0;
	double *r = s->reply;

	/* A device's force and displacement are the last step's measures. */
	if (element ? element_force(s) : trial_force(s, with_inertia))
		return -1;
	memset(r, 0, s->data_size * sizeof(double));
	if (s->size_out[R_DISP]) {
		memcpy(r + k, s->dev ? s->meas : s->u, n * sizeof(double));
		k += n;
	}
	if (s->size_out[R_VEL]) {
		memcpy(r + k, s->v, n * sizeof(double));
		k += n;
	}
	if (s->size_out[R_ACCEL]) {
		memcpy(r + k, s->a, n * sizeof(double));
		k += n;
	}
	if (s->size_out[R_FORCE]) {
		memcpy(r + k, element ? s->fq : s->f, n * sizeof(double));
		k += n;
	}
	if (s->size_out[R_TIME])
		r[k] = s->t;
	return send_doubles(s, r, s->data_size);
}

/* ---------------------------------------------------------------- A */

static int a_handshake(struct session *s)
{
	const int32_t one = 1;
	int32_t peer;

	memcpy(&peer, s->c.in, sizeof(peer));
	/* 1 from a peer of either byte order; the big-endian side swaps. */
	if (peer != 1 && peer != (int32_t)0x01000000) {
		session_fail(s, "garbage in endianness handshake: int32 0x%08x is not 1",
			     (unsigned)peer);
		return -1;
	}
	session_log(s, LOG_DEBUG, "handshake: peer is %s-endian",
		    peer == 1 ? "same" : "other");
	if (session_send(s, &one, sizeof(one)))
		return -1;
	return session_expect(s, A_OPEN, OF_DATA_SIZE * sizeof(double));
}

static int a_open(struct session *s, const double *d)
{
	double r[OF_DATA_SIZE] = { OF_COMPLETED, s->sub->tag, OF_VERSION };

	if (action_code(d) != OF_OPEN) {
		if (action_code(d) < 0)
			return bad_code(s, d);
		session_fail(s, "expected open [1] first, got action %d",
			     action_code(d));
		return -1;
	}
	/* Answer first, as ActorExpSite does, so the client can report the
	 * mismatch; then end only this session. */
	if (send_doubles(s, r, OF_DATA_SIZE))
		return -1;
	if (d[2] != OF_VERSION) {
		session_log(s, LOG_ERR, "session ended: wrong version: client OpenFresco %.15g, site speaks %.1f",
			    d[2], OF_VERSION);
		s->closing = 1;
		return 0;
	}
	session_log(s, LOG_INFO, "connected: ShadowExpSite tag %.17g", d[1]);
	return session_expect(s, A_SETUP, OF_DATA_SIZE * sizeof(double));
}

static int a_die(struct session *s, int count)
{
	double *r = calloc(count, sizeof(double));
	int ret;

	if (!r) {
		session_fail(s, "out of memory");
		return -1;
	}
	r[0] = OF_RECEIVED;
	r[1] = s->sub->tag;
	ret = send_doubles(s, r, count);
	free(r);
	session_log(s, LOG_INFO, "ended by the client (DIE) after %d commits",
		    s->steps);
	s->closing = 1;
	return ret;
}

static int a_setup(struct session *s, const double *d)
{
	int code = action_code(d);

	if (code == OF_DIE)
		return a_die(s, OF_DATA_SIZE);
	if (code != OF_SETUP) {
		if (code < 0)
			return bad_code(s, d);
		session_fail(s, "expected setup [2], got action %d", code);
		return -1;
	}
	if (!(d[1] >= 1 && d[1] <= SITE_MAX_DATA_SIZE) || d[1] != floor(d[1])) {
		session_fail(s, "absurd declared dataSize %.17g (1..%d)", d[1],
			     SITE_MAX_DATA_SIZE);
		return -1;
	}
	s->data_size = (int)d[1];
	return session_expect(s, A_SIZES, 10 * sizeof(int32_t));
}

static int a_sizes(struct session *s)
{
	int32_t v[10];

	memcpy(v, s->c.in, sizeof(v));
	if (check_sizes(s, v, v + 5, "sizeTrial", "sizeOut"))
		return -1;
	/* ShadowExpSite raises dataSize to hold both before it sends it. */
	if (s->data_size < 1 + sum5(s->size_in) ||
	    s->data_size < sum5(s->size_out)) {
		session_fail(s, "dataSize %d cannot hold 1 + %d trial and %d output values",
			     s->data_size, sum5(s->size_in),
			     sum5(s->size_out));
		return -1;
	}
	if (alloc_state(s))
		return -1;
	session_log(s, LOG_INFO, "setup: %d DOF, dataSize %d", s->sub->n,
		    s->data_size);
	return session_expect(s, A_RUN, (size_t)s->data_size * sizeof(double));
}

static int a_run(struct session *s, const double *d)
{
	int code = action_code(d);

	switch (code) {
	case OF_SET_TRIAL:
		s->trial = 1;
		if (trial_in(s, d))
			return -1;
		session_log(s, LOG_DEBUG, "trial at t = %.17g", s->t);
		return 0;
	case OF_COMMIT:
		/* Its time slot holds twice the step time (the client adds
		 * the time to a slot that already holds it): [3] rules. */
		session_log(s, LOG_DEBUG, "commit at t = %.17g", s->t);
		return commit_in(s);
	case OF_GET_DAQ:
		return send_daq(s, 1, 0);
	case OF_DIE:
		return a_die(s, s->data_size);
	case OF_EXECUTE:
	case OF_GET_DISP ... OF_GET_MASS:
	case OF_SHUTDOWN:
		/* ActorExpSite has no case for these: no reply. */
		ignored(s, code, "ActorExpSite");
		return 0;
	case -1:
		return bad_code(s, d);
	default:
		session_fail(s, "action %d not allowed in %s", code,
			     session_state_name(s));
		return -1;
	}
}

/* ---------------------------------------------------------------- B */

static int b_header(struct session *s)
{
	int32_t v[11];

	memcpy(v, s->c.in, sizeof(v));
	if (check_sizes(s, v, v + 5, "ctrl", "daq"))
		return -1;
	/* ECGenericTCP's buffer is 256 doubles whatever the header says. */
	s->data_size = OF_DATA_SIZE;
	if (1 + sum5(s->size_in) > OF_DATA_SIZE ||
	    sum5(s->size_out) > OF_DATA_SIZE) {
		session_fail(s, "absurd declared sizes: 1 + %d ctrl or %d daq values do not fit in %d doubles",
			     sum5(s->size_in), sum5(s->size_out),
			     OF_DATA_SIZE);
		return -1;
	}
	if (alloc_state(s))
		return -1;
	session_log(s, LOG_INFO, "connected: ECGenericTCP, %d DOF (header dataSize %d)",
		    s->sub->n, (int)v[10]);
	return session_expect(s, B_PEEK, 1);
}

static int b_peek(struct session *s)
{
	/* An init-file line starts with byte 2; a little-endian double
	 * message with a small action code starts with byte 0. */
	s->keep = 1;
	if (s->c.in[0] == 2)
		return session_expect(s, B_TEXT, OF_TEXT_SIZE);
	return session_expect(s, B_MSG, OF_DATA_SIZE * sizeof(double));
}

static int b_text(struct session *s)
{
	char line[128];
	size_t i;

	for (i = 0; i + 1 < sizeof(line) && i + 1 < OF_TEXT_SIZE &&
	     s->c.in[i + 1]; i++)
		line[i] = s->c.in[i + 1] >= 32 && s->c.in[i + 1] < 127 ?
			(char)s->c.in[i + 1] : '?';
	line[i] = 0;
	session_log(s, LOG_DEBUG, "init-file line: %s", line);
	return session_expect(s, B_PEEK, 1);
}

static int b_msg(struct session *s, const double *d)
{
	int code = action_code(d);

	switch (code) {
	case OF_SET_TRIAL:
		/* ECGenericTCP sends no commit: a new trial commits the one
		 * before, as a physical specimen keeps what it went through. */
		if (s->trial)
			model_commit(s->sub, s->el, s->u);
		s->trial = 1;
		if (trial_in(s, d))
			return -1;
		break;
	case OF_COMMIT:
		/* Simulink's GenericClient (SimAppSiteServer) commits before
		 * each new time's trial; the trial would commit it anyway. */
		if (s->trial && !s->dev)
			model_commit(s->sub, s->el, s->u);
		s->trial = 0;
		if (!(s->ignored_seen[0] & 1ull << OF_COMMIT))
			session_log(s, LOG_INFO, "commit [5]: a Simulink GenericClient's sequence");
		s->ignored_seen[0] |= 1ull << OF_COMMIT;
		break;
	case OF_GET_DAQ:
		if (send_daq(s, 1, 0))
			return -1;
		s->steps++;
		break;
	case OF_DIE:
		session_log(s, LOG_INFO, "ended by the client (DIE) after %d steps",
			    s->steps);
		s->closing = 1;
		return 0;
	case -1:
		return bad_code(s, d);
	default:
		ignored(s, code, "ECGenericTCP");
		break;
	}
	return session_expect(s, B_PEEK, 1);
}

/* ---------------------------------------------------------------- C */

static int c_header(struct session *s)
{
	int32_t v[11];
	int n = s->sub->n;

	memcpy(v, s->c.in, sizeof(v));
	if (check_sizes(s, v, v + 5, "ctrl", "daq"))
		return -1;
	if (v[10] < 1 + sum5(s->size_in) || v[10] < n * n ||
	    v[10] < sum5(s->size_out) || v[10] > SITE_MAX_DATA_SIZE) {
		session_fail(s, "absurd declared dataSize %d (needs %d..%d for %d DOF)",
			     (int)v[10], n * n > 3 * n + 2 ? n * n : 3 * n + 2,
			     SITE_MAX_DATA_SIZE, n);
		return -1;
	}
	s->data_size = v[10];
	if (alloc_state(s))
		return -1;
	session_log(s, LOG_INFO, "connected: GenericClient, %d DOF, dataSize %d",
		    n, s->data_size);
	return session_expect(s, C_RUN, (size_t)s->data_size * sizeof(double));
}

static int send_vector(struct session *s, const double *x, int count)
{
	memset(s->reply, 0, s->data_size * sizeof(double));
	if (x)
		memcpy(s->reply, x, count * sizeof(double));
	return send_doubles(s, s->reply, s->data_size);
}

static int send_matrix(struct session *s, const double *rm)
{
	memset(s->reply, 0, s->data_size * sizeof(double));
	model_matrix_colmajor(s->sub, rm, s->reply);
	return send_doubles(s, s->reply, s->data_size);
}

static int c_run(struct session *s, const double *d)
{
	int code = action_code(d);

	/* GenericClient adds C v and M a itself, from getDamp and getMass:
	 * the force it asks for is element_force()'s. */
	switch (code) {
	case OF_SET_TRIAL:
		s->trial = 1;
		return trial_in(s, d);
	case OF_COMMIT:
		return commit_in(s);
	case OF_GET_DAQ:
		return send_daq(s, 0, 1);
	case OF_GET_DISP:
		return send_vector(s, s->dev ? s->meas : s->u, s->sub->n);
	case OF_GET_VEL:
		return send_vector(s, s->v, s->sub->n);
	case OF_GET_ACCEL:
		return send_vector(s, s->a, s->sub->n);
	case OF_GET_FORCE:
		if (element_force(s))
			return -1;
		return send_vector(s, s->fq, s->sub->n);
	case OF_GET_TIME:
		return send_vector(s, &s->t, 1);
	case OF_GET_INIT_STIFF:
	case OF_GET_TANG_STIFF:
		model_tangent(s->sub, s->el, s->u, code == OF_GET_INIT_STIFF,
			      s->kt);
		return send_matrix(s, s->kt);
	case OF_GET_DAMP:
		return send_matrix(s, s->sub->c);
	case OF_GET_MASS:
		return send_matrix(s, s->sub->m);
	case OF_DIE:
		session_log(s, LOG_INFO, "ended by the client (DIE) after %d commits",
			    s->steps);
		s->closing = 1;
		return 0;
	case -1:
		return bad_code(s, d);
	default:
		ignored(s, code, "GenericClient");
		return 0;
	}
}

int of_session_input(struct session *s)
{
	const double *d = (const double *)s->c.in;

	if (s->state == A_RUN || s->state == B_MSG || s->state == C_RUN)
		session_log(s, LOG_DEBUG, "action %.17g", d[0]);
	switch (s->state) {
	case A_HANDSHAKE:
		return a_handshake(s);
	case A_OPEN:
		return a_open(s, d);
	case A_SETUP:
		return a_setup(s, d);
	case A_SIZES:
		return a_sizes(s);
	case A_RUN:
		return a_run(s, d);
	case B_HEADER:
		return b_header(s);
	case B_PEEK:
		return b_peek(s);
	case B_TEXT:
		return b_text(s);
	case B_MSG:
		return b_msg(s, d);
	case C_HEADER:
		return c_header(s);
	case C_RUN:
		return c_run(s, d);
	}
	return -1;
}
