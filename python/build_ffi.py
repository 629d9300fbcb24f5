# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build rths._rths_ffi, the cffi (API mode) extension under the rths
package, against the in-tree headers and librths.so.2.

    build_ffi.py TOP LIBDIR OUTDIR

TOP is the repository, LIBDIR holds librths.so.2 (it becomes the
extension's rpath), OUTDIR is where the package is assembled (cffi's
temporary files go under OUTDIR/.tmp, never into the source tree).

Structs are declared with "...;" where their layout is the compiler's
business: cffi checks every field named here against the real header.
"""
import os
import sys

import cffi

MAX_PLUGINS = 16	# RTHS_HS_MAX_PLUGINS, checked below

CDEF = r"""
#define RTHS_MAX_CHANNELS ...
#define RTHS_HS_MAX_CHANNELS ...
#define RTHS_NAME_LEN ...
#define RTHS_LAT_HIST_BUCKETS ...
#define RTHS_FB_F_EXTRAPOLATED ...
#define RTHS_FB_F_HELD ...
#define RTHS_FB_F_DECELERATED ...
#define RTHS_FB_F_GAP ...
#define RTHS_E_BASE ...
#define RTHS_HS_PLUGIN_ABI ...
#define RTHS_HS_MAX_PLUGINS ...
#define RTHS_HS_RUN_OFFLINE ...

enum rths_error_code { RTHS_E_NONFINITE, RTHS_E_CALLBACK, RTHS_E_BACKEND,
	RTHS_E_UNSUPPORTED, ... };
enum rths_open_flags { RTHS_OPEN_OWNER, RTHS_OPEN_NONBLOCK, ... };
enum rths_wait_flags { RTHS_WAIT_SPIN, ... };
enum rths_state { RTHS_STATE_STOPPED, RTHS_STATE_RUNNING,
	RTHS_STATE_HOLDING, ... };
enum rths_reason { RTHS_REASON_USER, ... };
enum rths_fault { RTHS_FAULT_CMD_INDEX, ... };
enum rths_clock { RTHS_CLOCK_HRTIMER, RTHS_CLOCK_MANUAL, ... };
enum rths_late_policy { RTHS_LATE_STRICT, ... };
enum rths_late_action { RTHS_LATE_EXTRAPOLATED, ... };
enum rths_limit_kind { RTHS_LIMIT_STROKE, ... };
enum rths_ring_id { RTHS_RING_CMD, ... };
enum rths_event_type { RTHS_EVENT_STATE, ... };
enum rths_hs_method { RTHS_HS_CR, RTHS_HS_PLUGIN_FIRST, ... };

/* rths/error.h */
struct rths_error {
	int code;
	char file[...];
	unsigned int line;
	char path[...];
	char msg[...];
	...;
};
const char *rths_strerror(int err);
const char *rths_strerror_name(int err);
const char *rths_error_str(const struct rths_error *err, char *buf,
			   size_t len);

/* rths/device.h */
struct rths_ctl;
struct rths_dev;
struct rths_mon;
int rths_ctl_open(struct rths_ctl **ctl);
void rths_ctl_close(struct rths_ctl *ctl);
const char *rths_ctl_error(const struct rths_ctl *ctl);

struct rths_dev_info {
	uint32_t id;
	char name[...];
	char card[...];
	uint32_t channels;
	enum rths_state state;
	enum rths_reason reason;
	enum rths_fault fault;
	enum rths_clock clock;
	uint32_t rate_hz, step_ticks;
	enum rths_late_policy late_policy;
	uint32_t late_deadline, ramp_ticks, cpu, priority;
	bool io_may_sleep, owned;
	uint64_t step, tick;
	double position[...];
	...;
};
int rths_dev_get(struct rths_ctl *ctl, const char *name,
		 struct rths_dev_info *info, size_t info_size);

