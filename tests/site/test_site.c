// SPDX-License-Identifier: GPL-2.0
/*
 * rths-site on loopback, driven by clients that follow OpenFresco's
 * sources message for message (ShadowExpSite.cpp, ECGenericTCP.cpp,
 * OpenSees GenericClient.cpp): native doubles, no framing, Nagle on as
 * OpenFresco leaves it.  RTHS_SITE names the binary under test.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rths/hs_model.h>

#include "kselftest_harness.h"
#include "site_proc.h"

#define NS 256

/* The site: A has 2 DOF, B 2 DOF, C 3 DOF; matrices are not symmetric so
 * that a transposed reply shows. */
static const double KA[2][2] = { { 4.5, -1.25 }, { -0.75, 3.0 } };
static const double CA[2][2] = { { 0.1, 0.02 }, { 0.03, 0.2 } };
static const double MA[2][2] = { { 2.0, 0.5 }, { 0.25, 1.0 } };
static const double KC[3][3] = { { 10, -2, 0.5 }, { -3, 12, -1 },
				 { 0.25, -4, 8 } };
static const double CC[3][3] = { { 0.3, 0.01, 0 }, { 0.02, 0.4, 0.05 },
				 { 0, 0.07, 0.5 } };
static const double MC[3][3] = { { 1, 0, 0.1 }, { 0, 2, 0 },
				 { 0.2, 0, 3 } };

static void json_matrix(FILE *f, const double *m, int n)
{
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fputc('[', f);
		for (int j = 0; j < n; j++)
			fprintf(f, "%.17g%s", m[i * n + j], j < n - 1 ? "," : "");
		fprintf(f, "]%s", i < n - 1 ? "," : "");
	}
	fputc(']', f);
}

/* The engine's springs: B has a bilinear one to the ground, C a bilinear
 * one to the ground and a Bouc-Wen one between DOF 1 and 2. */
static const char *const EL_B =
	"[{\"type\":\"bilinear\",\"dofs\":[0,-1],\"stiffness\":40,\"yield_force\":0.5}]";
static const char *const EL_C =
	"[{\"type\":\"bilinear\",\"dofs\":[0,-1],\"stiffness\":50,\"yield_force\":2,\"post_yield_ratio\":0.05},"
	"{\"type\":\"bouc_wen\",\"dofs\":[1,2],\"stiffness\":30,\"yield_force\":1.5}]";

static int springs_b(struct rths_hs_element *el)
{
	struct rths_hs_element_params p;

	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, 40, 0.5);
	rths_hs_element_init(&el[0], &p, 0, -1);
	return 1;
}

static int springs_c(struct rths_hs_element *el)
{
	struct rths_hs_element_params p;

	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, 50, 2);
	p.alpha = 0.05;
	rths_hs_element_init(&el[0], &p, 0, -1);
	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BOUC_WEN, 30, 1.5);
	rths_hs_element_init(&el[1], &p, 1, 2);
	return 2;
}

static double defo(const struct rths_hs_element *e, const double *u)
{
	return u[e->dof_i] - (e->dof_j >= 0 ? u[e->dof_j] : 0.0);
}

/* Spring forces after the linear ones, in the file's order. */
static void springs_add(struct rths_hs_element *el, int nel, const double *u,
			double *f)
{
	for (int e = 0; e < nel; e++) {
		double fe = rths_hs_element_trial(&el[e], defo(&el[e], u));

		f[el[e].dof_i] += fe;
		if (el[e].dof_j >= 0)
			f[el[e].dof_j] -= fe;
	}
}

static void springs_commit(struct rths_hs_element *el, int nel,
			   const double *u)
{
	for (int e = 0; e < nel; e++) {
		rths_hs_element_trial(&el[e], defo(&el[e], u));
		rths_hs_element_commit(&el[e]);
	}
}

/* rm = K + the springs' initial or trial tangents, row-major. */
static void springs_tangent(struct rths_hs_element *el, int nel,
			    const double *k, int n, const double *u,
			    int initial, double *rm)
{
	memcpy(rm, k, n * n * sizeof(double));
	for (int e = 0; e < nel; e++) {
		int i = el[e].dof_i, j = el[e].dof_j;
		double kk = el[e].p.k;

		if (!initial) {
			rths_hs_element_trial(&el[e], defo(&el[e], u));
			kk = el[e].k_t;
		}
		rm[i * n + i] += kk;
		if (j >= 0) {
			rm[j * n + j] += kk;
			rm[i * n + j] -= kk;
			rm[j * n + i] -= kk;
		}
	}
}

static void json_sub(FILE *f, const char *name, const char *proto, int tag,
		     int n, const double *k, const double *c, const double *m,
		     const char *elements)
{
	fprintf(f, "{\"name\":\"%s\",\"protocol\":\"%s\",\"tag\":%d,\"port\":0,\"dof\":%d,\"stiffness\":",
		name, proto, tag, n);
	json_matrix(f, k, n);
	fputs(",\"damping\":", f);
	json_matrix(f, c, n);
	fputs(",\"mass\":", f);
	json_matrix(f, m, n);
	if (elements)
		fprintf(f, ",\"elements\":%s", elements);
	fputc('}', f);
}

/* The site: A, B and C on three ports. */
static int site_start(struct site_proc *s, const char *const *extra)
{
	char *json = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&json, &len);
	int r;

	if (!f)
		return -1;
	fputs("{\"substructures\":[", f);
	json_sub(f, "pier-a", "site", 11, 2, &KA[0][0], &CA[0][0], &MA[0][0],
		 NULL);
	fputc(',', f);
	json_sub(f, "pier-b", "controller", 12, 2, &KA[0][0], &CA[0][0],
		 &MA[0][0], EL_B);
	fputc(',', f);
	json_sub(f, "pier-c", "element", 13, 3, &KC[0][0], &CC[0][0],
		 &MC[0][0], EL_C);
	fputs("]}\n", f);
	fclose(f);
	r = site_proc_start(s, json, 3, extra);
	free(json);
	return r;
}

