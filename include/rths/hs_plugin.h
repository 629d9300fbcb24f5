/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: integrator and compensator plug-ins
 * (Documentation/plugins.rst).
 *
 * A program or a shared object brings its own time integrator as a
 * struct rths_hs_integrator_type, a table of callbacks in the style of
 * GSL's gsl_odeiv2_step_type.  rths_hs_integrator_register() gives it a
 * method number; a stepper made with that method in its
 * struct rths_hs_stepper_params (and so rths_hs_sim_run(), the preview
 * and rths-run) calls the plug-in for the two halves of each step, and
 * everything else of the engine (setups, decoupling, force mapping,
 * compensation, limits, criteria, outputs) applies unchanged.
 *
 * One step n -> n+1 of the engine with a plug-in:
 *
 *	predict(state, n, u_n, v_n, a_n, f_{n+1}, u_{n+1})	the command
 *	... the engine imposes u_{n+1}: model elements, actuators ...
 *	r_{n+1} = K u_{n+1} + f_el(u_{n+1}) + r_exp_{n+1}
 *	correct(state, n, u_n, v_n, a_n, u_{n+1}, f_{n+1}, r_{n+1},
 *		u, v, a)					step n+1
 *
 * Matrices are n x n, column-major (rths/mat.h).  The engine checks every
 * output: a NaN or infinity fails the step with -RTHS_E_NONFINITE naming
 * the plug-in and the callback.  Every callback returns 0 or a negative
 * code (-RTHS_E_xxx or a negative errno) and may fill @err; if it does
 * not, the engine says which callback failed.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_PLUGIN_H
#define RTHS_HS_PLUGIN_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rths/hs_compensation.h>
#include <rths/hs_error.h>
#include <rths/hs_integrator.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interface version a type must carry in its abi field. */
#define RTHS_HS_PLUGIN_ABI 1u

/*
 * The symbol a shared object exports for rths-run's experiment files
 * ("integrator": {"plugin": "./x.so"}): a const struct
 * rths_hs_integrator_type of that name.
 */
#define RTHS_HS_PLUGIN_SYMBOL "rths_integrator_type"

/* What a plug-in integrates (valid during alloc only: copy what it
 * keeps). */
struct rths_hs_integrator_problem {
	size_t n;		/* DOFs */
	double dt;		/* s */
	const double *m;	/* the model's M */
	const double *c;	/* the model's C: for equilibrium */
	const double *c0;	/* C + the specimen's damping estimate */
	const double *k0;	/* K0 + the specimen's stiffness estimate:
				 * for the integration matrices */
	bool has_specimen;	/* false: all-numerical */
	const char *params;	/* the experiment's "params" as JSON text,
				 * or NULL */
};

struct rths_hs_integrator_type {
	unsigned int abi;	/* RTHS_HS_PLUGIN_ABI */
	const char *name;	/* short, for messages and summaries */
	/* *state: the plug-in's own, passed to every other callback.  On
	 * failure alloc frees what it allocated: free is not called. */
	int (*alloc)(void **state, const struct rths_hs_integrator_problem *p,
		     struct rths_error *err);
	/* Step 0: displacement, velocity, acceleration (from equilibrium),
	 * external force and total restoring force. */
	int (*start)(void *state, const double *u0, const double *v0,
		     const double *a0, const double *f0, const double *r0,
		     struct rths_error *err);
	/* The command u1 of step n+1 from step n and the force f1 at n+1. */
	int (*predict)(void *state, uint64_t n, const double *u,
		       const double *v, const double *a, const double *f1,
		       double *u1, struct rths_error *err);
	/* Step n+1 (u_out, v_out, a_out) from step n, the command u1, the
	 * force f1 and the total restoring force r1 at the command. */
	int (*correct)(void *state, uint64_t n, const double *u,
		       const double *v, const double *a, const double *u1,
		       const double *f1, const double *r1, double *u_out,
		       double *v_out, double *a_out, struct rths_error *err);
	void (*free)(void *state);
};

/*
 * For plug-ins: fill @err (if not NULL) with @code and a message and
 * return -|code|, like rths_error_set() but inline, so that a plug-in
 * needs no librths symbol and loads into a program linked with librths
 * statically (rths-run) or dynamically alike.
 */
