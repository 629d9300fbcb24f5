// SPDX-License-Identifier: GPL-2.0
/*
 * An ODE substructure's step allocates no memory: with a device backend
 * it runs in the real-time loop, where malloc() can take a lock or fault
 * pages in.  Steps 9 to 256 of every kind (the chain, the damper, the
 * pendulum TMD in I3, SI2 and SI1) are counted; their results are those
 * of the public functions, which keep their per-call workspaces.
 *
 * Counting: the plain build defines malloc, calloc and realloc over
 * glibc's __libc_* (every caller in the process, BLAS and LAPACK
 * included); under ASan, whose allocator replaces malloc, its
 * allocation hook does the counting.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kselftest_harness.h"
#include <rths/hs.h>
#include <rths/hs_odesub.h>

static volatile unsigned long n_allocs;

#if defined(__SANITIZE_ADDRESS__)
int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *));

static void count_malloc(const volatile void *p, size_t n)
{
	(void)p;
	(void)n;
	n_allocs++;
}

/* ASan installs the hooks only as a pair */
static void no_free_hook(const volatile void *p)
{
	(void)p;
}

static void counting_on(void)
{
	static int on;

	if (!on)
		on = __sanitizer_install_malloc_and_free_hooks(count_malloc,
							       no_free_hook);
}
#else
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void *malloc(size_t n);
void *calloc(size_t n, size_t m);
void *realloc(void *p, size_t n);

void *malloc(size_t n)
{
	n_allocs++;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	n_allocs++;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	n_allocs++;
	return __libc_realloc(p, n);
}

static void counting_on(void)
{
}
#endif

/* The example @file with ode_substructures[0].form = @form (NULL: as
 * it is). */
static struct rths_hs_experiment *load(const char *file, const char *form)
{
	struct rths_hs_experiment *x = NULL;
	struct rths_error e;
	json_error_t je;
	char path[512], *text;
	json_t *root;

	snprintf(path, sizeof(path), "%s/%s", RTHS_HS_EXAMPLES, file);
	root = json_load_file(path, 0, &je);
	if (!root)
		return NULL;
	if (form)
		json_object_set_new(json_array_get(json_object_get(root,
				    "ode_substructures"), 0), "form",
				    json_string(form));
	text = json_dumps(root, 0);
	json_decref(root);
	if (text && rths_hs_experiment_parse(text, file, RTHS_HS_EXAMPLES,
					     &x, &e) < 0)
		x = NULL;
	free(text);
	return x;
}

/* Allocations in steps 9..256 of substructure @i of @x, the roof moving
 * and the ground shaking. */
static long allocs_per_run(struct __test_metadata *_metadata,
			   struct rths_hs_experiment *x, size_t i)
{
	struct rths_hs_odesub *s = x->odesubs[i];
	double u[16] = { 0 }, v[16] = { 0 }, r[16];
	struct rths_error e;
	unsigned long c0 = 0;
	double force = 0;

	ASSERT_GE(16U, x->model.n);
	ASSERT_EQ(0, rths_hs_odesub_start(s, 0, u, v, 0, 300, &e))
		TH_LOG("%s", e.msg);
	counting_on();
	for (int k = 1; k <= 256; k++) {
		for (size_t d = 0; d < x->model.n; d++)
			u[d] = 0.01 * (double)(d + 1) * sin(0.05 * k);
		memset(r, 0, sizeof(r));
		if (k == 9)
			c0 = n_allocs;
		ASSERT_EQ(0, rths_hs_odesub_step(s, k / 1024.0, u,
						 0.5 * sin(0.03 * k), r, &e))
			TH_LOG("step %d: %s", k, e.msg);
		for (size_t d = 0; d < x->model.n; d++)
			force += fabs(r[d]);
	}
	/* the steps did something */
	EXPECT_GT(force, 0);
	return (long)(n_allocs - c0);
}

/* The counting itself: an allocation is seen, in either build. */
TEST(counting_sees_an_allocation)
{
	void *volatile p;
	unsigned long c0;

	counting_on();
	c0 = n_allocs;
	p = malloc(64);
	free(p);
	EXPECT_LE(c0 + 1, n_allocs);
}

TEST(chain_and_damper_steps_allocate_nothing)
{
	struct rths_hs_experiment *x = load("two-story-frame-chain.json",
					    NULL);

	ASSERT_NE(NULL, x);
	ASSERT_EQ(2U, x->n_odesubs);
	EXPECT_EQ(0, allocs_per_run(_metadata, x, 0));
	EXPECT_EQ(0, allocs_per_run(_metadata, x, 1));
	rths_hs_experiment_free(x);
}

TEST(multibody_steps_allocate_nothing)
{
	static const char *const forms[] = { "i3", "si2", "si1" };

	for (int f = 0; f < 3; f++) {
		struct rths_hs_experiment *x = load("two-story-frame-tmd.json",
						    forms[f]);
		long n;

		ASSERT_NE(NULL, x);
		n = allocs_per_run(_metadata, x, 0);
		EXPECT_EQ(0, n) TH_LOG("%s: %ld allocations", forms[f], n);
		rths_hs_experiment_free(x);
	}
}

TEST_HARNESS_MAIN
