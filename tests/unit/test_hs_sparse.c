// SPDX-License-Identifier: GPL-2.0
/*
 * The stepper's sparse path (lib/hs/stepper_sparse.c): every method on a
 * large sparse model (shear buildings of 300 stories with a consistent,
 * non-diagonal mass matrix, Rayleigh damping, a specimen estimate and a
 * yielding element) gives the dense path's response step by step; dense
 * and small models stay dense.  The same building given as a sparse
 * model (triplets, rths_hs_stepper_new_sparse()) gives it too; bad
 * triplets are refused by name; a 400,000-DOF chain steps without an
 * n x n array (that would be 1.3 TB).
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include <rths/hs.h>

#include "hs/integrator_impl.h"

#define N 300

/* Stories of 1000 kg and 2e6 .. 1e6 N/m, mass coupled to the floor
 * below (a banded, consistent M), Rayleigh damping, a bilinear spring
 * between the top two floors. */
static void building(struct __test_metadata *_metadata,
		     struct rths_hs_model *mo, int element)
{
	double mass[N], stiff[N];

	for (size_t i = 0; i < N; i++) {
		mass[i] = 1000;
		stiff[i] = 2e6 - 1e6 * (double)i / N;
	}
	ASSERT_EQ(0, rths_hs_model_shear_building(mo, N, mass, stiff, NULL));
	for (size_t i = 0; i + 1 < N; i++) {
		mo->m[i * N + i + 1] = 100;
		mo->m[(i + 1) * N + i] = 100;
	}
	rths_hs_model_set_rayleigh(mo, 0.3, 1e-3);
	if (element) {
		struct rths_hs_element_params ep;

		rths_hs_element_defaults(&ep, RTHS_HS_ELEMENT_BILINEAR, 5e5,
					 2e3);
		ASSERT_EQ(0, rths_hs_model_add_element(mo, N - 1, N - 2, &ep,
						       NULL));
	}
}

/* A dense model's nonzeros as triplets, each given once, or each split
 * in two halves (exact in binary) given twice if @split. */
struct trip {
	size_t row[3 * N * N], col[3 * N * N];
	double val[3 * N * N];
	struct rths_hs_triplets t[3];
};

static void to_triplets(const struct rths_hs_model *mo, struct trip *tr,
			int split)
{
	const double *A[3] = { mo->m, mo->k, mo->c };
	size_t q = 0;

	for (int a = 0; a < 3; a++) {
		tr->t[a].row = tr->row + q;
		tr->t[a].col = tr->col + q;
		tr->t[a].val = tr->val + q;
		for (size_t j = 0; j < N; j++)
			for (size_t i = 0; i < N; i++) {
				double x = A[a][j * N + i];

				for (int h = 0; x != 0 && h <= split; h++) {
					tr->row[q] = i;
					tr->col[q] = j;
					tr->val[q++] = split ? x / 2 : x;
				}
			}
		tr->t[a].nnz = (size_t)(tr->row + q - tr->t[a].row);
	}
}

/* The model @mo as a sparse model over @tr, sharing its elements. */
static void sparse_model(const struct rths_hs_model *mo, struct trip *tr,
			 int split, struct rths_hs_sparse_model *sm)
{
	to_triplets(mo, tr, split);
	*sm = (struct rths_hs_sparse_model){
		.n = mo->n, .m = tr->t[0], .k = tr->t[1], .c = tr->t[2],
		.r = mo->r, .n_elements = mo->n_elements,
		.elements = mo->elements,
	};
}

/* How run() gives the model to the stepper. */
enum given { DENSE_MODEL, SPARSE_MODEL, SPARSE_MODEL_SPLIT };

