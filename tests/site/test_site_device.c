// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site serving a device substructure on the offline backend (the sim
 * card's userspace model: deterministic, no kernel), driven over
 * OpenFresco's protocols C (GenericClient), A (ShadowExpSite) and B
 * (ECGenericTCP).  The reference is librths's offline backend and
 * compensation driven here directly, step for step: the site must give
 * the same bits.  The step function itself (tools/rths-site/device.c,
 * linked in) is tested too, and so is the site's live view (--live).
 * RTHS_SITE names the binary under test.
 */
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <rths/hs_backend.h>
#include <rths/hs_compensation.h>
#include <rths/hs_experiment.h>
#include <rths/hs_setup.h>
#include <rths/sim_plant.h>

#include "kselftest_harness.h"
#include "site.h"
#include "site_proc.h"
#include "wire.h"

#define NS 256
#define RATE 1024
#define TICKS 10
#define LAG 0.004
#define DELAY 3
#define NOISE_D 2e-6
#define NOISE_F 0.5
#define COMP_DELAY 0.006

/* A 2-DOF specimen on two actuators, one per coordinate. */
static const double K[2][2] = { { 2.0e6, -0.5e6 }, { -0.5e6, 1.5e6 } };
static const double C[2][2] = { { 1.0e3, 0 }, { 0, 2.0e3 } };

/* Extra actuator fields of the site file (a plant), for ref_open too. */
static const char *actuator_extra = "";
/* Extra device fields of the site file (limits). */
static const char *device_extra = "";
/* Extra arguments of the site (--live). */
static const char *const *site_args;

static void site_json(FILE *f, const char *proto, int seed)
{
	fprintf(f, "{\"substructures\":[{\"name\":\"rig\",\"protocol\":\"%s\",\"port\":0,\"dof\":2,\n"
		"\"device\":{\"backend\":\"offline\",\"rate\":%d,\"step_ticks\":%d,\n"
		" \"actuator\":{\"lag\":%.17g,\"delay_ticks\":%d,\"noise_disp\":%.17g,\"noise_force\":%.17g,\"seed\":%d%s}%s},\n"
		"\"specimen\":{\"stiffness\":[[%.17g,%.17g],[%.17g,%.17g]],\"damping\":[[%.17g,%.17g],[%.17g,%.17g]]},\n"
		"\"compensation\":{\"method\":\"polynomial\",\"order\":2,\"delay\":%.17g}}]}\n",
		proto, RATE, TICKS, LAG, DELAY, NOISE_D, NOISE_F, seed,
		actuator_extra, device_extra,
		K[0][0], K[0][1], K[1][0], K[1][1], C[0][0], C[0][1], C[1][0],
		C[1][1], COMP_DELAY);
}

/* --------------------------------------------------------- reference */

struct ref {
	struct rths_hs_backend b;
	struct rths_hs_comp *comp[2];
	uint64_t step;
};

static int ref_open(struct ref *r, int seed)
{
	static struct rths_hs_setup setup;
	struct rths_hs_offline_params op;
	struct rths_hs_comp_params cp;
	static double k[4], c[4];

	memset(r, 0, sizeof(*r));
	if (rths_hs_setup_direct(&setup, 2, NULL))
		return -1;
	/* librths keeps the specimen column-major. */
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			k[j * 2 + i] = K[i][j];
			c[j * 2 + i] = C[i][j];
		}
	rths_hs_offline_defaults(&op);
	op.rate = RATE;
	op.step_ticks = TICKS;
	op.lag = LAG;
	op.delay_ticks = DELAY;
	op.noise_disp = NOISE_D;
	op.noise_force = NOISE_F;
	op.seed = seed;
	op.setup = &setup;
	op.k = k;
	op.c = c;
	if (rths_hs_offline_open(&r->b, &op, NULL))
		return -1;
	if (actuator_extra[0]) {
		struct rths_benchmark_plant bp;
		struct rths_sim_params sim = { 0 };
		double num[1], den[6];

		/* the only plant the tests give: the benchmark's, nominal */
		rths_benchmark_plant_nominal(&bp);
		if (rths_benchmark_plant_tf(&bp, num, den, NULL) ||
		    rths_sim_plant_design(num, 1, den, 6, RATE, 0, &sim, NULL) ||
		    rths_hs_backend_set_plant(&r->b, &sim, NULL))
			return -1;
	}
	rths_hs_comp_defaults(&cp, RTHS_HS_COMP_POLYNOMIAL,
			      (double)TICKS / RATE);
	cp.order = 2;
	cp.delay = COMP_DELAY;
	for (int i = 0; i < 2; i++)
		if (rths_hs_comp_new(&r->comp[i], &cp, NULL))
			return -1;
	return rths_hs_backend_start(&r->b, NULL);
}

static int ref_step(struct ref *r, const double *u, double *disp,
		    double *force)
{
	struct rths_hs_feedback fb;
	double cmd[2];

	for (int i = 0; i < 2; i++)
		cmd[i] = rths_hs_comp_command(r->comp[i], u[i]);
	r->step++;
	if (rths_hs_backend_post(&r->b, r->step, cmd, NULL) ||
	    rths_hs_backend_wait(&r->b, r->step, &fb, NULL))
		return -1;
	for (int i = 0; i < 2; i++) {
		rths_hs_comp_observe(r->comp[i], cmd[i], fb.disp[i]);
		disp[i] = fb.disp[i];
		force[i] = fb.force[i];
	}
	return 0;
}

static void ref_close(struct ref *r)
{
	rths_hs_backend_stop(&r->b, NULL);
	rths_hs_backend_close(&r->b);
	for (int i = 0; i < 2; i++)
		rths_hs_comp_free(r->comp[i]);
}

