/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation: experiment files.
 *
 * One JSON file describes a whole test: model, substructure, setup,
 * specimen, device, ground motion, integrator, compensation and outputs
 * (Documentation/experiment-file.rst).  Loading checks everything that can
 * be checked before the test; each kind of mistake has its own error code
 * (rths/error.h) and every error names the file and the JSON path.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_EXPERIMENT_H
#define RTHS_HS_EXPERIMENT_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <stdbool.h>
#include <stdint.h>

#include <linux/rths.h>
#include <rths/hs_backend.h>
#include <rths/hs_compensation.h>
#include <rths/hs_groundmotion.h>
#include <rths/hs_integrator.h>
#include <rths/hs_model.h>
#include <rths/hs_setup.h>
#include <rths/hs_sim.h>
#include <rths/rt.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTHS_HS_NCH RTHS_HS_MAX_CHANNELS

/* Path buffers: Linux's PATH_MAX, which strict C11 does not define. */
#define RTHS_HS_PATH_MAX 4096

enum rths_hs_backend_kind {
	RTHS_HS_BACKEND_OFFLINE = 1,
	RTHS_HS_BACKEND_DEVICE,
};

/* Which fields of struct rths_hs_device_config the file set. */
enum rths_hs_device_field {
	RTHS_HS_DEV_CLOCK = 1u << 0,
	RTHS_HS_DEV_LATE_POLICY = 1u << 1,
	RTHS_HS_DEV_LATE_DEADLINE = 1u << 2,
	RTHS_HS_DEV_RAMP_TICKS = 1u << 3,
	RTHS_HS_DEV_CPU = 1u << 4,
	RTHS_HS_DEV_PRIORITY = 1u << 5,
	RTHS_HS_DEV_CMD_ENTRIES = 1u << 6,
	RTHS_HS_DEV_FB_ENTRIES = 1u << 7,
	RTHS_HS_DEV_TRACE_ENTRIES = 1u << 8,
};

/* Which fields of a channel's limits are set. */
enum rths_hs_limit_field {
	RTHS_HS_LIM_STROKE_MIN = 1u << 0,
	RTHS_HS_LIM_STROKE_MAX = 1u << 1,
	RTHS_HS_LIM_VELOCITY_MAX = 1u << 2,
	RTHS_HS_LIM_FORCE_MAX = 1u << 3,
};

struct rths_hs_channel_limits {
	unsigned int set;	/* RTHS_HS_LIM_* */
	double stroke_min, stroke_max;	/* m */
	double velocity_max;		/* m/s */
	double force_max;		/* N */
};

/*
 * The actuator model: the sim card's parameters on a device, the offline
 * backend's actuator offline.  The sim card's stiffness and damping come
 * from the specimen section.
 */
struct rths_hs_actuator_model {
	double lag;		/* s */
	uint32_t delay_ticks;
	double noise_disp;	/* m */
	double noise_force;	/* N */
	uint64_t seed;
};

/*
 * "realtime": the thread that runs the step loop (<rths/rt.h>).  On by
 * default on the device backend; an offline run applies it only when the
 * file says "enabled": true.
 */
struct rths_hs_realtime_config {
	bool enabled;
	bool lock_memory;		/* mlockall */
	bool required;			/* a privilege refused is an error */
	int priority;			/* SCHED_FIFO, below the kernel loop's */
	int cpu;			/* a CPU or RTHS_RT_CPU_AUTO */
	uint32_t stack_kib;		/* stack to prefault */
	uint32_t heap_kib;		/* heap to prefault and keep */
};

/* The kernel loop's priority when device.priority is not given. */
#define RTHS_HS_LOOP_PRIORITY_DEFAULT 80

struct rths_hs_device_config {
	enum rths_hs_backend_kind backend;
	char name[RTHS_NAME_LEN];
	char card[RTHS_NAME_LEN];
	uint32_t rate;			/* Hz */
	uint32_t step_ticks;		/* d; 0: choose by preview */
	unsigned int set;		/* RTHS_HS_DEV_*: fields below */
	enum rths_clock clock;
	enum rths_late_policy late_policy;
	uint32_t late_deadline;		/* ticks */
	uint32_t ramp_ticks;
	uint32_t cpu;
	uint32_t priority;
	uint32_t cmd_entries, fb_entries, trace_entries;
	struct rths_hs_channel_limits limits[RTHS_HS_NCH];
	struct rths_hs_actuator_model actuator;
};

/* The specimen at the interface (n_if coordinates). */
struct rths_hs_specimen {
	size_t n_if;
	double k[RTHS_HS_NCH * RTHS_HS_NCH];	/* N/m, column-major */
	double c[RTHS_HS_NCH * RTHS_HS_NCH];	/* N*s/m */
	bool has_springs;
	struct rths_hs_element_params springs[RTHS_HS_NCH];	/* kind 0: none */
};

struct rths_hs_output_config {
	char directory[RTHS_HS_PATH_MAX];	/* "": not given, the caller's choice */
	bool csv, summary, plots, reference;
	unsigned int every;	/* CSV: one row every this many steps */
};

