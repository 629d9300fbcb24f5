// SPDX-License-Identifier: GPL-2.0
/*
 * The shared region and its single-producer/single-consumer rings.
 *
 * The ordering is as in AF_XDP; its barriers are labelled with letters
 * in the uapi header, above struct rths_mmap_header, and at each site
 * here.
 *
 * Userspace can write anything anywhere in the region at any time.  The
 * kernel keeps its own copy of each index it owns, bounds every index that
 * userspace wrote, copies each entry field once before validating it, and
 * never reads what it produced back from shared memory.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rths.h"

/* Producer and consumer indices on separate cache lines. */
#define RTHS_RING_CTL_SIZE	(2 * SMP_CACHE_BYTES)

static size_t rths_kring_layout(struct rths_kring *r, size_t off, u32 entries,
				u32 entry_size)
{
	r->entries = entries;
	r->mask = entries ? entries - 1 : 0;
	r->entry_size = entry_size;
	r->index = 0;
	if (!entries) {
		r->off_producer = 0;
		r->off_consumer = 0;
		r->off_desc = 0;
		return off;
	}
	r->off_producer = off;
	r->off_consumer = off + SMP_CACHE_BYTES;
	r->off_desc = off + RTHS_RING_CTL_SIZE;
	return PAGE_ALIGN(r->off_desc + (size_t)entries * entry_size);
}

static void rths_kring_bind(struct rths_kring *r, void *base)
{
	if (!r->entries)
		return;
	r->producer = base + r->off_producer;
	r->consumer = base + r->off_consumer;
	r->desc = base + r->off_desc;
}

struct rths_region *rths_region_alloc(u32 channels,
				      const struct rths_config *cfg)
{
	struct rths_mmap_header *hdr;
	struct rths_region *rg;
	size_t off = PAGE_SIZE;

	rg = kzalloc(sizeof(*rg), GFP_KERNEL);
	if (!rg)
		return NULL;
	kref_init(&rg->ref);
	atomic_set(&rg->maps, 0);
	off = rths_kring_layout(&rg->cmd, off, cfg->cmd_entries,
				RTHS_CMD_ENTRY_SIZE(channels));
	off = rths_kring_layout(&rg->fb, off, cfg->fb_entries,
				RTHS_FB_ENTRY_SIZE(channels));
	off = rths_kring_layout(&rg->trace, off, cfg->trace_entries,
				RTHS_TRACE_ENTRY_SIZE(channels));
	rg->size = off;
	rg->base = vmalloc_user(rg->size);
	if (!rg->base) {
		kfree(rg);
		return NULL;
	}
	rths_kring_bind(&rg->cmd, rg->base);
	rths_kring_bind(&rg->fb, rg->base);
	rths_kring_bind(&rg->trace, rg->base);

	hdr = rg->base;
	hdr->magic = RTHS_MMAP_MAGIC;
	hdr->version = RTHS_MMAP_VERSION;
	hdr->channels = channels;
	hdr->state = RTHS_STATE_STOPPED;
	return rg;
}

void rths_region_get(struct rths_region *rg)
{
	kref_get(&rg->ref);
}

static void rths_region_release(struct kref *ref)
{
	struct rths_region *rg = container_of(ref, struct rths_region, ref);

	vfree(rg->base);
	kfree(rg);
}

void rths_region_put(struct rths_region *rg)
{
	kref_put(&rg->ref, rths_region_release);
}

static void rths_kring_reset(struct rths_kring *r)
{
	r->index = 0;
	if (!r->entries)
		return;
	WRITE_ONCE(*r->producer, 0);
	WRITE_ONCE(*r->consumer, 0);
}

/* A new run starts with empty rings. */
void rths_region_reset(struct rths_region *rg)
{
	rths_kring_reset(&rg->cmd);
	rths_kring_reset(&rg->fb);
	rths_kring_reset(&rg->trace);
}

/*
 * Takes the command of step @step off the command ring into @target.
 * Returns 1 if one was taken, 0 if the ring is empty, or -enum rths_fault.
 */
int rths_kring_pop_cmd(struct rths_kring *r, u32 channels, u64 step,
		       s64 *target)
{
	const struct rths_cmd_entry *e;
	u32 prod, avail, flags, nch;
	u64 estep;
	u32 ch;

	prod = smp_load_acquire(r->producer);	/* B: matches A */
	avail = prod - r->index;
	if (avail > r->entries)
		return -RTHS_FAULT_CMD_INDEX;
	if (!avail)
		return 0;

	e = r->desc + (size_t)(r->index & r->mask) * r->entry_size;
	estep = READ_ONCE(e->step);
	flags = READ_ONCE(e->flags);
	nch = READ_ONCE(e->channels);
	if (estep != step)
		return -RTHS_FAULT_CMD_STEP;
	if (flags || nch != channels)
		return -RTHS_FAULT_CMD_ENTRY;
	for (ch = 0; ch < channels; ch++) {
		s64 v = READ_ONCE(e->target[ch]);

		if (v > RTHS_POS_MAX || v < -RTHS_POS_MAX)
			return -RTHS_FAULT_CMD_ENTRY;
		target[ch] = v;
	}
	r->index++;
	smp_store_release(r->consumer, r->index);	/* C: matches D */
	return 1;
}

/*
 * Publishes one entry on a kernel-produced ring.  Returns 0, -ENOSPC if
 * the ring is full (nothing is overwritten), or -EPROTO if the consumer
 * index userspace wrote is impossible.
 */
int rths_kring_push(struct rths_kring *r, const void *entry, size_t len)
{
	u32 cons, used;

	cons = smp_load_acquire(r->consumer);	/* D: matches C */
	used = r->index - cons;
	if (used > r->entries)
		return -EPROTO;
	if (used == r->entries)
		return -ENOSPC;
	smp_wmb();	/* I: matches F */
	memcpy(r->desc + (size_t)(r->index & r->mask) * r->entry_size, entry,
	       len);
	r->index++;
	smp_store_release(r->producer, r->index);	/* A: matches B */
	return 0;
}

bool rths_kring_has_data(const struct rths_kring *r)
{
	/* P: matches none */
	return r->entries && READ_ONCE(*r->consumer) != r->index;
}