/* The interface displacement of step n: two sines out of phase. */
static void trial_u(int n, double *u)
{
	u[0] = 0.01 * sin(0.3 * n);
	u[1] = -0.004 * sin(0.17 * n + 0.5);
}

/* -------------------------------------------------------------- site */

/* rths-site on the device substructure of site_json(); its port is
 * s->port[0]. */
static int site_start(struct site_proc *s, const char *proto, int seed)
{
	char *json = NULL;
	size_t len;
	FILE *f = open_memstream(&json, &len);
	int rc;

	if (!f)
		return -1;
	site_json(f, proto, seed);
	fclose(f);
	rc = site_proc_start(s, json, 1, site_args);
	free(json);
	return rc;
}

/* The site's whole log once it stopped; its wait status. */
static int site_stop(struct site_proc *s, char *log, size_t size)
{
	size_t n;

	snprintf(log, size, "%s", s->start_log);
	n = strlen(log);
	return site_proc_stop(s, "", log + n, size - n);
}

/* Code @code in msg[0], the reply in r. */
static int ask(int fd, double *msg, int code, double *r)
{
	msg[0] = code;
	if (put(fd, msg, NS * sizeof(double)))
		return -1;
	return r ? get(fd, r, NS * sizeof(double)) : 0;
}

/* ------------------------------------------------------------- tests */

/*
 * GenericClient with 2 DOF: per step 3, 7 (disp), 10 (force), 5; the
 * replies are the measured displacement and force of the offline model
 * after the compensation, to the bit.  Returns the last force seen, and
 * in @rec (when not NULL) each step's u, disp and force (6 a step).
 */
static void c_run(struct __test_metadata *_metadata, int port, int seed,
		  int steps, double *last, double *rec)
{
	int32_t hdr[11] = { 2, 2, 0, 0, 0, 0, 0, 0, 2, 0, NS };
	double m[NS] = { 0 }, r[NS], u[2], d[2], f[2];
	struct ref ref;
	int fd = dial(port);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ref_open(&ref, seed));
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	for (int n = 1; n <= steps; n++) {
		trial_u(n, u);
		memcpy(m + 1, u, sizeof(u));
		ASSERT_EQ(0, ask(fd, m, 3, NULL));
		ASSERT_EQ(0, ref_step(&ref, u, d, f));
		ASSERT_EQ(0, ask(fd, m, 7, r));
		EXPECT_EQ(0, memcmp(r, d, sizeof(d)));
		ASSERT_EQ(0, ask(fd, m, 10, r));
		EXPECT_EQ(0, memcmp(r, f, sizeof(f)));
		for (int k = 2; k < NS; k++)
			EXPECT_EQ(0, r[k]);
		/* Measured, not commanded: the actuator lags. */
		EXPECT_NE(u[0], d[0]);
		ASSERT_EQ(0, ask(fd, m, 5, NULL));
		memcpy(last, f, sizeof(f));
		if (rec) {
			memcpy(rec + 6 * (n - 1), u, sizeof(u));
			memcpy(rec + 6 * (n - 1) + 2, d, sizeof(d));
			memcpy(rec + 6 * (n - 1) + 4, f, sizeof(f));
		}
	}
	ASSERT_EQ(0, ask(fd, m, 99, NULL));
	ref_close(&ref);
	close(fd);
}

/*
 * With velocities, GenericClient adds C v to the force it gets (OpenSees's
 * GenericClient::getResistingForceIncInertia): a device's [10] is its
 * measure less C v, C the damping [14] answers, v the trial's; the
 * daq [6] of the same step agrees.
 */
TEST(element_force_leaves_out_the_damping)
{
	/* in: disp and vel; out (daq): disp and force */
	int32_t hdr[11] = { 2, 2, 0, 0, 0, 2, 0, 0, 2, 0, NS };
	double m[NS] = { 0 }, r[NS], c[4], u[2], d[2], f[2], v[2];
	struct site_proc s;
	struct ref ref;
	char log[16384];
	int fd;

	ASSERT_EQ(0, site_start(&s, "element", 5));
	fd = dial(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ref_open(&ref, 5));
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	ASSERT_EQ(0, ask(fd, m, 14, r));	/* column-major */
	memcpy(c, r, sizeof(c));
	EXPECT_EQ(C[0][0], c[0]);
	EXPECT_EQ(C[1][1], c[3]);
	for (int n = 1; n <= 12; n++) {
		trial_u(n, u);
		v[0] = 0.05 * cos(0.3 * n);
		v[1] = -0.01 * cos(0.17 * n + 0.5);
		memcpy(m + 1, u, sizeof(u));
		memcpy(m + 3, v, sizeof(v));
		ASSERT_EQ(0, ask(fd, m, 3, NULL));
		ASSERT_EQ(0, ref_step(&ref, u, d, f));
		for (int i = 0; i < 2; i++) {
			double cv = 0;

			for (int j = 0; j < 2; j++)
				cv += c[j * 2 + i] * v[j];
			f[i] -= cv;
		}
		ASSERT_EQ(0, ask(fd, m, 10, r));
		EXPECT_EQ(0, memcmp(r, f, sizeof(f)));
		ASSERT_EQ(0, ask(fd, m, 6, r));
		EXPECT_EQ(0, memcmp(r, d, sizeof(d)));
		EXPECT_EQ(0, memcmp(r + 2, f, sizeof(f)));
		ASSERT_EQ(0, ask(fd, m, 5, NULL));
	}
	ASSERT_EQ(0, ask(fd, m, 99, NULL));
	ref_close(&ref);
	close(fd);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
}

