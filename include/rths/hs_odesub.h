/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: ODE numerical substructures.
 *
 * A numerical substructure with its own state y, integrated by a lib/ode
 * method (rths/ode.h) between the hybrid steps and coupled to the global
 * model at interface DOFs by a partitioned, staggered scheme:
 *
 *   step n -> n+1 (t_n -> t_{n+1} = t_n + dt):
 *     1. the global integrator gives u_{n+1}, its command (the same
 *        displacement an experimental substructure is sent);
 *     2. the substructure's interface input over [t_n, t_{n+1}] is the
 *        displacement u_b, the velocity v_b = (u_{n+1} - u_n) / dt (the
 *        command's, so that u_b and v_b agree) and the ground
 *        acceleration a_g, either
 *          HOLD    u_b = u_{n+1}, a_g = a_g(t_{n+1})   (zero-order hold
 *                  of the step's command, as an actuator that jumps), or
 *          LINEAR  u_b and a_g linear from t_n to t_{n+1} (v_b is then
 *                  exactly the derivative of u_b); given the velocities
 *                  at the ends (rths_hs_odesub_step_vel(), as the
 *                  hybrid loop does), u_b is their cubic Hermite and
 *                  v_b its derivative: second order in dt;
 *     3. y is integrated from t_n to t_{n+1} (rths_ode_init() at t_n, then
 *        rths_ode_step() up to t_{n+1}: each hybrid step is a fresh
 *        start, so no history crosses the kink of the input at t_n);
 *     4. the interface force at t_{n+1} enters the global equation of
 *        motion as a restoring force, like the measured force of an
 *        experimental substructure.
 *
 * Kinds:
 *   CHAIN   masses m_0 .. m_{N-1} in a chain from DOF i: spring k_0 and
 *           dashpot c_0 join DOF i to m_0, k_j and c_j join m_{j-1} to
 *           m_j.  Coordinates relative to the ground, like the model's:
 *           each mass carries -m_j a_g.  y = (x_0..x_{N-1}, v_0..v_{N-1});
 *           the force on DOF i is k_0 (x_0 - u_i) + c_0 (v_0 - v_i).
 *   DAMPER  a nonlinear viscous damper F = c |s'|^alpha sign(s') in series
 *           with its brace (stiffness k_b) between DOF i and DOF j (-1:
 *           the ground).  y = (s), the damper's stroke; the force is
 *           F = k_b (u_i - u_j - s) and s' = sign(F) (|F| / c)^(1/alpha).
 *           F acts on DOF i as a restoring force, -F on DOF j.
 *
 * Real time: every hybrid step records the ODE work (steps, f-evals,
 * Jacobians, Newton iterations) and its compute time.  CONSTANT_BDF is
 * fixed-step; the other methods adapt their step, and on a device
 * backend only with a cap (max_steps or max_f_evals per hybrid step):
 * a hybrid step that reaches its cap ends the run with RTHS_E_TOO_SLOW.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_ODESUB_H
#define RTHS_HS_ODESUB_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rths/hs_error.h>
#include <rths/hs_sim.h>
#include <rths/ode.h>
#include <rths/ode_mech.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rths_hs_odesub_kind {
	RTHS_HS_ODESUB_CHAIN = 1,
	RTHS_HS_ODESUB_DAMPER,
	RTHS_HS_ODESUB_MULTIBODY,
};

/* The interface input over a hybrid step. */
enum rths_hs_odesub_input {
	RTHS_HS_ODESUB_HOLD = 1,
	RTHS_HS_ODESUB_LINEAR,
};

/* Most masses of a chain. */
#define RTHS_HS_ODESUB_MAX_MASSES 16

/* Library-allocated, opaque. */
struct rths_hs_odesub;

/* A chain of @n masses hung from DOF @dof (arrays of @n). */
int rths_hs_odesub_new_chain(struct rths_hs_odesub **out, int dof, size_t n,
			     const double *mass, const double *k,
			     const double *c, struct rths_error *err);
/* A damper (c, alpha in (0, 1]) with its brace k_b between DOFs @dof_i
 * and @dof_j (-1: the ground). */
int rths_hs_odesub_new_damper(struct rths_hs_odesub **out, int dof_i,
			      int dof_j, double c, double alpha, double k_b,
			      struct rths_error *err);
/*
 * A planar multibody system hung from DOF @dof: rigid bodies, revolute
 * and prismatic joints, springs and dampers, under gravity (-y) and the
 * ground motion (x, as the model's DOFs: coordinates relative to the
 * ground).  Body -1 in a joint or spring is the base: the point of the
 * structure at DOF @dof, which moves along x with it.  The DAE of
 * rths/ode_mech.h in @form; an implicit method (default GSTIFF).  The
 * input is always LINEAR: a held base would jump.  At each hybrid step
 * the velocities are projected (mass-weighted: the impulse the base's
 * change of velocity gives) and the DAE restarted consistently.
 */