static int site_stop(struct site_proc *s)
{
	return site_proc_stop(s, NULL, NULL, 0);
}

/* The site's sum order: K u, then C v, then M a (absent terms skipped). */
static void ref_force(const double *k, const double *c, const double *m,
		      int n, const double *u, const double *v,
		      const double *a, double *f)
{
	for (int i = 0; i < n; i++) {
		double s = 0;

		for (int j = 0; j < n; j++)
			s += k[i * n + j] * u[j];
		if (v)
			for (int j = 0; j < n; j++)
				s += c[i * n + j] * v[j];
		if (a)
			for (int j = 0; j < n; j++)
				s += m[i * n + j] * a[j];
		f[i] = s;
	}
}

/* ------------------------------------------------------------ A */

/* ShadowExpSite's constructor and setSize()/setup() with -dataSize ds. */
static int a_connect(int port, int ds_user, int *ds)
{
	double v[NS] = { 1, 7, 2.8 }, r[NS];
	int32_t one = 1, peer, sizes[10] = { 2, 2, 2, 0, 1, 2, 2, 2, 2, 1 };
	int fd = dial(port);

	if (fd < 0 || put(fd, &one, 4) || get(fd, &peer, 4) || peer != 1 ||
	    put(fd, v, sizeof(v)) || get(fd, r, sizeof(r)) || r[0] != 0 ||
	    r[1] != 11 || r[2] != 2.8)
		return -1;
	*ds = ds_user;
	if (*ds < 1 + 7)
		*ds = 1 + 7;
	if (*ds < 9)
		*ds = 9;
	memset(v, 0, sizeof(v));
	v[0] = 2;
	v[1] = *ds;
	v[2] = 2.8;		/* left over from open */
	if (put(fd, v, sizeof(v)) || put(fd, sizes, sizeof(sizes)))
		return -1;
	return fd;
}

TEST(protocol_a_shadow_site)
{
	struct site_proc s;
	double u[2] = { 0.01, -0.02 }, v[2] = { 0.3, 0.1 }, a[2] = { -2, 5 };
	double t = 0.005, f[2], *m, *r;
	int ds, fd;

	ASSERT_EQ(0, site_start(&s, NULL));
	fd = a_connect(s.port[0], 4, &ds);
	ASSERT_LE(0, fd);
	ASSERT_EQ(9, ds);	/* -dataSize 4 raised by the client */
	m = calloc(ds, sizeof(double));
	r = calloc(ds, sizeof(double));
	for (int step = 0; step < 3; step++) {
		/* setTrialResponse: [3, disp, vel, accel, time], zeros after */
		memset(m, 0, ds * sizeof(double));
		m[0] = 3;
		memcpy(m + 1, u, sizeof(u));
		memcpy(m + 3, v, sizeof(v));
		memcpy(m + 5, a, sizeof(a));
		m[7] = t;
		ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
		/* checkDaqResponse: [6] with the old trial values behind it */
		m[0] = 6;
		ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
		ASSERT_EQ(0, get(fd, r, ds * sizeof(double)));
		ref_force(&KA[0][0], &CA[0][0], &MA[0][0], 2, u, v, a, f);
		EXPECT_EQ(0, memcmp(r, u, sizeof(u)));
		EXPECT_EQ(0, memcmp(r + 2, v, sizeof(v)));
		EXPECT_EQ(0, memcmp(r + 4, a, sizeof(a)));
		EXPECT_EQ(0, memcmp(r + 6, f, sizeof(f)));
		EXPECT_EQ(t, r[8]);
		/* commitState: the time slot holds twice the step time */
		m[0] = 5;
		m[7] = 2 * t;
		ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
		/* A step without [3] (displacement unchanged): just [5]. */
		m[7] = 4 * t;
		ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
		/* The response still belongs to [3]'s trial and time. */
		m[0] = 6;
		ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
		ASSERT_EQ(0, get(fd, r, ds * sizeof(double)));
		EXPECT_EQ(0, memcmp(r + 6, f, sizeof(f)));
		EXPECT_EQ(t, r[8]);
		u[0] *= -1.7;
		u[1] += 0.013;
		v[1] -= 0.2;
		a[0] += 1.5;
		t += 0.005;
	}
	/* The destructor: [99, tag] -> [4, site tag] in dataSize doubles. */
	memset(m, 0, ds * sizeof(double));
	m[0] = 99;
	m[1] = 7;
	ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
	ASSERT_EQ(0, get(fd, r, ds * sizeof(double)));
	EXPECT_EQ(4, r[0]);
	EXPECT_EQ(11, r[1]);
	EXPECT_EQ(1, closed(fd));
	close(fd);
	free(m);
	free(r);
	EXPECT_EQ(0, site_stop(&s));
}

/* ------------------------------------------------------------ B */