/* Run 300 steps of a 2 Hz ground shake; u (N x steps) gets the history. */
static void run(struct __test_metadata *_metadata, struct rths_hs_model *mo,
		enum rths_hs_method m, size_t min_dofs, int with_est,
		double *hist, int *sparse, enum given given)
{
	static const size_t zero = 0;
	static const double k_est = 1e5;
	/* the specimen's stiffness estimate on the ground story */
	struct rths_hs_sparse_estimate sest = {
		.k = { .nnz = 1, .row = &zero, .col = &zero, .val = &k_est },
	};
	struct rths_hs_specimen_estimate est = { 0 };
	double *kest = calloc(N * N, sizeof(double));
	double mr[N], f[N], dt = 1.0 / 256;
	struct rths_hs_stepper_params p;
	struct rths_hs_sparse_model sm;
	struct rths_hs_stepper *st;
	struct trip *tr = malloc(sizeof(*tr));
	struct rths_error err;
	char buf[256];

	ASSERT_NE(NULL, kest);
	ASSERT_NE(NULL, tr);
	kest[0] = k_est;
	est.k = kest;
	rths_hs_sparse_min_dofs = min_dofs;
	rths_hs_stepper_defaults(&p, m, dt);
	if (given == DENSE_MODEL) {
		ASSERT_EQ(0, rths_hs_stepper_new(&st, mo,
						 with_est ? &est : NULL, &p,
						 &err))
			TH_LOG("%s", rths_error_str(&err, buf, sizeof(buf)));
		rths_hs_model_ground_force(mo, -1.0, mr);
	} else {
		double mr_dense[N];

		sparse_model(mo, tr, given == SPARSE_MODEL_SPLIT, &sm);
		ASSERT_EQ(0, rths_hs_stepper_new_sparse(&st, &sm,
							with_est ? &sest : NULL,
							&p, &err))
			TH_LOG("%s", rths_error_str(&err, buf, sizeof(buf)));
		rths_hs_sparse_model_ground_force(&sm, -1.0, mr);
		rths_hs_model_ground_force(mo, -1.0, mr_dense);
		for (size_t i = 0; i < N; i++)
			ASSERT_TRUE(fabs(mr[i] - mr_dense[i]) <=
				    1e-12 * fabs(mr_dense[i]));
		/* the stepper does not read the triplets again */
		memset(tr, 0xff, sizeof(*tr));
	}
	*sparse = st->sp != NULL;
	ASSERT_EQ(0, rths_hs_stepper_start(st, NULL, NULL, NULL, NULL, NULL));
	for (int k = 0; k < 300; k++) {
		double ag = 3 * sin(2 * M_PI * 2 * (k + 1) * dt);
		const double *u;
		/* a measured force that tracks the command (stiffer) */
		double rx[N] = { 0 };

		for (size_t i = 0; i < N; i++)
			f[i] = -ag * mr[i];
		ASSERT_EQ(0, rths_hs_stepper_command(st, f, &u, NULL));
		if (with_est)
			rx[0] = 1.2e5 * u[0];
		ASSERT_EQ(0, rths_hs_stepper_accept(st, with_est ? rx : NULL,
						    NULL));
		for (size_t i = 0; i < N; i++)
			hist[(size_t)k * N + i] = rths_hs_stepper_u(st)[i];
	}
	rths_hs_stepper_free(st);
	free(kest);
	free(tr);
	rths_hs_sparse_min_dofs = RTHS_HS_SPARSE_MIN_DOFS;
}

/* Largest difference of two histories, and the peak of the first. */
static double history_diff(const double *a, const double *b, double *peak)
{
	double d = 0;

	*peak = 0;
	for (size_t i = 0; i < 300 * N; i++) {
		d = fmax(d, fabs(b[i] - a[i]));
		*peak = fmax(*peak, fabs(a[i]));
	}
	return d;
}

/*
 * The dense path, the sparse path of the dense model, and the sparse
 * model (its triplets given once, and split in two).  The sparse paths
 * agree with the dense one to 1e-9 of the peak (KLU against LAPACK's LU
 * and inverses: different rounding, amplified by 300 steps).  The
 * sparse model against the dense model's sparse path: the same
 * compressed matrices and patterns, so the same KLU orderings and
 * factors; only the order in which K0's entries are summed (K, the
 * element, the estimate) may differ, by an ulp, so 1e-12 of the peak.
 */
static void compare(struct __test_metadata *_metadata,
		    enum rths_hs_method m, int element, int with_est)
{
	double *hs = malloc(300 * N * sizeof(double));
	double *hd = malloc(300 * N * sizeof(double));
	double *hm = malloc(300 * N * sizeof(double));
	struct rths_hs_model mo;
	double d, dm, peak;
	int sparse, dense, model_sparse;

	ASSERT_TRUE(hs && hd && hm);
	building(_metadata, &mo, element);
	run(_metadata, &mo, m, RTHS_HS_SPARSE_MIN_DOFS, with_est, hs, &sparse,
	    DENSE_MODEL);
	rths_hs_model_free(&mo);
	building(_metadata, &mo, element);
	run(_metadata, &mo, m, SIZE_MAX, with_est, hd, &dense, DENSE_MODEL);
	rths_hs_model_free(&mo);
	EXPECT_TRUE(sparse);
	EXPECT_FALSE(dense);
	d = history_diff(hd, hs, &peak);
	EXPECT_GT(peak, 1e-4);
	EXPECT_TRUE(d <= 1e-9 * peak)
		TH_LOG("%s element %d est %d: %g of %g",
		       rths_hs_method_name(m), element, with_est, d, peak);
	for (int split = 0; split < 2; split++) {
		/* whatever the cut-off: a sparse model is always sparse */
		building(_metadata, &mo, element);
		run(_metadata, &mo, m, SIZE_MAX, with_est, hm, &model_sparse,
		    split ? SPARSE_MODEL_SPLIT : SPARSE_MODEL);
		rths_hs_model_free(&mo);
		EXPECT_TRUE(model_sparse);
		dm = history_diff(hs, hm, &peak);
		EXPECT_TRUE(dm <= 1e-12 * peak)
			TH_LOG("%s element %d est %d split %d: sparse model %g of %g",
			       rths_hs_method_name(m), element, with_est,
			       split, dm, peak);
	}
	free(hs);
	free(hd);
	free(hm);
}