int rths_run_start(struct rths_ctl *ctl, const char *name);
int rths_run_stop(struct rths_ctl *ctl, const char *name);
int rths_run_stop_now(struct rths_ctl *ctl, const char *name);
int rths_run_hold(struct rths_ctl *ctl, const char *name);
int rths_run_tick(struct rths_ctl *ctl, const char *name, uint32_t ticks);

struct rths_stats {
	uint64_t periods, ticks, missed, steps, stretch_ticks, step_ticks_now;
	uint64_t halt_ticks, wait_ticks;
	uint64_t late_steps, late_extrapolated, late_held, late_decelerated;
	uint64_t late_faulted;
	uint64_t fb_records, fb_overflows, trace_records, trace_overflows;
	uint64_t ring_faults, limit_trips, card_errors, events_dropped;
	uint64_t irq_lat_min, irq_lat_avg, irq_lat_max;
	uint64_t thread_lat_min, thread_lat_avg, thread_lat_max;
	uint64_t irq_lat_hist[...];
	uint64_t thread_lat_hist[...];
	uint64_t lat_samples;
	...;
};
int rths_stats_get(struct rths_ctl *ctl, const char *name,
		   struct rths_stats *st);
int rths_stats_reset(struct rths_ctl *ctl, const char *name);

int rths_dev_open(struct rths_ctl *ctl, const char *name, unsigned int flags,
		  struct rths_dev **dev);
void rths_dev_close(struct rths_dev *dev);
int rths_dev_fd(const struct rths_dev *dev);
uint32_t rths_dev_channels(const struct rths_dev *dev);
void rths_dev_sync(struct rths_dev *dev);
int rths_post(struct rths_dev *dev, uint64_t step, const double *target);

struct rths_feedback {
	uint64_t step, tick, time_ns;
	uint32_t flags;
	uint32_t late_ticks;
	uint32_t channels;
	double command[...];
	double disp[...];
	double force[...];
	...;
};
int rths_read_feedback(struct rths_dev *dev, struct rths_feedback *fb);
int rths_wait_feedback(struct rths_dev *dev, struct rths_feedback *fb,
		       int timeout_ms, unsigned int flags);

struct rths_event {
	enum rths_event_type type;
	uint32_t dev_id;
	char dev_name[...];
	uint64_t tick, step;
	enum rths_state state;
	enum rths_reason reason;
	enum rths_fault fault;
	uint32_t channel;
	enum rths_limit_kind limit;
	int64_t value_raw;
	double value;
	enum rths_late_action late_action;
	uint32_t late_ticks;
	enum rths_ring_id ring;
	...;
};
int rths_mon_open(struct rths_mon **mon);
void rths_mon_close(struct rths_mon *mon);
int rths_mon_fd(const struct rths_mon *mon);
int rths_mon_read(struct rths_mon *mon, struct rths_event *ev,
		  int timeout_ms);

const char *rths_state_name(enum rths_state s);
const char *rths_reason_name(enum rths_reason r);
const char *rths_fault_name(enum rths_fault f);
const char *rths_late_action_name(enum rths_late_action a);
const char *rths_limit_name(enum rths_limit_kind k);
const char *rths_event_name(enum rths_event_type t);
const char *rths_ring_name(enum rths_ring_id r);

/* rths/hs_setup.h, rths/hs_backend.h */
struct rths_hs_setup { size_t dim; size_t n_act; ...; };
int rths_hs_setup_direct(struct rths_hs_setup *s, size_t n,
			 struct rths_error *err);

struct rths_hs_feedback {
	uint64_t step;
	uint64_t tick;
	uint64_t time_ns;
	uint32_t flags;
	uint32_t late_ticks;
	uint32_t channels;
	double command[...];
	double disp[...];
	double force[...];
	...;
};
struct rths_hs_backend_stats {
	uint64_t steps, ticks, missed_ticks;
	uint64_t late_steps, late_extrapolated, late_held, late_decelerated;
	uint64_t late_faulted, limit_trips, fb_overflows, card_errors;
	bool has_latency;
	double irq_lat_max_ns, thread_lat_avg_ns, thread_lat_max_ns;
	...;
};
struct rths_hs_backend_ops;
struct rths_hs_backend {
	const struct rths_hs_backend_ops *ops;
	uint32_t channels;
	uint32_t rate;
	uint32_t step_ticks;
	...;
};
int rths_hs_backend_start(struct rths_hs_backend *b, struct rths_error *err);
int rths_hs_backend_post(struct rths_hs_backend *b, uint64_t step,
			 const double *target, struct rths_error *err);