TEST(protocol_b_generic_tcp)
{
	struct site_proc s;
	int32_t hdr[11] = { 2, 2, 2, 0, 1, 2, 0, 0, 2, 1, 256 };
	double m[NS] = { 0 }, r[NS], u[2] = { 0.02, 0.03 },
	       v[2] = { -0.1, 0.4 }, a[2] = { 1, -1 }, f[2];
	static unsigned char text[16385];
	struct rths_hs_element el[1];
	int fd, nel = springs_b(el);

	ASSERT_EQ(0, site_start(&s, NULL));
	fd = dial(s.port[1]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	/* Two init-file lines: byte 2, text, NUL, uninitialised rest. */
	for (int i = 0; i < 2; i++) {
		memset(text, 0xab, sizeof(text));
		text[0] = 2;
		snprintf((char *)text + 1, 64, "# init line %d", i);
		ASSERT_EQ(0, put(fd, text, sizeof(text)));
	}
	/* Before the test: [3, zeros] and [6], twice (a console retry). */
	for (int i = 0; i < 2; i++) {
		memset(m, 0, sizeof(m));
		m[0] = 3;
		ASSERT_EQ(0, put(fd, m, sizeof(m)));
		m[0] = 6;
		ASSERT_EQ(0, put(fd, m, sizeof(m)));
		ASSERT_EQ(0, get(fd, r, sizeof(r)));
		for (int k = 0; k < NS; k++)
			EXPECT_EQ(0, r[k]);
	}
	/* Past yield and back: the spring's state must follow the steps. */
	for (int step = 1; step <= 4; step++) {
		/* No commit on the wire: a new [3] commits the last trial. */
		if (step > 1)
			springs_commit(el, nel, u);
		if (step > 1) {
			u[0] = step == 4 ? -0.01 : u[0] - 0.05 + 0.04 * step;
			v[1] *= 2;
			a[1] += 0.5;
		}
		memset(m, 0, sizeof(m));
		m[0] = 3;
		memcpy(m + 1, u, sizeof(u));
		memcpy(m + 3, v, sizeof(v));
		memcpy(m + 5, a, sizeof(a));
		m[7] = step * 0.01;
		ASSERT_EQ(0, put(fd, m, sizeof(m)));
		m[0] = 6;
		ASSERT_EQ(0, put(fd, m, sizeof(m)));
		ASSERT_EQ(0, get(fd, r, sizeof(r)));
		ref_force(&KA[0][0], &CA[0][0], &MA[0][0], 2, u, v, a, f);
		springs_add(el, nel, u, f);
		EXPECT_EQ(0, memcmp(r, u, sizeof(u)));
		EXPECT_EQ(0, memcmp(r + 2, f, sizeof(f)));
		EXPECT_EQ(step * 0.01, r[4]);
		for (int k = 5; k < NS; k++)
			EXPECT_EQ(0, r[k]);
	}
	memset(m, 0, sizeof(m));
	m[0] = 99;
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	EXPECT_EQ(0, site_stop(&s));
}

/* ------------------------------------------------------------ C */

/* GenericClient::setupConnection() for n = 3 and dataSize 256. */
static int c_connect(int port, int *ds)
{
	int32_t hdr[11] = { 3, 3, 3, 0, 1, 0, 0, 0, 3, 0, 256 };
	int fd = dial(port);

	*ds = hdr[10];
	if (fd < 0 || put(fd, hdr, sizeof(hdr)))
		return -1;
	return fd;
}

static int c_ask(int fd, double *m, int code, double *r)
{
	m[0] = code;
	if (put(fd, m, NS * sizeof(double)))
		return -1;
	return get(fd, r, NS * sizeof(double));
}

/* The matrix in r, column-major, equals rm (row-major), zeros after. */
static int colmajor_equal(const double *r, const double *rm, int n)
{
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			if (r[j * n + i] != rm[i * n + j])
				return 0;
	for (int k = n * n; k < NS; k++)
		if (r[k] != 0)
			return 0;
	return 1;
}

/* A GenericClient run: first step 3, 12, 15, 10, 5; then 3, 10, 13,
 * 14, 5 (12 and 15 cached by the client); 99. */
static int c_session(struct __test_metadata *_metadata, int port)
{
	double m[NS] = { 0 }, r[NS], u[3] = { 0.1, -0.2, 0.05 },
	       v[3] = { 1, 2, 3 }, a[3] = { -1, 0.5, 2 }, f[3];
	struct rths_hs_element el[2];
	double rm[9];
	int nel = springs_c(el);
	int ds, fd = c_connect(port, &ds);

	if (fd < 0)
		return -1;
	for (int step = 0; step < 3; step++) {
		m[0] = 3;
		memcpy(m + 1, u, sizeof(u));
		memcpy(m + 4, v, sizeof(v));
		memcpy(m + 7, a, sizeof(a));
		m[10] = 0.02 * (step + 1);
		if (put(fd, m, sizeof(m)))
			return -1;
		if (step == 0) {
			if (c_ask(fd, m, 12, r))
				return -1;
			springs_tangent(el, nel, &KC[0][0], 3, u, 1, rm);
			EXPECT_TRUE(colmajor_equal(r, rm, 3));
			if (c_ask(fd, m, 15, r))
				return -1;
			EXPECT_TRUE(colmajor_equal(r, &MC[0][0], 3));
		}
		if (c_ask(fd, m, 10, r))
			return -1;
		/* GenericClient adds C v and M a itself: the reply is K u
		 * and the springs. */
		ref_force(&KC[0][0], NULL, NULL, 3, u, NULL, NULL, f);
		springs_add(el, nel, u, f);
		EXPECT_EQ(0, memcmp(r, f, sizeof(f)));
		for (int k = 3; k < NS; k++)	/* no stale matrix entries */
			EXPECT_EQ(0, r[k]);
		if (step > 0) {
			if (c_ask(fd, m, 13, r))
				return -1;
			springs_tangent(el, nel, &KC[0][0], 3, u, 0, rm);
			EXPECT_TRUE(colmajor_equal(r, rm, 3));
			if (c_ask(fd, m, 14, r))
				return -1;
			EXPECT_TRUE(colmajor_equal(r, &CC[0][0], 3));
		}
		m[0] = 5;
		if (put(fd, m, sizeof(m)))
			return -1;
		springs_commit(el, nel, u);
		u[step] += 0.125;
		v[2 - step] -= 0.5;
		a[1] *= -3;
	}
	memset(m, 0, sizeof(m));
	m[0] = 99;
	if (put(fd, m, sizeof(m)))
		return -1;
	EXPECT_EQ(1, closed(fd));
	close(fd);
	return 0;
}

TEST(protocol_c_generic_client)
{
	struct site_proc s;

	ASSERT_EQ(0, site_start(&s, NULL));
	/* Lazy: the element connects at its first update, well after the
	 * site came up and after another session came and went. */
	ASSERT_EQ(0, c_session(_metadata, s.port[2]));
	usleep(200000);
	ASSERT_EQ(0, c_session(_metadata, s.port[2]));
	EXPECT_EQ(0, site_stop(&s));
}

/*
 * A transient analysis as OpenSees runs one through GenericClient:
 * Newmark's average acceleration with Newton iterations; the element's
 * resisting force is its reply to getForce plus getDamp() v plus
 * getMass() a (GenericClient::getResistingForceIncInertia), its tangent
 * getTangentStiff() + c1 getDamp() + c2 getMass().  @site: over the
 * connection fd; else the same model in one place (K, C, M and the
 * springs here).  u_hist: the displacements of every step.
 */
#define TR_STEPS 400
#define TR_DT 0.01

static void tr_load(int step, double *p)
{
	double t = step * TR_DT;

	p[0] = 3.0 * sin(2 * M_PI * 1.5 * t);
	p[1] = -2.0 * sin(2 * M_PI * 0.7 * t) * (t < 2);
	p[2] = 1.5 * cos(2 * M_PI * 2.3 * t) - 1.5;
}

/* Solve A x = b (n <= 3, A row-major, destroyed) by Gauss with
 * partial pivoting. */
static void tr_solve(double *A, double *b, int n)
{
	for (int k = 0; k < n; k++) {
		int p = k;

		for (int i = k + 1; i < n; i++)
			if (fabs(A[i * n + k]) > fabs(A[p * n + k]))
				p = i;
		for (int j = 0; j < n && p != k; j++) {
			double t = A[k * n + j];

			A[k * n + j] = A[p * n + j];
			A[p * n + j] = t;
		}
		if (p != k) {
			double t = b[k];

			b[k] = b[p];
			b[p] = t;
		}
		for (int i = k + 1; i < n; i++) {
			double l = A[i * n + k] / A[k * n + k];

			for (int j = k; j < n; j++)
				A[i * n + j] -= l * A[k * n + j];
			b[i] -= l * b[k];
		}
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int j = i + 1; j < n; j++)
			b[i] -= A[i * n + j] * b[j];
		b[i] /= A[i * n + i];
	}
}