/* A plant in the site file runs in place of the lag, as in rths-run. */
TEST(element_offline_runs_the_plant)
{
	char log[16384];
	struct site_proc s;
	double f[2], lag_f[2];

	ASSERT_EQ(0, site_start(&s, "element", 8));
	c_run(_metadata, s.port[0], 8, 30, lag_f, NULL);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	actuator_extra = ",\"plant\":\"benchmark\"";
	ASSERT_EQ(0, site_start(&s, "element", 8));
	c_run(_metadata, s.port[0], 8, 30, f, NULL);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "ticks a step, plant benchmark)"));
	/* the same seed: only the plant differs */
	EXPECT_NE(0, memcmp(f, lag_f, sizeof(f)));
	TH_LOG("%s", log);
}

TEST(element_offline_gives_the_model)
{
	char log[16384];
	struct site_proc s;
	double f[2];

	ASSERT_EQ(0, site_start(&s, "element", 7));
	c_run(_metadata, s.port[0], 7, 40, f, NULL);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "device rths0 started (offline backend, 1024 Hz, 10 ticks a step)"));
	EXPECT_NE(NULL, strstr(log, "device at rest after 40 steps"));
	TH_LOG("%s", log);
}

/* Same seed, same bits, session after session (each starts the model
 * afresh); another seed gives other noise. */
TEST(deterministic)
{
	double f1[2], f2[2], f3[2];
	char log[16384];
	struct site_proc s;

	ASSERT_EQ(0, site_start(&s, "element", 3));
	c_run(_metadata, s.port[0], 3, 25, f1, NULL);
	usleep(100000);
	c_run(_metadata, s.port[0], 3, 25, f2, NULL);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_EQ(0, memcmp(f1, f2, sizeof(f1)));
	ASSERT_EQ(0, site_start(&s, "element", 4));
	c_run(_metadata, s.port[0], 4, 25, f3, NULL);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(0, memcmp(f1, f3, sizeof(f1)));
}

/* Codes 12 and 13 answer the specimen's stiffness estimate, 14 its
 * damping, 15 no mass; all column-major. */
TEST(element_matrices_are_the_estimate)
{
	int32_t hdr[11] = { 2, 2, 0, 0, 0, 0, 0, 0, 2, 0, NS };
	double m[NS] = { 0 }, r[NS];
	char log[16384];
	struct site_proc s;
	int fd;

	ASSERT_EQ(0, site_start(&s, "element", 1));
	fd = dial(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	for (int code = 12; code <= 15; code++) {
		const double (*x)[2] = code == 14 ? C : K;

		ASSERT_EQ(0, ask(fd, m, code, r));
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				EXPECT_EQ(code == 15 ? 0 : x[i][j],
					  r[j * 2 + i]);
		for (int k = 4; k < NS; k++)
			EXPECT_EQ(0, r[k]);
	}
	ASSERT_EQ(0, ask(fd, m, 99, NULL));
	close(fd);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
}

/* [6] answers the measured displacement and force, packed from 0. */
static int daq_is(int fd, double *m, const double *d, const double *f)
{
	double r[NS];

	return ask(fd, m, 6, r) == 0 && !memcmp(r, d, 2 * sizeof(*d)) &&
	       !memcmp(r + 2, f, 2 * sizeof(*f));
}

/* The session is over: the site stops, its device came to rest. */
static void site_done(struct __test_metadata *_metadata,
		      struct site_proc *s, struct ref *ref, int fd, int steps)
{
	char log[16384], want[64];

	close(fd);
	ref_close(ref);
	EXPECT_EQ(0, site_stop(s, log, sizeof(log)));
	snprintf(want, sizeof(want), "device at rest after %d steps", steps);
	EXPECT_NE(NULL, strstr(log, want));
}

/*
 * ShadowExpSite: steps 3, 6, 5 and, when the displacement did not
 * change, 5 alone; that step still moves the device one step, holding
 * its target.  [6] answers disp, force measured.
 */
TEST(site_protocol_steps_the_device)
{
	int32_t one = 1, sizes[10] = { 2, 0, 0, 0, 1, 2, 0, 0, 2, 0 };
	double m[NS] = { 1, 7, 2.8 }, r[NS], u[2], d[2], f[2];
	struct ref ref;
	struct site_proc s;
	int fd;

	ASSERT_EQ(0, site_start(&s, "site", 5));
	ASSERT_EQ(0, ref_open(&ref, 5));
	fd = dial(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, &one, sizeof(one)));
	ASSERT_EQ(0, get(fd, &one, sizeof(one)));
	ASSERT_EQ(0, ask(fd, m, 1, r));
	EXPECT_EQ(0, r[0]);
	m[1] = NS;	/* dataSize: every message after setup */
	ASSERT_EQ(0, ask(fd, m, 2, NULL));
	ASSERT_EQ(0, put(fd, sizes, sizeof(sizes)));
	for (int n = 1; n <= 12; n++) {
		int same = n % 4 == 0;

		if (!same)
			trial_u(n, u);
		memset(m, 0, sizeof(m));
		memcpy(m + 1, u, sizeof(u));
		m[3] = 0.01 * n;
		ASSERT_EQ(0, ref_step(&ref, u, d, f));
		ASSERT_EQ(0, ask(fd, m, same ? 5 : 3, NULL));
		EXPECT_TRUE(daq_is(fd, m, d, f));
		if (!same) {
			m[3] = 0.02 * n;	/* the doubled commit time */
			ASSERT_EQ(0, ask(fd, m, 5, NULL));
		}
	}
	ASSERT_EQ(0, ask(fd, m, 99, r));
	EXPECT_EQ(4, r[0]);
	site_done(_metadata, &s, &ref, fd, 12);
}

