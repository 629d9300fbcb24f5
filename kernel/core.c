// SPDX-License-Identifier: GPL-2.0
/*
 * rths core: the registries of card types and devices, device creation and
 * removal, and the module's init and exit.
 */
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "rths.h"

DEFINE_MUTEX(rths_lock);		/* both registries */
static LIST_HEAD(rths_cards);
static LIST_HEAD(rths_devices);
static DEFINE_IDA(rths_ids);

u32 rths_card_channels(const struct rths_device *rd)
{
	return rd->channels;
}
EXPORT_SYMBOL_GPL(rths_card_channels);

u32 rths_dev_rate(const struct rths_device *rd)
{
	return rd->cfg.rate;
}
EXPORT_SYMBOL_GPL(rths_dev_rate);

void *rths_card_priv(const struct rths_device *rd)
{
	return rd->card_priv;
}
EXPORT_SYMBOL_GPL(rths_card_priv);

void rths_set_card_priv(struct rths_device *rd, void *priv)
{
	rd->card_priv = priv;
}
EXPORT_SYMBOL_GPL(rths_set_card_priv);

static struct rths_card_type *rths_card_find(const char *name)
{
	struct rths_card_type *ct;

	lockdep_assert_held(&rths_lock);
	list_for_each_entry(ct, &rths_cards, list)
		if (!strcmp(ct->name, name))
			return ct;
	return NULL;
}

int rths_card_register(struct rths_card_type *ct)
{
	int err = 0;

	if (!ct->name || strlen(ct->name) >= RTHS_NAME_LEN || !ct->new ||
	    !ct->del || !ct->write || !ct->read)
		return -EINVAL;
	mutex_lock(&rths_lock);
	if (rths_card_find(ct->name))
		err = -EEXIST;
	else
		list_add_tail(&ct->list, &rths_cards);
	mutex_unlock(&rths_lock);
	return err;
}
EXPORT_SYMBOL_GPL(rths_card_register);

static void rths_dev_teardown(struct rths_device *rd);

/* Removes the type and every device of that type, stopping their loops. */
void rths_card_unregister(struct rths_card_type *ct)
{
	struct rths_device *rd, *tmp;
	LIST_HEAD(doomed);

	mutex_lock(&rths_lock);
	list_del(&ct->list);
	list_for_each_entry_safe(rd, tmp, &rths_devices, list) {
		if (rd->card == ct) {
			rd->unlisted = true;
			list_move(&rd->list, &doomed);
		}
	}
	mutex_unlock(&rths_lock);

	list_for_each_entry_safe(rd, tmp, &doomed, list) {
		list_del_init(&rd->list);
		rths_dev_teardown(rd);
	}
}
EXPORT_SYMBOL_GPL(rths_card_unregister);

/* Calls @fn for the card types after the first @skip; for dumps. */
int rths_card_for_each(int (*fn)(struct rths_card_type *ct, void *arg),
		       void *arg, unsigned int skip)
{
	struct rths_card_type *ct;
	unsigned int i = 0;
	int err = 0;

	mutex_lock(&rths_lock);
	list_for_each_entry(ct, &rths_cards, list) {
		if (i++ < skip)
			continue;
		err = fn(ct, arg);
		if (err)
			break;
	}
	mutex_unlock(&rths_lock);
	return err;
}

/* Parses a card's parameter nest into a table the caller kfree()s. */
int rths_card_params(struct rths_card_type *ct, struct nlattr *params,
		     struct nlattr ***tbp, struct netlink_ext_ack *extack)
{
	struct nlattr **tb;
	int err;

	tb = kcalloc(ct->maxattr + 1, sizeof(*tb), GFP_KERNEL);
	if (!tb)
		return -ENOMEM;
	if (params) {
		if (!ct->policy) {
			NL_SET_ERR_MSG_ATTR(extack, params,
					    "this card type takes no parameters");
			kfree(tb);
			return -EINVAL;
		}
		err = nla_parse_nested(tb, ct->maxattr, params, ct->policy,
				       extack);
		if (err) {
			kfree(tb);
			return err;
		}
	}
	*tbp = tb;
	return 0;
}

static void rths_dev_release(struct kref *ref)
{
	struct rths_device *rd = container_of(ref, struct rths_device, ref);

	if (rd->region)
		rths_region_put(rd->region);
	rths_stats_hist_free(rd);
	kfree(rd);
}