TEST(cr_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_CR, 0, 0);
	compare(_metadata, RTHS_HS_CR, 1, 1);
}

TEST(kr_alpha_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_KR_ALPHA, 0, 0);
	compare(_metadata, RTHS_HS_KR_ALPHA, 1, 1);
}

TEST(alpha_os_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_ALPHA_OS, 0, 0);
	compare(_metadata, RTHS_HS_ALPHA_OS, 1, 1);
}

/* The offline reference takes no measured force: no specimen estimate. */
TEST(newmark_implicit_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_NEWMARK_IMPLICIT, 0, 0);
	compare(_metadata, RTHS_HS_NEWMARK_IMPLICIT, 1, 0);
}

TEST(generalized_alpha_and_hht_sparse_match_dense)
{
	compare(_metadata, RTHS_HS_GENERALIZED_ALPHA, 0, 0);
	compare(_metadata, RTHS_HS_GENERALIZED_ALPHA, 1, 0);
	compare(_metadata, RTHS_HS_HHT_ALPHA, 1, 0);
}

/* dt omega_max is about 0.35 here, inside both explicit limits. */
TEST(newmark_explicit_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_NEWMARK_EXPLICIT, 0, 0);
	compare(_metadata, RTHS_HS_NEWMARK_EXPLICIT, 1, 1);
}

TEST(central_difference_sparse_matches_dense)
{
	compare(_metadata, RTHS_HS_CENTRAL_DIFFERENCE, 0, 0);
	compare(_metadata, RTHS_HS_CENTRAL_DIFFERENCE, 1, 1);
}

/* Dense matrices and small models stay dense, whatever the method. */
TEST(stays_dense)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;

	building(_metadata, &mo, 0);
	rths_hs_stepper_defaults(&p, RTHS_HS_ALPHA_OS, 1.0 / 256);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_NE(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_stepper_defaults(&p, RTHS_HS_CR, 1.0 / 256);
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_NE(NULL, st->sp);
	rths_hs_stepper_free(st);
	/* a full damping matrix */
	for (size_t i = 0; i < N * N; i++)
		mo.c[i] += 1e-3;
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_EQ(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);

	ASSERT_EQ(0, rths_hs_model_shear_building(&mo, 3,
		  (double[]){ 1, 1, 1 }, (double[]){ 1e3, 1e3, 1e3 }, NULL));
	ASSERT_EQ(0, rths_hs_stepper_new(&st, &mo, NULL, &p, NULL));
	EXPECT_EQ(NULL, st->sp);
	rths_hs_stepper_free(st);
	rths_hs_model_free(&mo);
}

/* A singular mass matrix is named, on the sparse path too. */
TEST(singular_mass)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_hs_model mo;
	struct rths_error err;
	char buf[256];

	building(_metadata, &mo, 0);
	mo.m[5 * N + 5] = 0;
	mo.m[5 * N + 4] = mo.m[4 * N + 5] = 0;
	mo.m[5 * N + 6] = mo.m[6 * N + 5] = 0;
	rths_hs_stepper_defaults(&p, RTHS_HS_KR_ALPHA, 1.0 / 256);
	EXPECT_EQ(-RTHS_E_SINGULAR, rths_hs_stepper_new(&st, &mo, NULL, &p,
							&err));
	rths_error_str(&err, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, "mass matrix")) TH_LOG("%s", buf);
	rths_hs_model_free(&mo);
}