/*
 * Warnings: the experiment is valid, but something deserves a look.  The
 * library never prints; the caller shows them (rths-run on stderr and in
 * its summary).
 */
enum rths_hs_warning_code {
	/* the step is coarser than the record's sampling (only with
	 * integrator.allow_coarse_step, else an error) */
	RTHS_HS_W_COARSE_STEP = 1,
	/* the record's peak is above RTHS_HS_PLAUSIBLE_PGA */
	RTHS_HS_W_LARGE_ACCELERATION,
};

#define RTHS_HS_MAX_WARNINGS 8
/* Most ODE substructures of an experiment. */
#define RTHS_HS_MAX_ODESUBS 8
struct rths_hs_odesub;
/* 5 g: above any recorded earthquake (about 4 g); tens of g mean units
 * or a scale gone wrong. */
#define RTHS_HS_PLAUSIBLE_PGA (5 * RTHS_HS_G)

struct rths_hs_warning {
	enum rths_hs_warning_code code;
	char path[160];		/* JSON path of the field concerned */
	char msg[384];
};

/*
 * Allocated only by librths (rths_hs_experiment_load() or _parse(), freed
 * by rths_hs_experiment_free()): never declare one, embed it or use its
 * sizeof.  Callers read its fields; new fields are only ever appended at
 * its end, so librths.so.2 can grow it without an ABI break.
 */
struct rths_hs_experiment {
	char path[RTHS_HS_PATH_MAX];
	char name[128];
	struct rths_hs_model model;		/* numerical substructure */
	bool has_specimen;
	struct rths_hs_substructure sub;
	struct rths_hs_specimen specimen;	/* what the offline backend tests */
	double k_est[RTHS_HS_NCH * RTHS_HS_NCH];	/* the integrator's */
	double c_est[RTHS_HS_NCH * RTHS_HS_NCH];	/* estimate */
	struct rths_hs_setup setup;
	struct rths_hs_device_config device;
	struct rths_hs_gm gm;
	double duration;			/* s */
	struct rths_hs_stepper_params integrator;	/* dt 0 until known */
	bool allow_coarse_step;	/* integrator.allow_coarse_step */
	struct rths_hs_comp_params comp;
	double comp_window;			/* s, ATS window */
	struct rths_hs_output_config out;
	size_t n_warnings;	/* the first RTHS_HS_MAX_WARNINGS are kept */
	struct rths_hs_warning warnings[RTHS_HS_MAX_WARNINGS];
	/* device.actuator.plant, designed at device.rate: the sim card's
	 * plant in place of the lag (RTHS_SIM_PLANT in plant.set, else
	 * none; rths_hs_backend_set_plant()), and what it is ("benchmark",
	 * "transfer function") */
	struct rths_sim_params plant;
	char plant_name[32];
	/* "ode_substructures" (rths/hs_odesub.h), in file order; run them
	 * with rths_hs_sim_run_odesubs() */
	size_t n_odesubs;
	struct rths_hs_odesub *odesubs[RTHS_HS_MAX_ODESUBS];
	/* device.preview_margin: the part of the step the step-size
	 * preview keeps free, 0 to < 1 (RTHS_HS_PREVIEW_MARGIN_DEFAULT) */
	double preview_margin;
	/* "realtime": the step thread's */
	struct rths_hs_realtime_config realtime;
};

/* The step-size preview's default margin: a step's compute and exchange
 * within 0.8 of the step. */
#define RTHS_HS_PREVIEW_MARGIN_DEFAULT 0.2

/* Frees the experiment and what it holds; NULL does nothing. */
void rths_hs_experiment_free(struct rths_hs_experiment *x);

/*
 * Fixes d (after a preview or from the command line): dt = d / rate,
 * then checks what depends on dt (explicit stability limits, deadlines,
 * a step coarser than the record's sampling: -RTHS_E_OUT_OF_RANGE
 * unless allow_coarse_step, then a warning).
 */
int rths_hs_experiment_set_step(struct rths_hs_experiment *x,
				uint32_t step_ticks, struct rths_error *err);

/* The loop's configuration (backend NULL, to be set by the caller). */
void rths_hs_experiment_sim_config(const struct rths_hs_experiment *x,
				   struct rths_hs_sim_config *cfg);
/* The offline backend for this experiment's specimen and actuator. */
void rths_hs_experiment_offline_params(const struct rths_hs_experiment *x,
				       struct rths_hs_offline_params *op);
/*
 * The all-numerical structure: the specimen's model inside.  Hysteretic
 * springs on story drifts (a command row e_a or e_a - e_b) become
 * elements; others enter with their initial stiffness, and *linearized
 * (may be NULL) says so.
 */
int rths_hs_experiment_reference_model(const struct rths_hs_experiment *x,
				       struct rths_hs_model *full,
				       bool *linearized,
				       struct rths_error *err);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

/* Source compatibility: the file readers and writers are in
 * <rths/files.h> (lib/files). */
#include <rths/files.h>

#endif /* RTHS_HS_EXPERIMENT_H */
