// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the rths module selftests; see common.h. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

void rt_sim_default(struct rths_sim_params *sim)
{
	memset(sim, 0, sizeof(*sim));
	sim->set = RTHS_SIM_LAG | RTHS_SIM_DELAY | RTHS_SIM_STIFFNESS |
		   RTHS_SIM_DAMPING | RTHS_SIM_NOISE_DISP |
		   RTHS_SIM_NOISE_FORCE | RTHS_SIM_SEED;
	sim->lag = 0.004;		/* 4 ms */
	sim->delay_ticks = 3;
	sim->stiffness = 2.5e5;		/* N/m */
	sim->damping = 750;		/* N*s/m */
	sim->noise_disp = 2e-6;		/* 2 um */
	sim->noise_force = 0.05;	/* 50 mN */
	sim->seed = 12345;
}

void rt_manual_config(struct rths_dev_config *cfg, uint32_t d)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS |
		   RTHS_CFG_TRACE_ENTRIES;
	cfg->clock = RTHS_CLOCK_MANUAL;
	cfg->step_ticks = d;
	cfg->trace_entries = 8192;
}

int rt_create(struct rt *t, const char *tag, uint32_t channels,
	      const struct rths_sim_params *sim,
	      const struct rths_dev_config *cfg)
{
	struct rths_dev_config def;
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s%d", tag, (int)getpid());
	t->channels = channels;
	err = rths_ctl_open(&t->ctl);
	if (err)
		return err;
	err = rths_dev_new(t->ctl, t->name, "sim", channels,
			   sim ? RTHS_SIM_PARAMS(sim) : NULL);
	if (err)
		return err;
	if (!cfg) {
		rt_manual_config(&def, 8);
		cfg = &def;
	}
	return rths_dev_set(t->ctl, t->name, cfg, sizeof(*cfg), NULL);
}

int rt_open(struct rt *t)
{
	return rths_dev_open(t->ctl, t->name, RTHS_OPEN_OWNER, &t->dev);
}

int rt_monitor(struct rt *t)
{
	return rths_mon_open(&t->mon);
}

int rt_start(struct rt *t)
{
	int err = rths_run_start(t->ctl, t->name);

	if (!err && t->dev)
		rths_dev_sync(t->dev);
	return err;
}

int rt_tick(struct rt *t, uint32_t n)
{
	return rths_run_tick(t->ctl, t->name, n);
}

void rt_destroy(struct rt *t)
{
	if (t->dev)
		rths_dev_close(t->dev);
	if (t->mon)
		rths_mon_close(t->mon);
	if (t->ctl) {
		rths_dev_del(t->ctl, t->name);
		rths_ctl_close(t->ctl);
	}
	memset(t, 0, sizeof(*t));
}

int rt_post1(struct rt *t, uint64_t step, int64_t nm)
{
	int64_t v[RTHS_MAX_CHANNELS];
	uint32_t i;

	for (i = 0; i < t->channels; i++)
		v[i] = nm;
	return rths_post_raw(t->dev, step, v);
}

int rt_trace(struct rt *t, struct rths_trace *tr, int max)
{
	int n = 0;

	while (n < max && rths_read_trace(t->dev, &tr[n]) == 0)
		n++;
	return n;
}

int rt_event(struct rt *t, enum rths_event_type type, struct rths_event *ev)
{
	int r;

	for (;;) {
		r = rths_mon_read(t->mon, ev, RT_EVENT_TIMEOUT_MS);
		if (r <= 0)
			return r;
		if (ev->type == type && !strcmp(ev->dev_name, t->name))
			return 1;
	}
}

int rt_state(struct rt *t, enum rths_state *state, enum rths_reason *reason,
	     enum rths_fault *fault)
{
	struct rths_dev_info info;
	int err = rths_dev_get(t->ctl, t->name, &info, sizeof(info));

	if (err)
		return err;
	if (state)
		*state = info.state;
	if (reason)
		*reason = info.reason;
	if (fault)
		*fault = info.fault;
	return 0;
}

int rt_sh(const char *fmt, const char *arg)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, arg ? arg : "");
	return system(cmd);
}

int rt_raw_map(struct rt *t, struct rt_raw *raw, bool owner)
{
	char path[64];
	int err;

	memset(raw, 0, sizeof(*raw));
	raw->fd = -1;
	err = rths_dev_get(t->ctl, t->name, &raw->info, sizeof(raw->info));
	if (err)
		return err;
	snprintf(path, sizeof(path), "/dev/rths/%s", t->name);
	raw->fd = open(path, owner ? O_RDWR : O_RDONLY);
	if (raw->fd < 0)
		return -errno;
	raw->size = raw->info.mmap_size;
	raw->base = mmap(NULL, raw->size,
			 PROT_READ | (owner ? PROT_WRITE : 0), MAP_SHARED,
			 raw->fd, 0);
	if (raw->base == MAP_FAILED) {
		err = -errno;
		close(raw->fd);
		raw->fd = -1;
		return err;
	}
	return 0;
}

void rt_raw_unmap(struct rt_raw *raw)
{
	if (raw->base && raw->base != MAP_FAILED)
		munmap(raw->base, raw->size);
	if (raw->fd >= 0)
		close(raw->fd);
	raw->base = NULL;
	raw->fd = -1;
}

uint32_t *rt_raw_index(struct rt_raw *raw, uint64_t off)
{
	return (uint32_t *)((char *)raw->base + off);
}