/* The reply's column-major n x n matrix, row-major. */
static void tr_matrix(const double *r, int n, double *rm)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			rm[i * n + j] = r[j * n + i];
}

static int transient(int fd, double u_hist[][3], int *iters)
{
	const double beta = 0.25, gamma = 0.5, dt = TR_DT;
	const double c1 = gamma / (beta * dt), c2 = 1 / (beta * dt * dt);
	double u[3] = { 0 }, v[3] = { 0 }, a[3] = { 0 }, un[3], vn[3], an[3];
	double m[NS] = { 0 }, r[NS], C[9], M[9], K[9], A[9], p[3], fq[3];
	struct rths_hs_element el[2];
	int nel = springs_c(el);

	*iters = 0;
	if (fd >= 0) {		/* getDamp and getMass, once, as cached */
		if (c_ask(fd, m, 14, r))
			return -1;
		tr_matrix(r, 3, C);
		if (c_ask(fd, m, 15, r))
			return -1;
		tr_matrix(r, 3, M);
	} else {
		memcpy(C, CC, sizeof(C));
		memcpy(M, MC, sizeof(M));
	}
	for (int step = 1; step <= TR_STEPS; step++) {
		memcpy(un, u, sizeof(u));
		memcpy(vn, v, sizeof(v));
		memcpy(an, a, sizeof(a));
		tr_load(step, p);
		for (int it = 0; it < 50; it++) {
			double R[3], norm = 0;

			for (int i = 0; i < 3; i++) {
				a[i] = c2 * (u[i] - un[i]) - vn[i] / (beta * dt) -
				       (0.5 / beta - 1) * an[i];
				v[i] = vn[i] + dt * ((1 - gamma) * an[i] +
						     gamma * a[i]);
			}
			if (fd >= 0) {	/* setTrialResponse, getForce */
				m[0] = 3;
				memcpy(m + 1, u, sizeof(u));
				memcpy(m + 4, v, sizeof(v));
				memcpy(m + 7, a, sizeof(a));
				m[10] = step * dt;
				if (put(fd, m, sizeof(m)) || c_ask(fd, m, 10, r))
					return -1;
				memcpy(fq, r, sizeof(fq));
				if (c_ask(fd, m, 13, r))
					return -1;
				tr_matrix(r, 3, K);
			} else {
				ref_force(&KC[0][0], NULL, NULL, 3, u, NULL,
					  NULL, fq);
				springs_add(el, nel, u, fq);
				springs_tangent(el, nel, &KC[0][0], 3, u, 0, K);
			}
			for (int i = 0; i < 3; i++) {
				R[i] = p[i] - fq[i];
				for (int j = 0; j < 3; j++)
					R[i] -= C[i * 3 + j] * v[j] +
						M[i * 3 + j] * a[j];
			}
			for (int k = 0; k < 9; k++)
				A[k] = K[k] + c1 * C[k] + c2 * M[k];
			tr_solve(A, R, 3);
			for (int i = 0; i < 3; i++) {
				u[i] += R[i];
				norm = fmax(norm, fabs(R[i]));
			}
			++*iters;
			if (norm < 1e-12)
				break;
		}
		for (int i = 0; i < 3; i++) {	/* the converged state */
			a[i] = c2 * (u[i] - un[i]) - vn[i] / (beta * dt) -
			       (0.5 / beta - 1) * an[i];
			v[i] = vn[i] + dt * ((1 - gamma) * an[i] + gamma * a[i]);
		}
		if (fd >= 0) {	/* the last trial, then commit */
			m[0] = 3;
			memcpy(m + 1, u, sizeof(u));
			memcpy(m + 4, v, sizeof(v));
			memcpy(m + 7, a, sizeof(a));
			m[10] = step * dt;
			m[0] = 3;
			if (put(fd, m, sizeof(m)))
				return -1;
			m[0] = 5;
			if (put(fd, m, sizeof(m)))
				return -1;
		} else {
			springs_commit(el, nel, u);
		}
		memcpy(u_hist[step - 1], u, sizeof(u));
	}
	return 0;
}

