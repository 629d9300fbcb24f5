// SPDX-License-Identifier: GPL-2.0
/* The live view's frame ring (ring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

int live_ring_init(struct live_ring *r, unsigned int order)
{
	size_t n = (size_t)1 << order;

	memset(r, 0, sizeof(*r));
	r->slot = calloc(n, sizeof(*r->slot));
	if (!r->slot)
		return -ENOMEM;
	/* calloc's pages are touched here, not by the step thread */
	memset(r->slot, 0, n * sizeof(*r->slot));
	r->mask = n - 1;
	return 0;
}

void live_ring_free(struct live_ring *r)
{
	free(r->slot);
	r->slot = NULL;
}

void live_ring_publish(struct live_ring *r, const struct live_frame *f)
{
	uint64_t n = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct live_slot *s = &r->slot[n & r->mask];

	/* L1, matches L3: odd before the frame changes */
	atomic_store_explicit(&s->seq, 2 * n + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	s->f = *f;
	/* L2, matches L3 and L4: the frame before its sequence and the head */
	atomic_store_explicit(&s->seq, 2 * (n + 1), memory_order_release);
	atomic_store_explicit(&r->head, n + 1, memory_order_release);
}

size_t live_ring_read(struct live_ring *r, uint64_t *cursor,
		      struct live_frame *out, size_t max, uint64_t *lost)
{
	/* L4, matches L2: the frames below head are whole (or newer) */
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t got = 0;

	if (head - *cursor > r->mask + 1) {
		*lost += head - (r->mask + 1) - *cursor;
		*cursor = head - (r->mask + 1);
	}
	while (*cursor < head && got < max) {
		struct live_slot *s = &r->slot[*cursor & r->mask];
		uint64_t want = 2 * (*cursor + 1), a, b;

		struct live_frame f;

		a = atomic_load_explicit(&s->seq, memory_order_acquire);
		f = s->f;
		/* L3, matches L1 and L2: the copy before the second read */
		atomic_thread_fence(memory_order_acquire);
		b = atomic_load_explicit(&s->seq, memory_order_relaxed);
		/* a torn copy never reaches @out */
		if (a == want && b == want)
			out[got++] = f;
		else
			(*lost)++;	/* overwritten while we read */
		(*cursor)++;
	}
	return got;
}