/* ---- the sim card's plant ---------------------------------------------- */

static uint64_t sim_next(struct sim_model *m)
{
	uint64_t x = m->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static int64_t sim_noise(struct sim_model *m, uint32_t width)
{
	if (!width)
		return 0;
	return (int64_t)(sim_next(m) % (2 * (uint64_t)width + 1)) - width;
}

static int64_t sim_coef(uint64_t k, int64_t x)
{
	uint64_t ax = x < 0 ? -(uint64_t)x : (uint64_t)x;
	uint64_t p;
	int64_t f;

	if (__builtin_mul_overflow(k, ax, &p))
		f = RTHS_FORCE_MAX;
	else
		f = p / 1000 < (uint64_t)RTHS_FORCE_MAX ?
		    (int64_t)(p / 1000) : RTHS_FORCE_MAX;
	return x < 0 ? -f : f;
}

/* mul_s64_u64_shr(a, b, 32): truncated toward zero, as in the kernel. */
static int64_t sim_mul_q32(int64_t a, uint64_t b)
{
	unsigned __int128 p = (unsigned __int128)(a < 0 ? -(uint64_t)a : (uint64_t)a) * b;
	uint64_t r = (uint64_t)(p >> 32);

	return a < 0 ? -(int64_t)r : (int64_t)r;
}

void sim_model_init(struct sim_model *m, uint32_t channels, uint32_t rate,
		    const struct rths_sim_params *sim)
{
	uint64_t dt = 1000000000ULL / rate;
	uint64_t lag_ns = (uint64_t)llround(sim->lag * 1e6) * 1000;
	uint32_t i, j;

	memset(m, 0, sizeof(*m));
	m->channels = channels;
	m->rate = rate;
	m->len = sim->delay_ticks + 1;
	m->k = (uint64_t)llround(sim->stiffness);
	m->c = (uint64_t)llround(sim->damping);
	m->noise_disp = (uint32_t)llround(sim->noise_disp * 1e9);
	m->noise_force = (uint32_t)llround(sim->noise_force * 1e6);
	m->rng = sim->seed ? sim->seed : 0x9E3779B97F4A7C15ULL;
	m->alpha = (dt << 32) / (lag_ns + dt);
	if (sim->set & RTHS_SIM_SPRING_STIFFNESS)
		m->spring = (uint64_t)llround(sim->spring_stiffness);
	if (sim->set & RTHS_SIM_YIELD_FORCE)
		m->yield = (uint64_t)llround(sim->yield_force * 1e6);
	if (sim->set & RTHS_SIM_POST_STIFFNESS)
		m->post = (uint64_t)llround(sim->post_stiffness);
	if (m->spring && m->yield)
		m->c0 = (int64_t)(m->yield -
			(uint64_t)((unsigned __int128)m->yield * m->post /
				   m->spring));
	for (i = 0; i < channels; i++) {
		for (j = 0; j <= RTHS_SIM_DELAY_MAX; j++)
			m->ch[i].line[j] = 0;
		rths_sim_plant_reset(&m->ch[i].ps, 0);
	}
	if (sim->set & RTHS_SIM_PLANT)
		m->plant = *sim;
}

/* The bilinear spring with kinematic hardening, as the card has it. */
static int64_t sim_spring(struct sim_model *m, struct sim_chan *c, int64_t y)
{
	int64_t f, mid;

	if (!m->spring || !m->yield)
		return 0;
	f = sim_coef(m->spring, y - c->yp);
	mid = sim_coef(m->post, y);
	if (f > mid + m->c0 || f < mid - m->c0) {
		f = f > mid ? mid + m->c0 : mid - m->c0;
		c->yp = y - f * 1000 / (int64_t)m->spring;
	}
	return f;
}

void sim_model_tick(struct sim_model *m, const int64_t *out, int64_t *disp,
		    int64_t *force)
{
	uint32_t i;

	for (i = 0; i < m->channels; i++) {
		struct sim_chan *c = &m->ch[i];
		int64_t ud, y, f;

		c->head = (c->head + 1) % m->len;
		c->line[c->head] = out[i];
		ud = c->line[(c->head + 1) % m->len];
		if (m->plant.plant_sections)
			y = rths_sim_plant_tick(&m->plant, &c->ps, ud);
		else
			y = c->y + sim_mul_q32(ud - c->y, m->alpha);
		f = sim_coef(m->k, y) + sim_coef(m->c, (y - c->y) * (int64_t)m->rate) +
		    sim_spring(m, c, y);
		if (f > RTHS_FORCE_MAX)
			f = RTHS_FORCE_MAX;
		if (f < -RTHS_FORCE_MAX)
			f = -RTHS_FORCE_MAX;
		c->force = f;
		c->y = y;
	}
	for (i = 0; i < m->channels; i++) {
		disp[i] = m->ch[i].y + sim_noise(m, m->noise_disp);
		force[i] = m->ch[i].force + sim_noise(m, m->noise_force);
	}
}

/* rthsctl next to this binary: build/plain/tools/rthsctl. */
int rthsctl_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n <= 0)
		return -errno;
	buf[n] = '\0';
	slash = strstr(buf, "/tests/selftests/");
	if (!slash || (size_t)(slash - buf) + sizeof("/tools/rthsctl") > size)
		return -ENOENT;
	strcpy(slash, "/tools/rthsctl");
	return access(buf, X_OK) ? -errno : 0;
}