TEST(generic_client_transient_is_the_model_in_one_place)
{
	static double here[TR_STEPS][3], there[TR_STEPS][3];
	double m[NS] = { 0 }, peak = 0, err = 0;
	struct site_proc s;
	int ds, fd, it_here, it_there;

	ASSERT_EQ(0, transient(-1, here, &it_here));
	ASSERT_EQ(0, site_start(&s, NULL));
	fd = c_connect(s.port[2], &ds);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, transient(fd, there, &it_there));
	m[0] = 99;
	EXPECT_EQ(0, put(fd, m, sizeof(m)));
	close(fd);
	EXPECT_EQ(0, site_stop(&s));
	for (int k = 0; k < TR_STEPS; k++)
		for (int i = 0; i < 3; i++) {
			peak = fmax(peak, fabs(here[k][i]));
			err = fmax(err, fabs(here[k][i] - there[k][i]));
		}
	TH_LOG("peak %.6g, largest difference %.3g, Newton iterations %d here, %d through the site",
	       peak, err, it_here, it_there);
	/* the springs yield: a nonlinear response, not a trivial one */
	EXPECT_TRUE(peak > 0.05);
	EXPECT_EQ(it_here, it_there);
	EXPECT_EQ(0, memcmp(here, there, sizeof(here)));
}

/*
 * examples/opensees/site.json (its ports made 0) serves what the
 * example scripts send: GenericClient on the two element substructures
 * (the left column's bilinear spring, without C v; its damping), the
 * ShadowExpSite open on the site one, ECGenericTCP's header, a trial
 * and the daq on the controller one.
 */
TEST(opensees_example_site)
{
	int32_t hdr2[11] = { 2, 2, 2, 0, 1, 0, 0, 0, 2, 0, NS };
	int32_t hdrb[11] = { 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, NS };
	double m[NS] = { 0 }, r[NS], f[2], u[2] = { 0, 0.3 };
	double v[2] = { 0, 2.0 }, cd[4] = { 0.01, -0.01, -0.01, 0.01 };
	struct rths_hs_element_params p;
	struct rths_hs_element el;
	char json[4096], *port;
	struct site_proc s;
	size_t len;
	int32_t one = 1, peer;
	FILE *file = fopen("examples/opensees/site.json", "r");
	int fd;

	ASSERT_NE(NULL, file);
	len = fread(json, 1, sizeof(json) - 1, file);
	fclose(file);
	json[len] = 0;
	while ((port = strstr(json, "\"port\": 809")))
		memcpy(port + 8, "   0", 4);
	ASSERT_EQ(0, site_proc_start(&s, json, 4, NULL));

	/* left column: u1 - u0 = 0.3 past the yield (1.5 / 2.8) */
	rths_hs_element_defaults(&p, RTHS_HS_ELEMENT_BILINEAR, 2.8, 1.5);
	p.alpha = 0.01;
	rths_hs_element_init(&el, &p, 1, 0);
	f[1] = rths_hs_element_trial(&el, u[1] - u[0]);
	f[0] = -f[1];
	fd = dial(s.port[0]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdr2, sizeof(hdr2)));
	m[0] = 3;
	memcpy(m + 1, u, sizeof(u));
	memcpy(m + 3, v, sizeof(v));
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	ASSERT_EQ(0, c_ask(fd, m, 10, r));
	EXPECT_EQ(0, memcmp(r, f, sizeof(f)));
	ASSERT_EQ(0, c_ask(fd, m, 14, r));
	EXPECT_EQ(0, memcmp(r, cd, sizeof(cd)));
	m[0] = 99;
	EXPECT_EQ(0, put(fd, m, sizeof(m)));
	close(fd);

	/* right column, element: 5.6 (u1 - u0) */
	fd = dial(s.port[3]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdr2, sizeof(hdr2)));
	m[0] = 3;
	memcpy(m + 1, u, sizeof(u));
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	ASSERT_EQ(0, c_ask(fd, m, 10, r));
	EXPECT_EQ(-5.6 * 0.3, r[0]);
	EXPECT_EQ(5.6 * 0.3, r[1]);
	m[0] = 99;
	EXPECT_EQ(0, put(fd, m, sizeof(m)));
	close(fd);

	/* right column, ShadowExpSite: the handshake and open [1, 1, 2.8] */
	fd = dial(s.port[1]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, &one, 4));
	ASSERT_EQ(0, get(fd, &peer, 4));
	EXPECT_EQ(1, peer);
	memset(m, 0, sizeof(m));	/* open goes in 256 doubles */
	m[0] = 1;
	m[1] = 1;
	m[2] = 2.8;
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	ASSERT_EQ(0, get(fd, r, sizeof(r)));
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(1, r[1]);
	close(fd);

	/* right column, GenericTCP: disp out, disp and force back */
	fd = dial(s.port[2]);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(fd, hdrb, sizeof(hdrb)));
	memset(m, 0, sizeof(m));
	m[0] = 3;
	m[1] = 0.25;
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	m[0] = 6;
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	ASSERT_EQ(0, get(fd, r, sizeof(r)));
	EXPECT_EQ(0.25, r[0]);
	EXPECT_EQ(5.6 * 0.25, r[1]);
	m[0] = 99;
	EXPECT_EQ(0, put(fd, m, sizeof(m)));
	close(fd);
	EXPECT_EQ(0, site_stop(&s));
}