/* ECGenericTCP: 3 executes, 6 answers the measured disp and force. */
TEST(controller_protocol_steps_the_device)
{
	int32_t hdr[11] = { 2, 0, 0, 0, 0, 2, 0, 0, 2, 0, NS };
	double m[NS] = { 0 }, u[2], d[2], f[2];
	struct ref ref;
	struct site_proc s;
	int fd;

	ASSERT_EQ(0, site_start(&s, "controller", 6));
	ASSERT_EQ(0, ref_open(&ref, 6));
	fd = dial(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	for (int n = 1; n <= 10; n++) {
		trial_u(n, u);
		memcpy(m + 1, u, sizeof(u));
		ASSERT_EQ(0, ask(fd, m, 3, NULL));
		ASSERT_EQ(0, ref_step(&ref, u, d, f));
		EXPECT_TRUE(daq_is(fd, m, d, f));
	}
	ASSERT_EQ(0, ask(fd, m, 99, NULL));
	site_done(_metadata, &s, &ref, fd, 10);
}

/* One specimen, one session: a second is refused while the first runs. */
TEST(one_session_drives_the_device)
{
	int32_t hdr[11] = { 2, 2, 0, 0, 0, 0, 0, 0, 2, 0, NS };
	double m[NS] = { 0 }, r[NS];
	char log[16384], c;
	struct site_proc s;
	int fd1, fd2;

	ASSERT_EQ(0, site_start(&s, "element", 1));
	fd1 = dial(s.port[0]);
	ASSERT_EQ(0, put(fd1, hdr, sizeof(hdr)));
	ASSERT_EQ(0, ask(fd1, m, 12, r));
	fd2 = dial(s.port[0]);
	ASSERT_EQ(0, put(fd2, hdr, sizeof(hdr)));
	EXPECT_EQ(-1, get(fd2, &c, 1));	/* closed */
	/* The first goes on. */
	ASSERT_EQ(0, ask(fd1, m, 13, r));
	EXPECT_EQ(K[0][0], r[0]);
	ASSERT_EQ(0, ask(fd1, m, 99, NULL));
	close(fd1);
	close(fd2);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "device busy: session 1 drives it"));
}

/*
 * device_sub_step() as the native protocol calls it: a step re-issued
 * with the last sequence number returns that step's result and moves
 * nothing (the next step is still the reference's next), an older one is
 * refused.
 */
TEST(step_reissued_moves_nothing)
{
	double u[2], d[2], f[2], rd[2], rf[2], last_d[2], last_f[2];
	struct substructure sub = { .name = "rig", .n = 2 };
	struct device_step_info info;
	struct device_sub *dev;
	json_t *root, *js;
	char *text = NULL, msg[512];
	size_t len;
	struct ref ref;
	FILE *f_mem = open_memstream(&text, &len);

	ASSERT_NE(NULL, f_mem);
	site_json(f_mem, "element", 9);
	fclose(f_mem);
	root = json_loads(text, 0, NULL);
	free(text);
	ASSERT_NE(NULL, root);
	js = json_array_get(json_object_get(root, "substructures"), 0);
	ASSERT_EQ(0, device_sub_config(js, "t.json", "substructures[0]", &sub,
				       msg, sizeof(msg)));
	ASSERT_EQ(0, device_sub_open(&dev, &sub));
	ASSERT_EQ(0, device_sub_start(dev));
	ASSERT_EQ(0, ref_open(&ref, 9));
	for (int n = 1; n <= 8; n++) {
		trial_u(n, u);
		ASSERT_EQ(0, device_sub_step(dev, n, u, d, f, &info));
		ASSERT_EQ(0, ref_step(&ref, u, rd, rf));
		EXPECT_EQ(0, memcmp(d, rd, sizeof(d)));
		EXPECT_EQ(0, memcmp(f, rf, sizeof(f)));
		EXPECT_EQ(0, info.repeated);
		if (n != 4)
			continue;
		/* The reply was lost: step 4 again, even with other values. */
		memcpy(last_d, d, sizeof(d));
		memcpy(last_f, f, sizeof(f));
		u[0] *= 2;
		ASSERT_EQ(0, device_sub_step(dev, n, u, d, f, &info));
		EXPECT_EQ(1, info.repeated);
		EXPECT_EQ(0, memcmp(d, last_d, sizeof(d)));
		EXPECT_EQ(0, memcmp(f, last_f, sizeof(f)));
		EXPECT_EQ(4, device_sub_steps(dev));
		EXPECT_GT(0, device_sub_step(dev, 3, u, d, f, &info));
		EXPECT_NE(NULL, strstr(device_sub_error(dev), "older than step 4"));
	}
	EXPECT_EQ(8, device_sub_steps(dev));
	EXPECT_EQ(0, device_sub_stop(dev));
	device_sub_close(dev);
	ref_close(&ref);
	rths_hs_experiment_free(sub.dev);
	json_decref(root);
}

/* rths-site on a 1-DOF substructure with @fields: exit status, the
 * error in err. */
static int run_on(const char *fields, char *err, size_t size)
{
	char json[1024];

	snprintf(json, sizeof(json), "{\"substructures\":[{\"name\":\"p\",\"protocol\":\"element\",\"port\":0,\"dof\":1,%s}]}",
		 fields);
	return site_proc_run(json, NULL, err, size);
}

