/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The card API: what a card module (kernel/cards/) implements and what it
 * may know about its device.  struct rths_device is opaque here; cards see
 * it only through the accessors below.  Card modules include this header
 * and no other rths header; the core's internals are in rths.h.
 *
 * Calling context (see the Locking section of rths.h): @new, @del, @set,
 * @fill and @home run in process context with the device's lock held and
 * the loop not running ticks; @write and @read run in the one context
 * that runs ticks.  A card never takes a core lock.
 */
#ifndef _RTHS_CARD_H
#define _RTHS_CARD_H

#include <linux/device.h>
#include <linux/list.h>
#include <linux/types.h>
#include <net/netlink.h>
#include <linux/rths.h>

struct rths_device;

/**
 * struct rths_card_type - a kind of actuator interface card
 * @name: what "rthsctl dev add NAME type X" names it by
 * @owner: the module that implements it
 * @policy: netlink policy of its parameters (RTHS_A_DEV_CARD_PARAMS)
 * @maxattr: highest attribute type in @policy
 * @io_may_sleep: @write and @read may sleep (they always run in process
 *	context, but a card that says false could be driven from atomic
 *	context)
 * @user_params: a device's owner, not only an admin, may @set its
 *	parameters (they drive no hardware: the sim card's model)
 * @new: set up @rd->card_priv; @tb holds the parsed parameters (may be all
 *	NULL).  Validate everything before changing anything.
 * @del: undo @new; the loop is stopped
 * @set: change parameters while the device is stopped; validate all of
 *	@tb first, then apply, so that an error changes nothing
 * @fill: put the current parameters into @skb (inside the params nest)
 * @home: optional: where the actuators are now, nm per channel, so that a
 *	new device (and one whose parameters changed) starts there instead
 *	of jumping to 0
 * @write: drive the outputs, one value per channel, nm
 * @read: sample the inputs: displacement (nm) and force (uN) per channel
 *
 * @write and @read are called once per tick, in that order, from the loop
 * thread (or the RUN_TICK caller under the manual clock).  They return 0 or
 * a negative errno, which faults the device.
 */
struct rths_card_type {
	const char *name;
	struct module *owner;
	const struct nla_policy *policy;
	unsigned int maxattr;
	bool io_may_sleep;
	bool user_params;
	int (*new)(struct rths_device *rd, struct nlattr **tb,
		   struct netlink_ext_ack *extack);
	void (*del)(struct rths_device *rd);
	int (*set)(struct rths_device *rd, struct nlattr **tb,
		   struct netlink_ext_ack *extack);
	int (*fill)(struct rths_device *rd, struct sk_buff *skb);
	int (*home)(struct rths_device *rd, s64 *pos);
	int (*write)(struct rths_device *rd, const s64 *out);
	int (*read)(struct rths_device *rd, s64 *disp, s64 *force);

	/* private to the core */
	struct list_head list;
};

int rths_card_register(struct rths_card_type *ct);
void rths_card_unregister(struct rths_card_type *ct);

/*
 * A card module whose init and exit only register and unregister its
 * card type, as module_platform_driver() is for a platform driver.
 */
#define module_rths_card(__card) \
	module_driver(__card, rths_card_register, rths_card_unregister)

/* What a card may know about its device. */
u32 rths_card_channels(const struct rths_device *rd);
u32 rths_dev_rate(const struct rths_device *rd);
void *rths_card_priv(const struct rths_device *rd);
void rths_set_card_priv(struct rths_device *rd, void *priv);

#endif /* _RTHS_CARD_H */