void rths_dev_put(struct rths_device *rd)
{
	kref_put(&rd->ref, rths_dev_release);
}

struct rths_device *rths_dev_get_by_name(const char *name)
{
	struct rths_device *rd;

	mutex_lock(&rths_lock);
	list_for_each_entry(rd, &rths_devices, list) {
		if (!strcmp(rd->name, name)) {
			kref_get(&rd->ref);
			mutex_unlock(&rths_lock);
			return rd;
		}
	}
	mutex_unlock(&rths_lock);
	return NULL;
}

struct rths_device *rths_dev_get_by_id(u32 id)
{
	struct rths_device *rd;

	mutex_lock(&rths_lock);
	list_for_each_entry(rd, &rths_devices, list) {
		if (rd->id == id) {
			kref_get(&rd->ref);
			mutex_unlock(&rths_lock);
			return rd;
		}
	}
	mutex_unlock(&rths_lock);
	return NULL;
}

/* The device with the lowest id >= *id, for dumps; advances *id. */
struct rths_device *rths_dev_get_next(u32 *id)
{
	struct rths_device *rd, *best = NULL;

	mutex_lock(&rths_lock);
	list_for_each_entry(rd, &rths_devices, list)
		if (rd->id >= *id && (!best || rd->id < best->id))
			best = rd;
	if (best) {
		kref_get(&best->ref);
		*id = best->id + 1;
	}
	mutex_unlock(&rths_lock);
	return best;
}

/*
 * Exactly [a-zA-Z0-9_-]: the name becomes a path under /dev/rths and is
 * printed by tools, so the kernel's isalnum() (which takes Latin-1
 * letters) is not enough.
 */
bool rths_name_valid(const char *name)
{
	const char *p;

	if (!*name)
		return false;
	for (p = name; *p; p++)
		if (!isascii(*p) || (!isalnum(*p) && *p != '_' && *p != '-'))
			return false;
	return true;
}

static void rths_config_default(struct rths_config *cfg)
{
	unsigned int ch;

	cfg->clock = RTHS_CLOCK_HRTIMER;
	cfg->rate = RTHS_RATE_DEFAULT;
	cfg->step_ticks = 8;
	cfg->late_policy = RTHS_LATE_EVENT_DRIVEN;
	cfg->late_deadline = 0;
	cfg->ramp_ticks = 32;
	/* Labs isolate the last CPU for real-time work. */
	cfg->cpu = cpumask_last(cpu_online_mask);
	cfg->priority = 80;
	cfg->cmd_entries = 64;
	cfg->fb_entries = 1024;
	cfg->trace_entries = 0;
	for (ch = 0; ch < RTHS_MAX_CHANNELS; ch++) {
		cfg->limit[ch].pos_min = -RTHS_POS_MAX;
		cfg->limit[ch].pos_max = RTHS_POS_MAX;
		cfg->limit[ch].vel_max = U64_MAX;
		cfg->limit[ch].force_max = RTHS_FORCE_MAX;
	}
}

int rths_dev_create(const char *name, const char *card, u32 channels,
		    struct nlattr *params, struct netlink_ext_ack *extack)
{
	struct rths_event_k ev = { .type = RTHS_EVENT_DEV_NEW };
	struct rths_card_type *ct;
	struct rths_device *rd;
	struct nlattr **tb;
	bool loaded = false;
	int err;

	if (!rths_name_valid(name)) {
		NL_SET_ERR_MSG(extack,
			       "device name: use letters, digits, '_' and '-'");
		return -EINVAL;
	}
again:
	mutex_lock(&rths_lock);
	ct = rths_card_find(card);
	if (!ct && !loaded) {
		/* Card modules carry the alias "rths-card-NAME". */
		mutex_unlock(&rths_lock);
		request_module("rths-card-%s", card);
		loaded = true;
		goto again;
	}
	if (!ct) {
		NL_SET_ERR_MSG(extack,
			       "unknown card type (no module rths-card-TYPE registered it)");
		err = -ENOENT;
		goto unlock;
	}
	list_for_each_entry(rd, &rths_devices, list) {
		if (!strcmp(rd->name, name)) {
			NL_SET_ERR_MSG(extack, "device name already in use");
			err = -EEXIST;
			goto unlock;
		}
	}
	err = rths_card_params(ct, params, &tb, extack);
	if (err)
		goto unlock;