TEST(device_errors_name_the_path)
{
	static const char *const cases[][2] = {
		{ "\"device\":{\"backend\":\"offline\",\"rate\":5,\"step_ticks\":1},\"specimen\":{\"stiffness\":1}",
		  "json: [value] substructures[0].device.rate: expected" },
		{ "\"device\":{\"backend\":\"offline\"},\"specimen\":{\"stiffness\":1}",
		  "json: [field] substructures[0].device.step_ticks: missing" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4,\"actuator\":{\"lagg\":1}},\"specimen\":{\"stiffness\":1}",
		  "json: [field] substructures[0].device.actuator.lagg: unknown field" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4},\"specimen\":{\"stiffness\":1},\"compensation\":{\"method\":\"polynomial\",\"order\":9}",
		  "json: [value] substructures[0].compensation.order: expected" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4},\"specimen\":{\"stiffness\":\"x\"}",
		  "json: [field] substructures[0].specimen.stiffness: expected" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4},\"specimen\":{\"stiffness\":1},\"setup\":{\"type\":\"two_actuator\"}",
		  "json: [value] substructures[0].setup" },
		{ "\"device\":[]", "json: [field] substructures[0].device: expected an object" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4}",
		  "json: [field] substructures[0].specimen: missing" },
		{ "\"device\":{\"backend\":\"offline\",\"step_ticks\":4},\"specimen\":{\"stiffness\":1},\"elements\":[]",
		  "json: [value] substructures[0].elements: a device substructure's springs" },
	};
	char err[1024];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(1, run_on(cases[i][0], err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, cases[i][1]));
		EXPECT_EQ(err + strlen(err) - 1, strchr(err, '\n'));
		TH_LOG("%s", err);
	}
}

/* ----------------------------------------------------- native protocol */

/* One frame of the native protocol: its type, payload in p (len). */
static int native_get(int fd, unsigned char *p, size_t cap, uint32_t *len)
{
	unsigned char h[RNP_HDR_SIZE];
	struct rnp_hdr hdr;

	if (get(fd, h, sizeof(h)) || rnp_parse_hdr(h, &hdr, NULL, 0) ||
	    hdr.length > cap || get(fd, p, hdr.length))
		return -1;
	*len = hdr.length;
	return hdr.type;
}

static int native_put(int fd, struct rnp_buf *b)
{
	int r = put(fd, b->p, b->len);

	b->len = 0;
	return r;
}

/*
 * rths-coord's view of a device site: WELCOME says device, with the
 * device's rate and step; each STEP gives the offline model's measured
 * displacement and force after the compensation, to the bit; a re-issued
 * STEP is answered from the cache (CACHED) and moves nothing, since the
 * steps after it still match the reference; a second session of the same
 * test goes on where the first stopped (the device stayed open); BYE
 * brings the device to rest.
 */
TEST(native_protocol_steps_the_device)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .test_id = 42, .substructure = "rig" };
	static unsigned char p[4096];
	double u[2], d[2], f[2], rd[2], rf[2];
	struct rnp_result res = { .disp = rd, .force = rf };
	struct rnp_step st = { .ndof = 2, .u = u };
	struct rnp_buf b = { 0 };
	struct rnp_welcome w;
	char log[16384];
	struct site_proc s;
	struct ref ref;
	uint32_t len;
	int fd = -1;

	ASSERT_EQ(0, site_start(&s, "native", 7));
	ASSERT_EQ(0, ref_open(&ref, 7));
	for (int n = 1; n <= 30; n++) {
		if (n == 1 || n == 16) {	/* a new session at step 16 */
			if (fd >= 0)
				close(fd);
			fd = dial(s.port[0]);
			ASSERT_LE(0, fd);
			h.last_seq = n - 1;
			ASSERT_EQ(0, rnp_put_hello(&b, &h));
			ASSERT_EQ(0, native_put(fd, &b));
			ASSERT_EQ(RNP_WELCOME, native_get(fd, p, sizeof(p),
							  &len));
			ASSERT_EQ(0, rnp_parse_welcome(p, len, &w, NULL, 0));
			EXPECT_EQ(RNP_KIND_DEVICE, w.kind);
			EXPECT_EQ(RATE, w.rate);
			EXPECT_EQ(TICKS, w.step_ticks);
			EXPECT_EQ(2, w.ndof);
			/* a resumed test reports where it is */
			EXPECT_EQ(n == 1 ? 0 : 42, w.test_id);
			EXPECT_EQ((uint64_t)n - 1, w.last_seq);
		}
		trial_u(n, u);
		st.seq = n;
		ASSERT_EQ(0, ref_step(&ref, u, d, f));
		for (int k = 0; k < (n == 9 ? 2 : 1); k++) {
			ASSERT_EQ(0, rnp_put_step(&b, &st));
			ASSERT_EQ(0, native_put(fd, &b));
			ASSERT_EQ(RNP_RESULT, native_get(fd, p, sizeof(p),
							 &len));
			ASSERT_EQ(0, rnp_parse_result(p, len, &res, 2, NULL,
						      0));
			EXPECT_EQ((uint64_t)n, res.seq);
			EXPECT_EQ(k ? RNP_RES_CACHED : 0,
				  res.flags & RNP_RES_CACHED);
			EXPECT_EQ(0, memcmp(rd, d, sizeof(d)));
			EXPECT_EQ(0, memcmp(rf, f, sizeof(f)));
		}
	}
	ASSERT_EQ(0, rnp_put_bye(&b));
	ASSERT_EQ(0, native_put(fd, &b));
	close(fd);
	rnp_buf_free(&b);
	ref_close(&ref);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "steps executed 30, cached 1, replayed 0"));
	TH_LOG("%s", log);
}

/*
 * A device substructure's input passes the same check as a numerical
 * one's (sub_check_input), on every port: with stroke limits of +-5 mm
 * and a velocity limit of 0.25 m/s, a STEP or trial whose displacement
 * is NaN or inf is refused as a protocol error, one beyond the strokes
 * as a device error before anything moves; and a step within the
 * strokes but too fast trips the velocity limit in the device itself
 * (the offline backend, as the kernel), which holds: ERROR device,
 * "holding (reason limit".
 */
#define LIMITS ",\"limits\":[{\"stroke_min\":-0.005,\"stroke_max\":0.005,\"velocity_max\":0.25},{\"stroke_min\":-0.005,\"stroke_max\":0.005}]"