#define RTHS_HS_MB_MAX_BODIES 8
#define RTHS_HS_MB_MAX_JOINTS 8
#define RTHS_HS_MB_MAX_SPRINGS 8
/*
 * rths_hs_odesub_new_multibody() refuses an initial pose in which a
 * revolute joint's two points are further apart than this (m), naming
 * "joints[k].points", and a body tied to the base by no chain of joints
 * or springs, naming "bodies[b]".
 */
#define RTHS_HS_MB_JOINT_GAP_MAX 1e-6

struct rths_hs_mb_body {
	double mass;		/* kg */
	double inertia;		/* kg m^2 about the centre of mass */
	double x, y, angle;	/* initial pose: m, m, rad */
};

enum rths_hs_mb_joint_kind {
	RTHS_HS_MB_REVOLUTE = 1,
	RTHS_HS_MB_PRISMATIC,
};

/* Points are in the body's frame (the base's: at rest, from DOF's
 * point).  A prismatic joint slides along @axis (in a's frame). */
struct rths_hs_mb_joint {
	enum rths_hs_mb_joint_kind kind;
	int body_a, body_b;
	double pa[2], pb[2];
	double axis[2];
};

/* Between two points: f = k (l - length) + c l' along the line;
 * length < 0: the initial distance. */
struct rths_hs_mb_spring {
	int body_a, body_b;
	double pa[2], pb[2];
	double k, c, length;
};

struct rths_hs_mb_params {
	size_t n_bodies, n_joints, n_springs;
	const struct rths_hs_mb_body *bodies;
	const struct rths_hs_mb_joint *joints;
	const struct rths_hs_mb_spring *springs;
	double gravity;			/* m/s^2, e.g. RTHS_HS_G */
	enum rths_ode_mech_form form;	/* I3, SI2 or SI1 */
};

int rths_hs_odesub_new_multibody(struct rths_hs_odesub **out, int dof,
				 const struct rths_hs_mb_params *p,
				 struct rths_error *err);
/* Multibody: the coordinates q (3 per body: x, y, angle) and
 * velocities at the last step; NULL otherwise. */
const double *rths_hs_odesub_mb_q(const struct rths_hs_odesub *s);
const double *rths_hs_odesub_mb_v(const struct rths_hs_odesub *s);

/* Like free(), NULL is accepted and does nothing. */
void rths_hs_odesub_free(struct rths_hs_odesub *s);

/*
 * The method and its control (NULL: defaults; CONSTANT_BDF needs
 * ctl->h_init).  Default: GSTIFF, rtol 1e-6, atol 1e-9, HOLD, no cap.
 */
int rths_hs_odesub_set_method(struct rths_hs_odesub *s,
			      enum rths_ode_method method,
			      const struct rths_ode_control *ctl,
			      struct rths_error *err);
void rths_hs_odesub_set_input(struct rths_hs_odesub *s,
			      enum rths_hs_odesub_input input);
/* Work caps per hybrid step (0: none). */
void rths_hs_odesub_set_cap(struct rths_hs_odesub *s, unsigned long max_steps,
			    unsigned long max_f_evals);
/* Nonzero if the work of a hybrid step is bounded: a fixed-step method
 * or a cap. */
int rths_hs_odesub_bounded(const struct rths_hs_odesub *s);

enum rths_hs_odesub_kind rths_hs_odesub_kind(const struct rths_hs_odesub *s);
enum rths_ode_method rths_hs_odesub_method(const struct rths_hs_odesub *s);
enum rths_hs_odesub_input rths_hs_odesub_input(const struct rths_hs_odesub *s);
/* Length of the state y. */
size_t rths_hs_odesub_dim(const struct rths_hs_odesub *s);
/* Largest DOF index the substructure touches (-1: none). */
int rths_hs_odesub_max_dof(const struct rths_hs_odesub *s);

/*
 * Starts at @t0 with the global state @u0, @v0 (DOF vectors) and ground
 * acceleration @ag0: a chain at rest relative to DOF i (x_j = u_i,
 * v_j = v_i), a damper unloaded (s = u_i - u_j).  Room for the work
 * records of @steps hybrid steps is allocated here, not in the loop.
 */
int rths_hs_odesub_start(struct rths_hs_odesub *s, double t0,
			 const double *u0, const double *v0, double ag0,
			 uint64_t steps, struct rths_error *err);
/*
 * One hybrid step to @t1 with the global command @u1 (DOF vector) and
 * the ground acceleration @ag1 there; adds the substructure's restoring
 * force at t1 to @r (n DOFs).  On failure the state is that of the last
 * step.
 */