/* Several sessions at once: A, B and C clients interleaved. */
TEST(sessions_at_once)
{
	struct site_proc s;
	int ds1, ds2, fa, fb;
	double m[NS] = { 3, 1, 2, 0, 0, 0, 0, 0.5 }, r[NS];

	ASSERT_EQ(0, site_start(&s, NULL));
	fa = a_connect(s.port[0], 256, &ds1);
	fb = a_connect(s.port[0], 256, &ds2);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, put(fa, m, sizeof(m)));
	ASSERT_EQ(0, c_session(_metadata, s.port[2]));
	m[1] = -1;
	ASSERT_EQ(0, put(fb, m, sizeof(m)));
	m[0] = 6;
	ASSERT_EQ(0, put(fa, m, sizeof(m)));
	ASSERT_EQ(0, get(fa, r, sizeof(r)));
	EXPECT_EQ(1, r[0]);	/* fa's own trial, not fb's */
	ASSERT_EQ(0, put(fb, m, sizeof(m)));
	ASSERT_EQ(0, get(fb, r, sizeof(r)));
	EXPECT_EQ(-1, r[0]);
	close(fa);
	close(fb);
	EXPECT_EQ(0, site_stop(&s));
}

/* A big-endian client's 1 is accepted; the site answers its native 1
 * and the client, being the big-endian side, swaps. */
TEST(protocol_a_other_endian_handshake)
{
	struct site_proc s;
	int32_t swapped = 0x01000000, peer;
	double v[NS] = { 1, 7, 2.8 }, r[NS];
	int fd;

	ASSERT_EQ(0, site_start(&s, NULL));
	fd = dial(s.port[0]);
	ASSERT_EQ(0, put(fd, &swapped, 4));
	ASSERT_EQ(0, get(fd, &peer, 4));
	EXPECT_EQ(1, peer);
	ASSERT_EQ(0, put(fd, v, sizeof(v)));
	ASSERT_EQ(0, get(fd, r, sizeof(r)));
	EXPECT_EQ(11, r[1]);
	close(fd);
	EXPECT_EQ(0, site_stop(&s));
}

/* --------------------------------------------- Simulink GenericClient */

/*
 * OpenFresco's Simulink block (SFun_GenericClient.c, a client of
 * SimAppSiteServer) on the controller (B) and element (C) ports:
 * mdlStart sends the 11-int header {n, n, n, 0, 0, n, 0, 0, n, 0,
 * dataSize} (trial disp, vel, accel; daq disp and force); each
 * mdlOutputs sends [5] when time advanced (not at the first output),
 * then [3, u, zero vel, zero accel] and [6], and reads dataSize doubles:
 * the daq displacement, then the force; mdlTerminate sends [99] and
 * closes.  The forces are the model's to the bit (vel and accel zero),
 * the springs' state follows the commits, and the site logs no warning
 * (before: "action 5 ignored" on B, once a step).
 */
static void simulink_run(struct __test_metadata *_metadata,
			 struct site_proc *s, int port, int n, int ds,
			 const double *k, const double *c, const double *m,
			 struct rths_hs_element *el, int nel, int steps)
{
	int32_t hdr[11] = { n, n, n, 0, 0, n, 0, 0, n, 0, ds };
	double *msg = calloc(ds, sizeof(double)), *r = calloc(ds, sizeof(double));
	double u[3], zero[3] = { 0 }, f[3];
	int fd = dial(port);
	char line[1024];
	int alerts = 0;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, msg);
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	for (int step = 0; step < steps; step++) {
		for (int i = 0; i < n; i++)
			u[i] = 0.03 * sin(0.05 * step + i) * (1 + step / 100);
		if (step > 0) {
			msg[0] = 5;
			ASSERT_EQ(0, put(fd, msg, ds * sizeof(double)));
			springs_commit(el, nel, msg + 1);
		}
		memset(msg, 0, ds * sizeof(double));
		msg[0] = 3;
		memcpy(msg + 1, u, n * sizeof(double));
		ASSERT_EQ(0, put(fd, msg, ds * sizeof(double)));
		msg[0] = 6;
		ASSERT_EQ(0, put(fd, msg, ds * sizeof(double)));
		ASSERT_EQ(0, get(fd, r, ds * sizeof(double)));
		/* B answers K u + C v + M a, C K u + C v: v and a are 0. */
		ref_force(k, c, m, n, u, zero, m ? zero : NULL, f);
		springs_add(el, nel, u, f);
		ASSERT_EQ(0, memcmp(r, u, n * sizeof(double)));
		ASSERT_EQ(0, memcmp(r + n, f, n * sizeof(double)));
		for (int i = 2 * n; i < ds; i++)
			ASSERT_EQ(0, r[i]);
		msg[0] = 3;	/* the commit's slots hold the trial */
	}
	msg[0] = 99;
	ASSERT_EQ(0, put(fd, msg, ds * sizeof(double)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	while (site_alert_line(s, 300, line, sizeof(line))) {
		if (!alerts)
			TH_LOG("%s", line);
		alerts++;
	}
	TH_LOG("port %d: %d steps, %d warning lines", port, steps, alerts);
	EXPECT_EQ(0, alerts);
	free(msg);
	free(r);
}

TEST(simulink_generic_client)
{
	struct rths_hs_element el[2];
	struct site_proc s;

	ASSERT_EQ(0, site_start(&s, NULL));
	/* B: ECGenericTCP's fixed 256 doubles, so dataSize 256. */
	simulink_run(_metadata, &s, s.port[1], 2, NS, &KA[0][0], &CA[0][0],
		     &MA[0][0], el, springs_b(el), 300);
	/* C: the element port takes the header's dataSize (1 + 3n = 10
	 * here; at least n * n for the matrices). */
	simulink_run(_metadata, &s, s.port[2], 3, 10, &KC[0][0], &CC[0][0],
		     NULL, el, springs_c(el), 300);
	EXPECT_EQ(0, site_stop(&s));
}

/* Actions a client's kind never sends are ignored with one warning per
 * code and session, however often they come (before: one a message). */
TEST(ignored_action_told_once)
{
	int32_t hdr[11] = { 2, 2, 2, 0, 1, 2, 0, 0, 2, 1, 256 };
	double m[NS] = { 0 };
	struct site_proc s;
	char line[1024];
	int fd, lines = 0, l7 = 0, l12 = 0;

	ASSERT_EQ(0, site_start(&s, NULL));
	for (int session = 0; session < 2; session++) {
		fd = dial(s.port[1]);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
		for (int i = 0; i < 50; i++) {
			m[0] = i % 2 ? 7 : 12;
			ASSERT_EQ(0, put(fd, m, sizeof(m)));
		}
		m[0] = 99;
		ASSERT_EQ(0, put(fd, m, sizeof(m)));
		EXPECT_EQ(1, closed(fd));
		close(fd);
	}
	while (site_alert_line(&s, 300, line, sizeof(line))) {
		lines++;
		l7 += !!strstr(line, "action 7 ignored");
		l12 += !!strstr(line, "action 12 ignored");
	}
	TH_LOG("100 ignored messages in 2 sessions: %d warning lines", lines);
	EXPECT_EQ(4, lines);
	EXPECT_EQ(2, l7);
	EXPECT_EQ(2, l12);
	EXPECT_EQ(0, site_stop(&s));
}

/* ------------------------------------------------------- bad peers */

/* The site logs exactly one error line for the bad peer, containing 'what',
 * and a good element client is served afterwards. */
static void expect_one_line(struct __test_metadata *_metadata,
			    struct site_proc *s, const char *what)
{
	char line[1024];

	ASSERT_NE(NULL, site_alert_line(s, IO_MS, line, sizeof(line)));
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, what));
	EXPECT_NE(NULL, strstr(line, "session ended"));
	ASSERT_EQ(0, c_session(_metadata, s->port[2]));
	EXPECT_EQ(NULL, site_alert_line(s, 100, line, sizeof(line)));
}