static const struct {
	double u0;
	int code;
	const char *what;
} device_rows[] = {
	{ NAN, RNP_ERR_PROTOCOL, "displacement 0 is nan: not a finite number" },
	{ INFINITY, RNP_ERR_PROTOCOL, "displacement 0 is inf: not a finite number" },
	{ 0.006, RNP_ERR_DEVICE, "actuator 0 stroke 0.006 m beyond its limits [-0.005, 0.005] m (device.limits); nothing moved" },
	{ -0.0051, RNP_ERR_DEVICE, "actuator 0 stroke -0.0051 m beyond its limits" },
};
#define N_DEVICE_ROWS (sizeof(device_rows) / sizeof(device_rows[0]))

/* A native step: its frame type; an ERROR's code and text in *em. */
static int native_step_n(int fd, uint64_t seq, double u0, uint32_t ndof,
			 struct rnp_errmsg *em)
{
	static unsigned char p[4096];
	double u[2] = { u0, 0.001 }, rd[2], rf[2];
	struct rnp_result res = { .disp = rd, .force = rf };
	struct rnp_step st = { .seq = seq, .t = 0.01, .ndof = ndof, .u = u };
	struct rnp_buf b = { 0 };
	uint32_t len;
	int type;

	if (rnp_put_step(&b, &st) || native_put(fd, &b))
		return -1;
	rnp_buf_free(&b);
	type = native_get(fd, p, sizeof(p), &len);
	if (type == RNP_ERROR && rnp_parse_error(p, len, em, NULL, 0))
		return -1;
	if (type == RNP_RESULT && rnp_parse_result(p, len, &res, 2, NULL, 0))
		return -1;
	return type;
}

static int native_step(int fd, uint64_t seq, double u0,
		       struct rnp_errmsg *em)
{
	return native_step_n(fd, seq, u0, 2, em);
}

static int native_hello(int port)
{
	struct rnp_hello h = { .version_min = 1, .version_max = 1,
			       .test_id = 5, .substructure = "rig" };
	static unsigned char p[4096];
	struct rnp_buf b = { 0 };
	uint32_t len;
	int fd = dial(port);

	if (fd < 0 || rnp_put_hello(&b, &h) || native_put(fd, &b) ||
	    native_get(fd, p, sizeof(p), &len) != RNP_WELCOME)
		return -1;
	rnp_buf_free(&b);
	return fd;
}

TEST(device_input_checked_native)
{
	struct rnp_errmsg em;
	char log[16384];
	struct site_proc s;
	int fd;

	device_extra = LIMITS;
	ASSERT_EQ(0, site_start(&s, "native", 2));
	for (size_t i = 0; i < N_DEVICE_ROWS; i++) {
		fd = native_hello(s.port[0]);
		ASSERT_LE(0, fd);
		ASSERT_EQ(RNP_ERROR, native_step(fd, 1, device_rows[i].u0, &em));
		TH_LOG("ERROR %s: %s", rnp_error_name(em.code), em.text);
		EXPECT_EQ(device_rows[i].code, em.code);
		EXPECT_NE(NULL, strstr(em.text, device_rows[i].what));
		EXPECT_NE(NULL, strstr(em.text, "STEP 1 refused"));
		EXPECT_EQ(1, closed(fd));
		close(fd);
	}
	/* The DOF count, as for a numerical substructure. */
	fd = native_hello(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(RNP_ERROR, native_step_n(fd, 1, 0.001, 1, &em));
	EXPECT_EQ(RNP_ERR_DOF, em.code);
	EXPECT_NE(NULL, strstr(em.text, "STEP 1 refused: 1 DOF, the substructure has 2"));
	close(fd);
	/* Nothing moved: step 1 runs; step 2 is within the strokes but
	 * 4 mm in 10 ticks of 1/1024 s, about 0.4 m/s: the device holds. */
	fd = native_hello(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(RNP_RESULT, native_step(fd, 1, 0.0002, &em));
	ASSERT_EQ(RNP_ERROR, native_step(fd, 2, 0.0042, &em));
	TH_LOG("ERROR %s: %s", rnp_error_name(em.code), em.text);
	EXPECT_EQ(RNP_ERR_DEVICE, em.code);
	EXPECT_NE(NULL, strstr(em.text, "holding (reason limit: channel 0 velocity"));
	close(fd);
	device_extra = "";
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "steps executed 1,"));
	TH_LOG("%s", log);
}

/* OpenFresco's ports: the session ends with one line naming the problem. */
static int of_open(int port, const char *proto)
{
	int32_t one = 1, sizes[10] = { 2, 0, 0, 0, 0, 2, 0, 0, 2, 0 };
	int32_t hdr[11] = { 2, 0, 0, 0, 0, 2, 0, 0, 2, 0, NS };
	double m[NS] = { 1, 7, 2.8 }, r[NS];
	int fd = dial(port);

	if (fd < 0)
		return -1;
	if (!strcmp(proto, "site")) {
		if (put(fd, &one, sizeof(one)) || get(fd, &one, sizeof(one)) ||
		    ask(fd, m, 1, r))
			return -1;
		m[1] = NS;
		if (ask(fd, m, 2, NULL) || put(fd, sizes, sizeof(sizes)))
			return -1;
		return fd;
	}
	return put(fd, hdr, sizeof(hdr)) ? -1 : fd;
}

