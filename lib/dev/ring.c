// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The userspace side of the single-producer/single-consumer rings.
 *
 * The ordering is the kernel's (as in AF_XDP); its barriers are labelled
 * with letters in the uapi header, above struct rths_mmap_header, and at
 * each site here.  Indices are free-running u32s; their difference is
 * the fill level, so wrap-around at 2^32 needs no special case.
 *
 * The mapping is trusted only as far as its layout: we keep our own copy
 * of the index we own and check the other side's index before using it.
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

static bool span_ok(uint64_t off, uint64_t len, uint64_t align, size_t size)
{
	return off % align == 0 && off <= size && len <= size - off;
}

int rths_ring_bind(struct rths_ring *r, void *base, size_t size,
		   const struct rths_ring_info *ri, uint32_t entry_size,
		   const char *what, struct rths_err *err)
{
	memset(r, 0, sizeof(*r));
	if (!ri->entries)
		return 0;
	if (ri->entries & (ri->entries - 1))
		return rths_err_set(err, -EPROTO,
				    "%s ring: %u entries is not a power of two",
				    what, ri->entries);
	if (ri->entry_size < entry_size || ri->entry_size % 8)
		return rths_err_set(err, -EPROTO,
				    "%s ring: entry size %u, need %u", what,
				    ri->entry_size, entry_size);
	if (!span_ok(ri->producer, sizeof(uint32_t), sizeof(uint32_t), size) ||
	    !span_ok(ri->consumer, sizeof(uint32_t), sizeof(uint32_t), size) ||
	    ri->producer == ri->consumer ||
	    !span_ok(ri->desc, (uint64_t)ri->entries * ri->entry_size, 8, size))
		return rths_err_set(err, -EPROTO,
				    "%s ring: layout outside the %zu-byte mapping",
				    what, size);
	r->producer = (uint32_t *)((char *)base + ri->producer);
	r->consumer = (uint32_t *)((char *)base + ri->consumer);
	r->desc = (unsigned char *)base + ri->desc;
	r->entries = ri->entries;
	r->mask = ri->entries - 1;
	r->entry_size = ri->entry_size;
	return 0;
}

void rths_ring_sync(struct rths_ring *r, bool producer)
{
	if (!r->entries)
		return;
	/* S: matches A, C */
	r->head = __atomic_load_n(producer ? r->producer : r->consumer,
				  __ATOMIC_ACQUIRE);
}

uint32_t rths_ring_space(const struct rths_ring *r)
{
	uint32_t used;

	if (!r->entries)
		return 0;
	/* D: matches C */
	used = r->head - __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	return used > r->entries ? 0 : r->entries - used;
}

void *rths_ring_prod_slot(struct rths_ring *r, int *ret)
{
	uint32_t used;

	if (!r->entries) {
		*ret = -ENOENT;
		return NULL;
	}
	/* D: matches C */
	used = r->head - __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);
	if (used > r->entries) {
		*ret = -EIO;
		return NULL;
	}
	if (used == r->entries) {
		*ret = -EAGAIN;
		return NULL;
	}
	*ret = 0;
	return r->desc + (size_t)(r->head & r->mask) * r->entry_size;
}

void rths_ring_prod_commit(struct rths_ring *r)
{
	r->head++;
	/* A: matches B */
	__atomic_store_n(r->producer, r->head, __ATOMIC_RELEASE);
}

/* The owner consumes and frees slots. */
static int consume_owner(struct rths_ring *r, void *dst)
{
	/* B: matches A */
	uint32_t prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
	uint32_t avail = prod - r->head;

	if (!avail)
		return -EAGAIN;
	if (avail > r->entries)
		return -EIO;
	memcpy(dst, r->desc + (size_t)(r->head & r->mask) * r->entry_size,
	       r->entry_size);
	r->head++;
	/* C: matches D */
	__atomic_store_n(r->consumer, r->head, __ATOMIC_RELEASE);
	return 0;
}

/*
 * An observer cannot write the consumer index.  Entries it may read are
 * those between the owner's consumer index and the producer index; a slot
 * can be reused only after the owner consumed it, so a copy is valid if
 * the producer has not lapped it by the time the copy is done.
 */
static int consume_observer(struct rths_ring *r, void *dst, bool *gap)
{
	int tries;

	/* Bounded: a producer that keeps lapping us is not waited out. */
	for (tries = 0; tries < 16; tries++) {
		/* B: matches A */
		uint32_t prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		/* E: matches C */
		uint32_t cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE);

		if (prod - cons > r->entries)
			return -EIO;
		/* Behind the owner (records went by) or ahead of the
		 * producer (a new run reset the ring): follow the owner. */
		if ((int32_t)(r->head - cons) < 0 ||
		    (int32_t)(prod - r->head) < 0) {
			*gap = *gap || (int32_t)(r->head - cons) < 0;
			r->head = cons;
		}
		if (r->head == prod)
			return -EAGAIN;
		memcpy(dst, r->desc + (size_t)(r->head & r->mask) * r->entry_size,
		       r->entry_size);
		/* F: matches I */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		prod = __atomic_load_n(r->producer, __ATOMIC_RELAXED);
		/* At prod - head == entries the producer's next entry,
		 * index prod, lands in our slot and may be under way. */
		if (prod - r->head < r->entries) {
			r->head++;
			return 0;
		}
		*gap = true;	/* overwritten while we copied: skip it */
	}
	return -EAGAIN;
}

int rths_ring_consume(struct rths_ring *r, void *dst, bool owner, bool *gap)
{
	*gap = false;
	if (!r->entries)
		return -ENOENT;
	return owner ? consume_owner(r, dst) : consume_observer(r, dst, gap);
}