/* A 3-DOF sparse model with one bad thing: refused, the matrix named. */
static void refused(struct __test_metadata *_metadata,
		    const struct rths_hs_sparse_model *sm,
		    const struct rths_hs_sparse_estimate *est, int code,
		    const char *path, const char *what)
{
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st = (void *)1;
	struct rths_error err = { 0 };
	char buf[512];

	rths_hs_stepper_defaults(&p, RTHS_HS_CR, 0.01);
	EXPECT_EQ(code, rths_hs_stepper_new_sparse(&st, (void *)sm, est, &p,
						   &err));
	EXPECT_EQ(NULL, st);
	EXPECT_STREQ(path, err.path);
	rths_error_str(&err, buf, sizeof(buf));
	EXPECT_NE(NULL, strstr(buf, what)) TH_LOG("%s", buf);
	/* the check does not factor */
	if (!est && code != -RTHS_E_SINGULAR) {
		memset(&err, 0, sizeof(err));
		EXPECT_EQ(code, rths_hs_sparse_model_check(sm, &err));
		EXPECT_STREQ(path, err.path);
	}
}

TEST(bad_triplets_refused)
{
	/* M = I, K the 3-DOF chain, C = 0 */
	size_t mi[] = { 0, 1, 2 };
	double mv[] = { 1, 1, 1 };
	size_t kr[] = { 0, 1, 0, 1, 2, 1, 2 }, kc[] = { 0, 0, 1, 1, 1, 2, 2 };
	double kv[] = { 2, -1, -1, 2, -1, -1, 1 };
	struct rths_hs_sparse_model good = {
		.n = 3,
		.m = { 3, mi, mi, mv },
		.k = { 7, kr, kc, kv },
	}, sm;
	struct rths_hs_element el;
	struct rths_hs_element_params ep;
	struct rths_hs_sparse_estimate est = { 0 };
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_error err;
	size_t big = 3;
	double nan_v = NAN;

	ASSERT_EQ(0, rths_hs_sparse_model_check(&good, NULL));
	rths_hs_stepper_defaults(&p, RTHS_HS_CR, 0.01);
	ASSERT_EQ(0, rths_hs_stepper_new_sparse(&st, &good, NULL, &p, NULL));
	rths_hs_stepper_free(st);

	/* a row, then a column, past the last DOF */
	sm = good;
	kr[4] = 3;
	refused(_metadata, &sm, NULL, -RTHS_E_BAD_DOF, "stiffness",
		"triplet 4 at (3, 1): expected a row and a column in 0..2");
	kr[4] = 2;
	mi[1] = 7;
	sm.m.col = (size_t[]){ 0, 1, 2 };
	refused(_metadata, &sm, NULL, -RTHS_E_BAD_DOF, "mass",
		"triplet 1 at (7, 1)");
	mi[1] = 1;
	/* not a number */
	sm = good;
	sm.c = (struct rths_hs_triplets){ 1, &big, &big, &nan_v };
	big = 1;
	refused(_metadata, &sm, NULL, -RTHS_E_NONFINITE, "damping",
		"triplet 0 at (1, 1) is nan: not a finite number");
	/* not symmetric: K(0, 1) given twice, summed to -2, K(1, 0) -1 */
	sm = good;
	kr[6] = 0;
	kc[6] = 1;
	kv[6] = -1;
	refused(_metadata, &sm, NULL, -RTHS_E_NOT_SYMMETRIC, "stiffness",
		"expected a symmetric matrix: (1, 0) = -1 but (0, 1) = -2");
	kr[6] = kc[6] = 2;
	kv[6] = 1;
	/* no arrays */
	sm = good;
	sm.k.row = NULL;
	refused(_metadata, &sm, NULL, -EINVAL, "stiffness",
		"7 triplets without their row, column or value arrays");
	/* an element to a DOF that is not there */
	rths_hs_element_defaults(&ep, RTHS_HS_ELEMENT_BILINEAR, 1, 1);
	rths_hs_element_init(&el, &ep, 2, 5);
	sm = good;
	sm.n_elements = 1;
	sm.elements = &el;
	refused(_metadata, &sm, NULL, -RTHS_E_BAD_DOF, "elements",
		"element 0 between DOFs 2 and 5");
	/* no DOF */
	sm = good;
	sm.n = 0;
	refused(_metadata, &sm, NULL, -RTHS_E_BAD_SHAPE, "n", "0 DOFs");
	/* a bad estimate, and an estimate where none can be used */
	est.k = (struct rths_hs_triplets){ 1, &big, &big, &nan_v };
	big = 2;
	refused(_metadata, &good, &est, -RTHS_E_NONFINITE, "estimate.k",
		"triplet 0 at (2, 2) is nan");
	est.k.val = mv;
	rths_hs_stepper_defaults(&p, RTHS_HS_NEWMARK_IMPLICIT, 0.01);
	EXPECT_EQ(-RTHS_E_UNSUPPORTED,
		  rths_hs_stepper_new_sparse(&st, &good, &est, &p, &err));
	EXPECT_STREQ("method", err.path);
	/* a singular mass, found by its factorization */
	mv[1] = 0;
	refused(_metadata, &good, NULL, -RTHS_E_SINGULAR, "",
		"the mass matrix is singular");
}

