/* SPDX-License-Identifier: GPL-2.0 */
/* bench-hs: what its two parts (bench_hs_step.c, frame.c) share. */
#ifndef RTHS_BENCH_HS_H
#define RTHS_BENCH_HS_H

#include <stddef.h>

#include <rths/hs.h>

#define BENCH_HS_BATCHES 7

double bench_hs_now(void);
double bench_hs_median(double *v, int n);
/* A stepper of method @m at 1/1024 s, started (exits on failure). */
struct rths_hs_stepper *bench_hs_stepper(struct rths_hs_model *mo,
					 enum rths_hs_method m);
/* The same for a sparse model (rths_hs_stepper_new_sparse()). */
struct rths_hs_stepper *bench_hs_stepper_sparse(struct rths_hs_sparse_model *mo,
						enum rths_hs_method m);
/* Time of one step (command + accept), over @reps steps of the ground
 * motion from step *@k on (f = -sin(0.01 k) M r, M r in @mr). */
double bench_hs_step_batch(struct rths_hs_stepper *st, double *f,
			   const double *mr, long reps, long *k);
/* Median time of one step (command + accept), batches of @reps. */
double bench_hs_time_steps(struct rths_hs_model *mo, enum rths_hs_method m,
			   double *f, const double *mr, long reps);
/* The frame part: a frame of about @dofs DOF, dense up to @dense_max;
 * the methods' sparse step and floor times, the DOF and the nonzeros of
 * CR's KLU factors (what one solve reads), out. */
#define BENCH_HS_FRAME_METHODS 6
extern const enum rths_hs_method bench_hs_frame_methods[BENCH_HS_FRAME_METHODS];
void bench_hs_frame(size_t dofs, size_t dense_max, double *sparse,
		    double *floor, size_t *n_out, size_t *factor_nnz_out);
/* Where the frame's matrices go (frame.c): dense, or triplets. */
struct frame_sink;
void bench_frame_element(struct frame_sink *K, long a, long b, double dx,
			 double dy, double E, double A, double I);

#endif /* RTHS_BENCH_HS_H */