int rths_hs_backend_wait(struct rths_hs_backend *b, uint64_t step,
			 struct rths_hs_feedback *fb, struct rths_error *err);
int rths_hs_backend_hold(struct rths_hs_backend *b, struct rths_error *err);
int rths_hs_backend_stop(struct rths_hs_backend *b, struct rths_error *err);
int rths_hs_backend_stats(struct rths_hs_backend *b,
			  struct rths_hs_backend_stats *st);
void rths_hs_backend_close(struct rths_hs_backend *b);

struct rths_hs_offline_params {
	uint32_t rate;
	uint32_t step_ticks;
	double lag;
	uint32_t delay_ticks;
	double noise_disp;
	double noise_force;
	uint64_t seed;
	bool quantize;
	const struct rths_hs_setup *setup;
	const double *k;
	const double *c;
	...;
};
void rths_hs_offline_defaults(struct rths_hs_offline_params *p);
int rths_hs_offline_open(struct rths_hs_backend *b,
			 const struct rths_hs_offline_params *p,
			 struct rths_error *err);

/* rths/hs_groundmotion.h */
struct rths_hs_gm {
	size_t npts;
	double dt;
	double *acc;
	char source[...];
	...;
};
int rths_hs_gm_read_at2(struct rths_hs_gm *gm, const char *path,
			struct rths_error *err);
int rths_hs_gm_read_two_column(struct rths_hs_gm *gm, const char *path,
			       double to_si, unsigned int flags,
			       struct rths_error *err);
int rths_hs_gm_from_array(struct rths_hs_gm *gm, const double *acc,
			  size_t n, double dt, const char *source,
			  struct rths_error *err);
void rths_hs_gm_free(struct rths_hs_gm *gm);
double rths_hs_gm_at(const struct rths_hs_gm *gm, double t);
double rths_hs_gm_duration(const struct rths_hs_gm *gm);

/* rths/hs_integrator.h, rths/hs_experiment.h, rths/hs_sim.h */
struct rths_hs_stepper_params {
	enum rths_hs_method method;
	double dt;
	...;
};
const char *rths_hs_method_name(enum rths_hs_method m);
enum rths_hs_method rths_hs_method_from_name(const char *name);

struct rths_hs_device_config {
	char name[...];
	char card[...];
	uint32_t rate;
	uint32_t step_ticks;
	...;
};
struct rths_hs_experiment {
	char path[...];
	char name[...];
	bool has_specimen;
	struct rths_hs_device_config device;
	double duration;
	struct rths_hs_stepper_params integrator;
	...;
};
int rths_hs_experiment_load(const char *path,
			    struct rths_hs_experiment **out,
			    struct rths_error *err);
void rths_hs_experiment_free(struct rths_hs_experiment *x);
int rths_hs_experiment_set_step(struct rths_hs_experiment *x,
				uint32_t step_ticks, struct rths_error *err);

struct rths_hs_history {
	size_t n_dof, n_if, n_act;
	size_t rows, cap;
	double dt;
	double *t, *ag;
	double *influence;
	double *u, *v, *a;
	double *x_if;
	double *x_meas, *f_meas;
	double *target;
	double *command;
	double *disp, *force;
	double *compute;
	uint32_t *flags;
	...;
};
void rths_hs_history_free(struct rths_hs_history *h);