/* Repeated triplets are summed, in the order given; a sum of zero is
 * left out of the compressed matrix, as the dense path never stores it. */
TEST(repeated_triplets_summed_zeros_left_out)
{
	size_t mi[] = { 0, 1 };
	double mv[] = { 1, 1 };
	/* K(0, 0) = 3 + 1, K(1, 1) = 2, K(0, 1) = K(1, 0) = -1 + 1 */
	size_t kr[] = { 0, 0, 1, 0, 0, 1, 1 }, kc[] = { 0, 0, 1, 1, 1, 0, 0 };
	double kv[] = { 3, 1, 2, -1, 1, 1, -1 };
	struct rths_hs_sparse_model sm = {
		.n = 2, .m = { 2, mi, mi, mv }, .k = { 7, kr, kc, kv },
	};
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	const struct la_csc *k;

	rths_hs_stepper_defaults(&p, RTHS_HS_CR, 0.01);
	ASSERT_EQ(0, rths_hs_stepper_new_sparse(&st, &sm, NULL, &p, NULL));
	k = &st->sp->k.m;
	ASSERT_EQ(2, la_csc_nnz(k));
	EXPECT_EQ(0, k->rowind[0]);
	EXPECT_EQ(4.0, k->x[0]);
	EXPECT_EQ(1, k->rowind[1]);
	EXPECT_EQ(2.0, k->x[1]);
	EXPECT_EQ(0, la_csc_nnz(&st->sp->c.m));
	rths_hs_stepper_free(st);
}

/*
 * A chain of 400,000 DOF (unit masses, springs of 1e4 N/m, the first to
 * the ground) under a constant ground acceleration, by implicit Newmark:
 * its n x n matrices would take 1.3 TB each, so the stepper cannot have
 * formed one; away from the ends the DOFs move as a rigid body, and
 * average acceleration is exact for a constant acceleration:
 * u = -ag t^2 / 2.
 */
TEST(chain_of_400000_dofs)
{
	const size_t n = 400000;
	/* K's 3n - 2 triplets, then M's n */
	size_t *row = malloc(4 * n * sizeof(size_t));
	size_t *col = malloc(4 * n * sizeof(size_t));
	double *val = malloc(4 * n * sizeof(double));
	double *f = malloc(n * sizeof(double)), dt = 0.01, ag = 2.0;
	struct rths_hs_sparse_model sm = { .n = n };
	struct rths_hs_stepper_params p;
	struct rths_hs_stepper *st;
	struct rths_error err;
	size_t q = 0;
	char buf[256];

	ASSERT_TRUE(row && col && val && f);
	for (size_t i = 0; i < n; i++) {
		row[q] = col[q] = i;
		val[q++] = i + 1 < n ? 2e4 : 1e4;
		if (i + 1 < n) {
			row[q] = i;
			col[q] = i + 1;
			val[q++] = -1e4;
			row[q] = i + 1;
			col[q] = i;
			val[q++] = -1e4;
		}
	}
	sm.k = (struct rths_hs_triplets){ q, row, col, val };
	for (size_t i = 0; i < n; i++) {
		row[q + i] = col[q + i] = i;
		val[q + i] = 1.0;
	}
	sm.m = (struct rths_hs_triplets){ n, row + q, col + q, val + q };
	rths_hs_stepper_defaults(&p, RTHS_HS_NEWMARK_IMPLICIT, dt);
	ASSERT_EQ(0, rths_hs_stepper_new_sparse(&st, &sm, NULL, &p, &err))
		TH_LOG("%s", rths_error_str(&err, buf, sizeof(buf)));
	rths_hs_sparse_model_ground_force(&sm, ag, f);
	ASSERT_EQ(0, rths_hs_stepper_start(st, NULL, NULL, f, NULL, NULL));
	for (int k = 1; k <= 5; k++) {
		const double *u;
		double t = k * dt, want = -ag * t * t / 2;

		ASSERT_EQ(0, rths_hs_stepper_command(st, f, &u, NULL));
		ASSERT_EQ(0, rths_hs_stepper_accept(st, NULL, NULL));
		u = rths_hs_stepper_u(st);
		EXPECT_TRUE(fabs(u[n / 2] - want) <= 1e-9 * fabs(want))
			TH_LOG("step %d: %.17g, expected %.17g", k, u[n / 2],
			       want);
	}
	rths_hs_stepper_free(st);
	free(row);
	free(col);
	free(val);
	free(f);
}

TEST_HARNESS_MAIN