static inline int rths_hs_plugin_error(struct rths_error *err, int code,
				       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int rths_hs_plugin_error(struct rths_error *err, int code,
				       const char *fmt, ...)
{
	va_list ap;

	code = code > 0 ? -code : code ? code : -EIO;
	if (err) {
		memset(err, 0, sizeof(*err));
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

/* Most plug-ins of one kind (integrators, compensators) registered at
 * once. */
#define RTHS_HS_MAX_PLUGINS 16

/*
 * 0 if @type can be used: abi is RTHS_HS_PLUGIN_ABI, name and every
 * callback set.  -RTHS_E_UNSUPPORTED for another abi, -EINVAL otherwise.
 */
int rths_hs_integrator_type_check(const struct rths_hs_integrator_type *type,
				  struct rths_error *err);
/*
 * Registers @type (checked) with @params (JSON text, copied; NULL: none)
 * and gives its method number, RTHS_HS_PLUGIN_FIRST or above, for
 * struct rths_hs_stepper_params.  @type must stay valid until
 * rths_hs_integrator_unregister() and every stepper made with it is
 * freed.  Thread-safe.  -ENOSPC beyond RTHS_HS_MAX_PLUGINS.
 */
int rths_hs_integrator_register(const struct rths_hs_integrator_type *type,
				const char *params,
				enum rths_hs_method *method,
				struct rths_error *err);
/* Frees the number for another plug-in; not a plug-in's: nothing. */
void rths_hs_integrator_unregister(enum rths_hs_method method);
/* The type registered as @method, or NULL. */
const struct rths_hs_integrator_type *
rths_hs_integrator_registered(enum rths_hs_method method);

/*
 * Compensator plug-ins: a program's own actuator delay compensation, one
 * state per actuator channel, in place of "none", "polynomial" or "ats"
 * (rths/hs_compensation.h).  Each step n the engine asks for the command
 * of channel i's target, sends it, and tells the plug-in what was sent
 * and what the actuator measured:
 *
 *	command(state, n, target_n, &command_n)
 *	... the actuator moves; feedback of step n ...
 *	observe(state, n, command_n, measured_n)
 *
 * A non-finite command fails the step with -RTHS_E_NONFINITE naming the
 * plug-in, as does a callback that returns an error.
 */

/* The symbol a shared object exports for "compensation": {"plugin":
 * "./x.so"}: a const struct rths_hs_compensator_type of that name. */
#define RTHS_HS_COMP_PLUGIN_SYMBOL "rths_compensator_type"

/* What a compensator compensates (valid during alloc only). */
struct rths_hs_compensator_problem {
	double dt;		/* the integration step, s */
	double delay;		/* the experiment's "delay", s (0: none) */
	unsigned int channel;	/* this state's actuator, from 0 */
	const char *params;	/* the experiment's "params" as JSON text,
				 * or NULL */
};

struct rths_hs_compensator_type {
	unsigned int abi;	/* RTHS_HS_PLUGIN_ABI */
	const char *name;	/* short, for messages and summaries */
	/* One state per channel.  On failure alloc frees what it
	 * allocated: free is not called. */
	int (*alloc)(void **state, const struct rths_hs_compensator_problem *p,
		     struct rths_error *err);
	/* The command for step @n's target (the decoupled stroke, m). */
	int (*command)(void *state, uint64_t n, double target,
		       double *command, struct rths_error *err);
	/* What was sent for step @n and what was measured (m).  May be
	 * NULL: the plug-in does not learn. */
	int (*observe)(void *state, uint64_t n, double command,
		       double measured, struct rths_error *err);
	/* Its current a0, a1, a2 for the summary, if it has such a model
	 * (c = a0 x + a1 x' + a2 x''); may be NULL: 1, 0, 0. */
	void (*coefficients)(void *state, double a[3]);
	void (*free)(void *state);
};

/* As rths_hs_integrator_type_check(): abi, name, alloc, command, free. */
int rths_hs_compensator_type_check(const struct rths_hs_compensator_type *type,
				   struct rths_error *err);
/*
 * Registers @type with @params (JSON text, copied; NULL: none) and gives
 * its kind, RTHS_HS_COMP_PLUGIN_FIRST or above, for struct
 * rths_hs_comp_params.  @type must stay valid until it is unregistered
 * and every compensation made with it is freed.  Thread-safe.  -ENOSPC
 * beyond RTHS_HS_MAX_PLUGINS.
 */
int rths_hs_compensator_register(const struct rths_hs_compensator_type *type,
				 const char *params,
				 enum rths_hs_comp_kind *kind,
				 struct rths_error *err);
void rths_hs_compensator_unregister(enum rths_hs_comp_kind kind);
/* The type registered as @kind, or NULL. */
const struct rths_hs_compensator_type *
rths_hs_compensator_registered(enum rths_hs_comp_kind kind);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif /* RTHS_HS_PLUGIN_H */