FIXTURE(bad) {
	struct site_proc s;
};

FIXTURE_SETUP(bad)
{
	static const char *const args[] = { "-t", "400", NULL };

	ASSERT_EQ(0, site_start(&self->s, args));
}

FIXTURE_TEARDOWN(bad)
{
	EXPECT_EQ(0, site_stop(&self->s));
}

TEST_F(bad, wrong_version)
{
	double v[NS] = { 1, 7, 2.7 }, r[NS];
	int32_t one = 1, peer;
	int fd = dial(self->s.port[0]);

	ASSERT_EQ(0, put(fd, &one, 4));
	ASSERT_EQ(0, get(fd, &peer, 4));
	ASSERT_EQ(0, put(fd, v, sizeof(v)));
	/* Answered first, so that the client can say why; then closed. */
	ASSERT_EQ(0, get(fd, r, sizeof(r)));
	EXPECT_EQ(2.8, r[2]);
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "wrong version");
}

TEST_F(bad, garbage_bytes)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	int fd = dial(self->s.port[0]);

	ASSERT_EQ(0, put(fd, http, sizeof(http) - 1));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "garbage");
}

TEST_F(bad, garbage_action_code)
{
	double m[NS] = { 1e300 };
	int ds, fd = c_connect(self->s.port[2], &ds);

	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "garbage");
}

TEST_F(bad, short_message_then_close)
{
	double m[NS] = { 3 };
	int ds, fd = c_connect(self->s.port[2], &ds);

	ASSERT_EQ(0, put(fd, m, sizeof(m) / 2));
	close(fd);
	expect_one_line(_metadata, &self->s, "short message");
}

TEST_F(bad, short_message_stalls)
{
	double m[NS] = { 3 };
	int ds, fd = c_connect(self->s.port[2], &ds);

	ASSERT_EQ(0, put(fd, m, 100));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "timeout");
}

TEST_F(bad, oversized_message)
{
	/* Twice dataSize: the second half starts with no action code. */
	static double m[2 * NS];
	double r[NS];
	int ds, fd = c_connect(self->s.port[2], &ds);

	m[0] = 10;
	for (int k = NS; k < 2 * NS; k++)
		m[k] = -123.456;
	ASSERT_EQ(0, put(fd, m, sizeof(m)));
	ASSERT_EQ(0, get(fd, r, sizeof(r)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "garbage");
}

TEST_F(bad, absurd_data_size)
{
	int32_t hdr[11] = { 3, 3, 3, 0, 1, 0, 0, 0, 3, 0, 1 << 30 };
	int fd = dial(self->s.port[2]);

	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "absurd");
}

TEST_F(bad, absurd_sizes)
{
	int32_t hdr[11] = { 1000000, 0, 0, 0, 1, 2, 0, 0, 2, 1, 256 };
	int fd = dial(self->s.port[1]);

	ASSERT_EQ(0, put(fd, hdr, sizeof(hdr)));
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "absurd");
}

/*
 * A trial passes the substructures' one check (sub_check_input), as a
 * native STEP does, on ports A, B and C: a value that is not finite, in
 * any slot, ends the session with one line naming it, and so does a
 * trial whose forces overflow (asked by [6]); other sessions go on.
 */