int rths_hs_odesub_step(struct rths_hs_odesub *s, double t1,
			const double *u1, double ag1, double *r,
			struct rths_error *err);
/*
 * rths_hs_odesub_step() given also the global velocities at the step's
 * start @v0 (NULL: the last step's end velocity) and end @v1 (DOF
 * vectors), as the hybrid loop gives them.  With the LINEAR input the
 * interface then moves over the step as the cubic Hermite of its
 * displacement and velocity at both ends (its velocity the cubic's
 * derivative, a_g still linear), and the force at t1 is taken at the
 * velocity v1: the coupling is second order in the step, where the
 * mean velocity of rths_hs_odesub_step() makes it first order.  HOLD
 * behaves as in rths_hs_odesub_step().
 */
int rths_hs_odesub_step_vel(struct rths_hs_odesub *s, double t1,
			    const double *u1, const double *v0,
			    const double *v1, double ag1, double *r,
			    struct rths_error *err);
/* The state y at the last step (dim values). */
const double *rths_hs_odesub_state(const struct rths_hs_odesub *s);
/* The interface force at the last step (on DOF i), N. */
double rths_hs_odesub_force(const struct rths_hs_odesub *s);

/* Percentiles of one quantity over the hybrid steps. */
struct rths_hs_odesub_pct {
	double p50, p99, max;
};

struct rths_hs_odesub_work {
	uint64_t hybrid_steps;
	struct rths_hs_odesub_pct ode_steps;	/* per hybrid step */
	struct rths_hs_odesub_pct f_evals;
	struct rths_hs_odesub_pct jac_evals;
	struct rths_hs_odesub_pct newton_iters;
	struct rths_hs_odesub_pct compute;	/* s */
	unsigned long total_f_evals;
	double budget;				/* s: the hybrid step */
	uint64_t over_budget;			/* steps with compute > budget */
	/* multibody: largest |Phi|_2 (m) and |Phi'|_2 (m/s) at the ends of
	 * the steps; the energy balance E(t) - E(0) - (work of the base,
	 * the ground motion and the dampers), summed over the steps
	 * (without the base's velocity jumps at their starts): its
	 * largest magnitude (J) and the largest mechanical energy (J). */
	double drift_pos, drift_vel;
	double energy_error, energy_max;
};

/* The work of the run so far (after rths_hs_odesub_start()). */
int rths_hs_odesub_work(const struct rths_hs_odesub *s,
			struct rths_hs_odesub_work *w, struct rths_error *err);

/*
 * rths_hs_sim_run() with ODE substructures: each is started at t = 0
 * with the model at rest, stepped after the command of every step (with
 * a backend: between posting the command and waiting for its feedback,
 * while the actuators move) and its force added to the measured one.
 * Their work is then read with rths_hs_odesub_work().  A failing or
 * capped ODE step ends the run as a failing backend does (res->error).
 * On any backend but the offline one (a device, the distributed sites)
 * an unbounded substructure (rths_hs_odesub_bounded() 0) is refused
 * with -RTHS_E_UNSUPPORTED before the start.
 */
int rths_hs_sim_run_odesubs(const struct rths_hs_sim_config *cfg,
			    struct rths_hs_odesub *const *odesubs,
			    size_t n_odesubs, struct rths_hs_history *h,
			    struct rths_hs_run_result *res,
			    struct rths_error *err);

/*
 * Whether hybrid steps of dt suit @s: its fixed step (constant_bdf) takes
 * ceil(dt / step) method steps a hybrid step and is refused when it is
 * longer than dt, when a hybrid step would take more than
 * RTHS_HS_ODESUB_MAX_FIXED_STEPS or more than max_steps.  0 or
 * -RTHS_E_OUT_OF_RANGE, with the field ("step") in err->path.
 */
#define RTHS_HS_ODESUB_MAX_FIXED_STEPS 10000
int rths_hs_odesub_check_dt(const struct rths_hs_odesub *s, double dt,
			    struct rths_error *err);

/*
 * rths_hs_preview_exchange() with the ODE substructures run in every
 * preview run, their compute time counted with the step's (they share
 * the CPU even where they overlap the actuators' motion).  A d for which
 * a substructure's fixed step does not suit (rths_hs_odesub's step
 * checks: longer than dt, too many steps) is skipped, not chosen.  The
 * substructures are started afresh by every run, so the real run that
 * follows starts from rest as usual.
 */
int rths_hs_preview_odesubs(const struct rths_hs_sim_config *cfg,
			    struct rths_hs_odesub *const *odesubs,
			    size_t n_odesubs,
			    const struct rths_hs_preview_params *pp,
			    double exchange_s,
			    struct rths_hs_preview_result *out,
			    struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_ODESUB_H */