TEST(device_input_checked_openfresco)
{
	static const char *const protos[] = { "site", "controller",
					      "element" };
	double m[NS] = { 0 };
	char line[1024], log[16384];
	struct site_proc s;

	device_extra = LIMITS;
	for (size_t p = 0; p < 3; p++) {
		ASSERT_EQ(0, site_start(&s, protos[p], 2));
		for (size_t i = 0; i < N_DEVICE_ROWS; i++) {
			int fd = of_open(s.port[0], protos[p]);

			ASSERT_LE(0, fd);
			m[1] = device_rows[i].u0;
			m[2] = 0.001;
			ASSERT_EQ(0, ask(fd, m, 3, NULL));
			EXPECT_EQ(1, closed(fd));
			close(fd);
			ASSERT_NE(NULL, site_alert_line(&s, IO_MS, line,
							sizeof(line)));
			TH_LOG("%s: %s", protos[p], line);
			EXPECT_NE(NULL, strstr(line, "trial refused"));
			EXPECT_NE(NULL, strstr(line, device_rows[i].what));
		}
		EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	}
	device_extra = "";
}

/* ------------------------------------------------------ live view */

#define LIVE_STEPS 60

/* The view's port, from "live view at http://127.0.0.1:PORT/"; -1. */
static int live_port(struct site_proc *s)
{
	static const char at[] = "live view at http://127.0.0.1:";
	char line[1024], *p;

	while (site_log_line(s, IO_MS, line, sizeof(line)))
		if ((p = strstr(line, at)))
			return atoi(p + strlen(at));
	return -1;
}

/* GET @path over HTTP/1.0 (the answer ends with the connection): the
 * answer in @out, NUL-terminated; its length, or -1. */
static ssize_t http_get(int port, const char *path, char *out, size_t size)
{
	char req[256];
	size_t n = 0;
	int fd = dial(port);

	if (fd < 0)
		return -1;
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
	if (put(fd, req, strlen(req))) {
		close(fd);
		return -1;
	}
	while (n + 1 < size) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, IO_MS) <= 0)
			break;
		r = read(fd, out + n, size - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	out[n] = 0;
	close(fd);
	return (ssize_t)n;
}

/* An answer's status line says 200 (HTTP/1.0 or 1.1). */
static int http_ok(const char *a)
{
	return !strncmp(a, "HTTP/1.", 7) && !strncmp(a + 8, " 200 ", 5);
}

/* /summary.json's body, parsed, once the view's first tick made it
 * (100 ms); NULL. */
static json_t *summary_get(int port)
{
	static char buf[65536];
	char *body;

	for (int i = 0; i < 50; i++) {
		json_t *o;

		if (http_get(port, "/summary.json", buf, sizeof(buf)) < 0 ||
		    !http_ok(buf) || !(body = strstr(buf, "\r\n\r\n")))
			return NULL;
		o = json_loads(body + 4, 0, NULL);
		if (!o || json_object_get(o, "state"))
			return o;
		json_decref(o);
		usleep(100000);
	}
	return NULL;
}

/* What a reader of the stream saw of substructure 0, step by step. */
struct seen {
	int got[LIVE_STEPS + 1];
	double v[LIVE_STEPS + 1][6];	/* target, disp, force */
	int ended;		/* its state came to "ended" */
	int hello;		/* the hello named the site and "rig" */
	int events;
};

/* One SSE event's text (NUL-terminated) into @w. */
static void seen_event(struct seen *w, char *ev)
{
	char *data = strstr(ev, "\ndata: ");
	json_t *o, *sub;

	if (!data)
		return;
	o = json_loads(data + 7, 0, NULL);
	if (!o)
		return;
	if (strstr(ev, "event: hello")) {
		sub = json_array_get(json_object_get(o, "subs"), 0);
		w->hello = !strcmp(json_string_value(json_object_get(o, "tool")),
				   "rths-site") &&
			   !strcmp(json_string_value(json_object_get(sub, "name")),
				   "rig") &&
			   json_integer_value(json_object_get(sub, "channels")) == 2;
	} else if ((sub = json_array_get(json_object_get(o, "subs"), 0))) {
		json_t *step = json_object_get(sub, "step");
		const char *k[3] = { "target", "disp", "force" };
		const char *st = json_string_value(json_object_get(
				json_object_get(sub, "summary"), "state"));

		w->events++;
		for (size_t p = 0; p < json_array_size(step); p++) {
			json_int_t n = json_integer_value(json_array_get(step, p));

			if (n < 1 || n > LIVE_STEPS)
				continue;
			w->got[n] = 1;
			for (int q = 0; q < 3; q++)
				for (int i = 0; i < 2; i++)
					w->v[n][2 * q + i] = json_real_value(
						json_array_get(json_array_get(
						json_object_get(sub, k[q]), i), p));
		}
		if (st && !strcmp(st, "ended"))
			w->ended = 1;
	}
	json_decref(o);
}

/* Reads the stream on @fd until substructure 0 ended (or 20 s). */
static void seen_read(struct seen *w, int fd)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *ev;

	for (int idle = 0; buf && !w->ended && idle < 200;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0) {
			idle++;
			continue;
		}
		if (n + 65536 > cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b)
				break;
			buf = b;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = 0;
		/* whole events: up to a blank line */
		while ((ev = strstr(buf, "\n\n"))) {
			size_t len = (size_t)(ev - buf) + 2;

			*ev = 0;
			seen_event(w, buf);
			memmove(buf, buf + len, n - len + 1);
			n -= len;
		}
	}
	free(buf);
}

/*
 * rths-site --live with a GenericClient: the page and /summary.json are
 * served, a reader of the stream sees every step with the values the
 * client sent and got, bit for bit, and the client gets the bits it gets
 * without the view (the offline model's, c_run()) while a viewer that
 * never reads stays connected.
 */