struct rths_hs_run_result {
	uint64_t steps_planned, steps_done;
	bool interrupted;
	bool held;
	int error;
	struct rths_error err;
	double compute_min, compute_mean, compute_max, compute_p99;
	double wall;
	uint64_t late_steps;
	...;
};
int rths_hs_experiment_run(const struct rths_hs_experiment *x,
			   unsigned int flags, const char *trace_dir,
			   struct rths_hs_history *h,
			   struct rths_hs_run_result *res,
			   struct rths_error *err);

/* rths/hs_plugin.h */
struct rths_hs_integrator_problem {
	size_t n;
	double dt;
	const double *m;
	const double *c;
	const double *c0;
	const double *k0;
	bool has_specimen;
	const char *params;
	...;
};
struct rths_hs_integrator_type {
	unsigned int abi;
	const char *name;
	int (*alloc)(void **state, const struct rths_hs_integrator_problem *p,
		     struct rths_error *err);
	int (*start)(void *state, const double *u0, const double *v0,
		     const double *a0, const double *f0, const double *r0,
		     struct rths_error *err);
	int (*predict)(void *state, uint64_t n, const double *u,
		       const double *v, const double *a, const double *f1,
		       double *u1, struct rths_error *err);
	int (*correct)(void *state, uint64_t n, const double *u,
		       const double *v, const double *a, const double *u1,
		       const double *f1, const double *r1, double *u_out,
		       double *v_out, double *a_out, struct rths_error *err);
	void (*free)(void *state);
	...;
};
int rths_hs_integrator_register(const struct rths_hs_integrator_type *type,
				const char *params,
				enum rths_hs_method *method,
				struct rths_error *err);
void rths_hs_integrator_unregister(enum rths_hs_method method);

/* The Python side of a plug-in: alloc has one entry per registration
 * slot (it is told nothing else that says which Python class to make);
 * the others find the Python object through their state handle. */
extern "Python" int _py_start(void *, const double *, const double *,
	const double *, const double *, const double *, struct rths_error *);
extern "Python" int _py_predict(void *, uint64_t, const double *,
	const double *, const double *, const double *, double *,
	struct rths_error *);
extern "Python" int _py_correct(void *, uint64_t, const double *,
	const double *, const double *, const double *, const double *,
	const double *, double *, double *, double *, struct rths_error *);
extern "Python" void _py_free(void *);
"""

ALLOC = ('extern "Python" int _py_alloc_%d(void **, '
         'const struct rths_hs_integrator_problem *, struct rths_error *);\n')

SOURCE = r"""
#include <rths/error.h>
#include <rths/device.h>
#include <rths/hs_backend.h>
#include <rths/hs_experiment.h>
#include <rths/hs_groundmotion.h>
#include <rths/hs_integrator.h>
#include <rths/hs_plugin.h>
#include <rths/hs_sim.h>
#include <rths/files.h>

_Static_assert(RTHS_HS_MAX_PLUGINS == %d, "build_ffi.py: MAX_PLUGINS");
""" % MAX_PLUGINS


def main():
    top, libdir, outdir = (os.path.abspath(a) for a in sys.argv[1:4])
    ffi = cffi.FFI()
    ffi.cdef(CDEF + "".join(ALLOC % i for i in range(MAX_PLUGINS)))
    ffi.set_source(
        "rths._rths_ffi", SOURCE,
        include_dirs=[os.path.join(top, "include/uapi"),
                      os.path.join(top, "include")],
        extra_compile_args=["-std=gnu11", "-Wall", "-Werror",
                            "-Wno-unused-variable",
                            "-Wno-unused-but-set-variable"],
        library_dirs=[libdir],
        # the soname, not the development symlink
        extra_link_args=["-l:librths.so.2", "-Wl,-rpath," + libdir])
    tmp = os.path.join(outdir, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    so = ffi.compile(tmpdir=tmp, verbose=False)
    dest = os.path.join(outdir, "rths", os.path.basename(so))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.replace(so, dest)
    print(dest)


if __name__ == "__main__":
    main()