TEST_F(bad, trial_values_checked)
{
	static const struct {
		int slot;	/* index after the code, in units of n; -1 time */
		int dof;
		double x;
		const char *what;
	} rows[] = {
		{ 0, 0, NAN, "trial refused: displacement 0 is nan: not a finite number" },
		{ 0, 1, INFINITY, "trial refused: displacement 1 is inf" },
		{ 1, 1, -INFINITY, "trial refused: velocity 1 is -inf" },
		{ 2, 0, NAN, "trial refused: acceleration 0 is nan" },
		{ -1, 0, NAN, "trial refused: time is nan" },
		{ 0, 0, 1e308, "trial refused: force 0 is" },
	};
	int32_t hdr_b[11] = { 2, 2, 2, 0, 1, 2, 0, 0, 2, 1, 256 };

	for (int port = 0; port < 3; port++) {
		int n = port == 2 ? 3 : 2;

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			double m[NS] = { 3, 0.001, 0.002, 0.003 };
			int ds = NS, fd;

			if (port == 0)
				fd = a_connect(self->s.port[0], NS, &ds);
			else if (port == 1)
				fd = dial(self->s.port[1]);
			else
				fd = c_connect(self->s.port[2], &ds);
			ASSERT_LE(0, fd);
			if (port == 1)
				ASSERT_EQ(0, put(fd, hdr_b, sizeof(hdr_b)));
			if (rows[i].slot < 0)
				m[1 + 3 * n] = rows[i].x;
			else
				m[1 + rows[i].slot * n + rows[i].dof] =
					rows[i].x;
			ASSERT_EQ(0, put(fd, m, ds * sizeof(double)));
			m[0] = 6;
			put(fd, m, ds * sizeof(double));
			EXPECT_EQ(1, closed(fd));
			close(fd);
			expect_one_line(_metadata, &self->s, rows[i].what);
		}
	}
}

TEST_F(bad, silent_peer)
{
	int fd = dial(self->s.port[0]);
	char line[1024];

	/* Others are served while it sits there... */
	ASSERT_EQ(0, c_session(_metadata, self->s.port[2]));
	EXPECT_EQ(NULL, site_alert_line(&self->s, 10, line, sizeof(line)));
	/* ...and it is ended by the timeout. */
	EXPECT_EQ(1, closed(fd));
	close(fd);
	expect_one_line(_metadata, &self->s, "timeout");
}

/* ------------------------------------------------------ round trip */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Mean seconds per step 3, 6 on protocol A (Nagle on, as OpenFresco). */
static double a_round_trip(struct __test_metadata *_metadata,
			   const char *const *args, int steps)
{
	struct site_proc s;
	double m[NS] = { 0 }, r[NS], t0;
	int ds, fd;

	if (site_start(&s, args))
		return -1;
	fd = a_connect(s.port[0], 256, &ds);
	if (fd < 0)
		return -1;
	t0 = now_s();
	for (int i = 0; i < steps; i++) {
		m[0] = 3;
		m[1] = i * 1e-3;
		if (put(fd, m, sizeof(m)))
			return -1;
		m[0] = 6;
		if (put(fd, m, sizeof(m)) || get(fd, r, sizeof(r)))
			return -1;
		EXPECT_EQ(i * 1e-3, r[0]);
	}
	t0 = now_s() - t0;
	close(fd);
	site_stop(&s);
	return t0 / steps;
}

TEST(round_trip_quickack)
{
	static const char *const off[] = { "--no-quickack", NULL };
	static const char *const on[] = { NULL };
	double with = a_round_trip(_metadata, on, 200);
	double without = a_round_trip(_metadata, off, 20);

	ASSERT_LT(0, with);
	ASSERT_LT(0, without);
	/* Measured, not asserted: the machine's load decides. */
	TH_LOG("per-step round trip [3],[6] on loopback: %.3f ms with TCP_QUICKACK re-armed, %.3f ms without",
	       with * 1e3, without * 1e3);
}

/* --------------------------------------------------------- site file */

static int run_on(const char *json, char *err, size_t size)
{
	return site_proc_run(json, NULL, err, size);
}

TEST(site_file_errors_name_the_path)
{
	char err[1024];

	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"p\",\"protocol\":\"element\",\"port\":0,\"dof\":2,\"stiffness\":[[1,2],[\"x\",4]]}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [field] substructures[0].stiffness[1][0]: expected a finite number"));
	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"p\",\"protocol\":\"tcp\",\"port\":0,\"dof\":1,\"stiffness\":[[1]]}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [value] substructures[0].protocol: expected"));
	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"p\",\"protocol\":\"site\",\"port\":0,\"dof\":1,\"stiffness\":[[1]],\"stifness\":1}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [field] substructures[0].stifness: unknown field"));
	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"a b\",\"protocol\":\"native\",\"port\":0,\"dof\":1,\"stiffness\":[[1]]}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [value] substructures[0].name: only printable ASCII"));
	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"a\",\"protocol\":\"native\",\"tag\":2,\"port\":0,\"dof\":1,\"stiffness\":[[1]]}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [value] substructures[0].tag: only OpenFresco's site protocol"));
	EXPECT_EQ(1, run_on("{\"substructures\":[\n{,}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json:2:2: [syntax] "));
	TH_LOG("%s", err);
}

/* The poll set has room for 64 listeners: a 65th is refused by name. */
TEST(at_most_64_substructures)
{
	char json[8192], err[1024];
	int k = snprintf(json, sizeof(json), "{\"substructures\":[");

	for (int i = 0; i < 65; i++)
		k += snprintf(json + k, sizeof(json) - k,
			      "%s{\"name\":\"p%d\",\"protocol\":\"site\",\"port\":0,\"dof\":1,\"stiffness\":[[1]]}",
			      i ? "," : "", i);
	snprintf(json + k, sizeof(json) - k, "]}");
	EXPECT_EQ(1, run_on(json, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "json: [value] substructures: expected at most 64"));
}

/* Plain TCP off loopback only when named, and then with a warning.  The
 * address is TEST-NET-1 (RFC 5737), never this host's, so the test never
 * listens off loopback: the bind fails after the warning. */
TEST(address_named_is_warned)
{
	char err[1024];

	EXPECT_EQ(1, run_on("{\"substructures\":[{\"name\":\"p\",\"protocol\":\"site\",\"address\":\"192.0.2.1\",\"port\":0,\"dof\":1,\"stiffness\":[[1]]}]}", err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "warning: p: address 192.0.2.1 is not loopback"));
	EXPECT_NE(NULL, strstr(err, "error: p: cannot listen on 192.0.2.1:0"));
	TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