TEST(live_view_shows_the_client_s_steps)
{
	static const char *const args[] = { "--live", "127.0.0.1:0", NULL };
	static const char stall[] = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char rd[] = "GET /events HTTP/1.0\r\nHost: x\r\n\r\n";
	static struct seen w;
	static char page[65536];
	double rec[6 * LIVE_STEPS], f[2];
	int small = 4096, port, stalled, reader;
	struct site_proc s;
	char log[16384];
	json_t *sum;

	site_args = args;
	ASSERT_EQ(0, site_start(&s, "element", 11));
	site_args = NULL;
	port = live_port(&s);
	ASSERT_LT(0, port);
	ASSERT_LT(0, http_get(port, "/", page, sizeof(page)));
	EXPECT_EQ(1, http_ok(page)) TH_LOG("%.80s", page);
	EXPECT_NE(NULL, strstr(page, "rths live view"));
	sum = summary_get(port);
	ASSERT_NE(NULL, sum);
	EXPECT_STREQ("running", json_string_value(json_object_get(sum, "state")));
	EXPECT_STREQ("waiting", json_string_value(json_object_get(
		json_array_get(json_object_get(sum, "subs"), 0), "state")));
	json_decref(sum);

	/* a small receive buffer: the server's side fills fast */
	stalled = dial(port);
	ASSERT_LE(0, stalled);
	setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	ASSERT_EQ(0, put(stalled, stall, strlen(stall)));
	reader = dial(port);
	ASSERT_LE(0, reader);
	ASSERT_EQ(0, put(reader, rd, strlen(rd)));

	c_run(_metadata, s.port[0], 11, LIVE_STEPS, f, rec);
	seen_read(&w, reader);
	EXPECT_EQ(1, w.hello);
	EXPECT_EQ(1, w.ended);
	for (int n = 1; n <= LIVE_STEPS; n++) {
		EXPECT_EQ(1, w.got[n]) TH_LOG("step %d not shown", n);
		EXPECT_EQ(0, memcmp(w.v[n], rec + 6 * (n - 1),
				    sizeof(w.v[n])))
			TH_LOG("step %d: shown %.17g %.17g %.17g, client's %.17g %.17g %.17g",
			       n, w.v[n][0], w.v[n][2], w.v[n][4],
			       rec[6 * (n - 1)], rec[6 * (n - 1) + 2],
			       rec[6 * (n - 1) + 4]);
	}
	sum = summary_get(port);
	ASSERT_NE(NULL, sum);
	EXPECT_STREQ("ended", json_string_value(json_object_get(
		json_array_get(json_object_get(sum, "subs"), 0), "state")));
	EXPECT_EQ(LIVE_STEPS, json_integer_value(json_object_get(
		json_array_get(json_object_get(sum, "subs"), 0), "step")));
	json_decref(sum);
	close(reader);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
	close(stalled);
	EXPECT_NE(NULL, strstr(log, "device at rest after 60 steps"));
	TH_LOG("%s", log);
}

/* --live-token: a request without the token is refused (401), with it
 * served; the URL the site prints carries it. */
TEST(live_view_asks_for_the_token)
{
	static const char tok[] = "site-view-token-0123456789";
	static char page[65536];
	char file[64], path[128], line[1024], log[16384], *p;
	const char *args[] = { "--live", "127.0.0.1:0", "--live-token",
			       file, NULL };
	struct site_proc s;
	int port = -1;
	FILE *f;

	snprintf(file, sizeof(file), "/tmp/rths-site-token.%d", (int)getpid());
	f = fopen(file, "w");
	ASSERT_NE(NULL, f);
	fprintf(f, "%s\n", tok);
	fclose(f);
	site_args = args;
	ASSERT_EQ(0, site_start(&s, "element", 2));
	site_args = NULL;
	while (site_log_line(&s, IO_MS, line, sizeof(line)))
		if ((p = strstr(line, "live view at http://127.0.0.1:"))) {
			port = atoi(p + strlen("live view at http://127.0.0.1:"));
			EXPECT_NE(NULL, strstr(line, tok));
			break;
		}
	unlink(file);
	ASSERT_LT(0, port);
	ASSERT_LT(0, http_get(port, "/summary.json", page, sizeof(page)));
	EXPECT_EQ(0, strncmp(page + 8, " 401 ", 5)) TH_LOG("%.80s", page);
	snprintf(path, sizeof(path), "/summary.json?token=%s", tok);
	ASSERT_LT(0, http_get(port, path, page, sizeof(page)));
	EXPECT_EQ(1, http_ok(page)) TH_LOG("%.80s", page);
	EXPECT_EQ(0, site_stop(&s, log, sizeof(log)));
}

/* --live off loopback without HTTPS and a token, the view's options
 * without --live, and a site without a device to show are refused. */
TEST(live_view_refusals)
{
	static const char *const off[] = { "--live", "0.0.0.0:0", NULL };
	static const char *const tok[] = { "--live-token", "/dev/null", NULL };
	static const char *const cert[] = { "--live-cert", "c.pem", NULL };
	static const char numerical[] =
		"{\"substructures\":[{\"name\":\"n\",\"protocol\":\"element\",\"port\":0,\"dof\":1,\"stiffness\":[[1e6]]}]}";
	static const char *const live[] = { "--live", "127.0.0.1:0", NULL };
	char *json = NULL, err[16384];
	size_t len;
	FILE *f = open_memstream(&json, &len);

	ASSERT_NE(NULL, f);
	site_json(f, "element", 1);
	fclose(f);
	EXPECT_EQ(1, site_proc_run(json, off, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "rths-site: --live: 0.0.0.0:0 is not a loopback address: a live view there needs HTTPS (--live-cert, --live-key) and a token (--live-token)"))
		TH_LOG("%s", err);
	EXPECT_EQ(2, site_proc_run(json, tok, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "rths-site: --live-token, --live-cert and --live-key go with --live"))
		TH_LOG("%s", err);
	EXPECT_EQ(2, site_proc_run(json, cert, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "go with --live")) TH_LOG("%s", err);
	free(json);
	EXPECT_EQ(1, site_proc_run(numerical, live, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "has no device substructure to show"))
		TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