	err = -ENOMEM;
	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		goto free_tb;
	kref_init(&rd->ref);
	INIT_LIST_HEAD(&rd->list);
	mutex_init(&rd->lock);
	init_waitqueue_head(&rd->wq);
	spin_lock_init(&rd->region_lock);
	rths_event_init(rd);
	rths_stats_init(rd);
	strscpy(rd->name, name, sizeof(rd->name));
	rd->channels = channels;
	rd->state = RTHS_STATE_STOPPED;
	rths_config_default(&rd->cfg);
	memcpy(rd->envelope, rd->cfg.limit, sizeof(rd->envelope));

	err = ida_alloc_max(&rths_ids, RTHS_MAX_DEVICES - 1, GFP_KERNEL);
	if (err < 0) {
		NL_SET_ERR_MSG(extack, "too many devices");
		goto free_rd;
	}
	rd->id = err;

	err = -ENOMEM;
	rd->region = rths_region_alloc(channels, &rd->cfg);
	if (!rd->region)
		goto free_id;

	rd->card = ct;
	err = ct->new(rd, tb, extack);
	if (err)
		goto free_id;
	err = rths_loop_home(rd);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot read where the actuators are");
		goto del_card;
	}
	rths_loop_reset(rd);

	err = rths_chardev_add(rd);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot create the device node");
		goto del_card;
	}
	list_add_tail(&rd->list, &rths_devices);
	mutex_unlock(&rths_lock);
	kfree(tb);
	rths_event_send_now(rd, &ev);
	return 0;

del_card:
	ct->del(rd);
free_id:
	ida_free(&rths_ids, rd->id);
free_rd:
	rths_dev_put(rd);
free_tb:
	kfree(tb);
unlock:
	mutex_unlock(&rths_lock);
	return err;
}

/*
 * Stops the device and detaches it from its card; the caller has already
 * removed it from the registry.  Open files keep the memory alive.
 */
static void rths_dev_teardown(struct rths_device *rd)
{
	struct rths_event_k ev = { .type = RTHS_EVENT_DEV_DEL };

	mutex_lock(&rd->lock);
	if (rd->state != RTHS_STATE_STOPPED) {
		if (rd->cfg.clock == RTHS_CLOCK_HRTIMER)
			rths_rt_stop(rd);
		rths_loop_set_state(rd, RTHS_STATE_STOPPED,
				    RTHS_REASON_REMOVED);
	}
	WRITE_ONCE(rd->dead, true);	/* mmap() reads it without rd->lock */
	rd->card->del(rd);
	rd->card = NULL;
	mutex_unlock(&rd->lock);

	rths_event_flush(rd);
	rths_event_send_now(rd, &ev);
	rths_chardev_del(rd);
	wake_up_interruptible_all(&rd->wq);
	ida_free(&rths_ids, rd->id);
	rths_dev_put(rd);
}

/* The caller holds a reference; whoever unlists the device tears it down. */
int rths_dev_destroy(struct rths_device *rd)
{
	mutex_lock(&rths_lock);
	if (rd->unlisted) {
		mutex_unlock(&rths_lock);
		return -ENODEV;
	}
	rd->unlisted = true;
	list_del_init(&rd->list);
	mutex_unlock(&rths_lock);
	rths_dev_teardown(rd);
	return 0;
}

static int __init rths_init(void)
{
	int err;

	err = rths_rt_init();
	if (err)
		return err;
	err = rths_chardev_init();
	if (err)
		goto rt_exit;
	err = rths_netlink_init();
	if (err)
		goto chardev_exit;
	return 0;
chardev_exit:
	rths_chardev_exit();
rt_exit:
	rths_rt_exit();
	return err;
}

static void __exit rths_exit(void)
{
	/* Card modules depend on this one, so no device is left. */
	WARN_ON(!list_empty(&rths_devices));
	rths_netlink_exit();
	rths_chardev_exit();
	rths_rt_exit();
	ida_destroy(&rths_ids);
}

module_init(rths_init);
module_exit(rths_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Real-time hybrid simulation: actuator loop, rings, netlink control");
MODULE_AUTHOR("rths developers");
MODULE_ALIAS_GENL_FAMILY(RTHS_GENL_NAME);
