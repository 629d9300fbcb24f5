/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view's frame ring: one writer (the step thread), any number of
 * readers.  The writer never waits, allocates or makes a system call: it
 * overwrites the oldest frame.  A reader that falls a ring behind is told
 * how many frames it lost and goes on from the oldest one still there.
 *
 * Each slot is a sequence lock: its sequence is odd while the writer
 * fills it and 2 (n + 1) once frame n is whole.  A reader copies the
 * frame between two reads of the sequence and keeps it only if both read
 * 2 (n + 1).
 */
#ifndef RTHS_LIVE_RING_H
#define RTHS_LIVE_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Actuator channels and sites a frame carries (the tools' at most). */
#define LIVE_MAX_CH 8
#define LIVE_MAX_SITES 8
/* Groups (rths-site's device substructures) a view shows. */
#define LIVE_MAX_GROUPS 16

struct live_frame {
	uint64_t step;
	double t;		/* s */
	double compute;		/* s, the step's compute time */
	uint32_t flags;		/* RTHS_FB_F_* of the step's feedback */
	uint32_t channels;
	double target[LIVE_MAX_CH];	/* m, decoupled targets */
	double disp[LIVE_MAX_CH];	/* m, measured */
	double force[LIVE_MAX_CH];	/* N, measured */
	/* a distributed test's sites (rths-coord) */
	uint32_t sites;
	float rtt_ms[LIVE_MAX_SITES];	/* this step's round trip */
	uint32_t reissues[LIVE_MAX_SITES];	/* of this step */
	uint32_t reconnects[LIVE_MAX_SITES];	/* so far */
};

struct live_slot {
	_Atomic uint64_t seq;
	struct live_frame f;
};

struct live_ring {
	_Atomic uint64_t head;	/* frames published */
	uint64_t mask;		/* slots - 1 */
	struct live_slot *slot;
};

/* 2^@order slots, allocated and touched now (the writer then faults on
 * nothing).  -ENOMEM or 0. */
int live_ring_init(struct live_ring *r, unsigned int order);
void live_ring_free(struct live_ring *r);
/* The writer: frame @f becomes number head. */
void live_ring_publish(struct live_ring *r, const struct live_frame *f);
/*
 * A reader: up to @max frames from number *@cursor on into @out,
 * advancing *@cursor; frames overwritten before they could be read are
 * counted in *@lost (and skipped).  Returns the number copied.
 */
size_t live_ring_read(struct live_ring *r, uint64_t *cursor,
		      struct live_frame *out, size_t max, uint64_t *lost);

#endif /* RTHS_LIVE_RING_H */
