// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Device commands: create, delete, configure, query, list; card types.
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

int rths_dev_new(struct rths_ctl *ctl, const char *name, const char *card,
		 uint32_t channels, const struct rths_card_params *card_params)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_DEV_NEW, 0);
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (!ret)
		ret = rths_put_name(&mb, RTHS_A_DEV_CARD, "card", card);
	if (!ret)
		ret = rths_put_u32(&mb, RTHS_A_DEV_CHANNELS, channels);
	/* in the same request: comedi needs its board at creation */
	if (!ret && card_params)
		ret = rths_put_card(&mb, card, card_params);
	if (ret)
		return ret;
	ctl->nl.params = mb.params;
	return rths_nl_talk(&ctl->nl, mb.nlh, NULL, NULL);
}

int rths_dev_del(struct rths_ctl *ctl, const char *name)
{
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_DEV_DEL, name, NULL, NULL);
}

int rths_dev_set(struct rths_ctl *ctl, const char *name,
		 const struct rths_dev_config *cfg, size_t cfg_size,
		 const struct rths_card_params *card_params)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_DEV_SET, 0);
	struct rths_dev_config c;
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (!ret && cfg)
		ret = rths_copy_in(&c, sizeof(c), cfg, cfg_size,
				   RTHS_DEV_CONFIG_SIZE_VER0, "rths_dev_config",
				   mb.err);
	if (!ret && cfg)
		ret = rths_put_config(&mb, &c);
	/* the kernel wants their card, and checks it is the device's */
	if (!ret && card_params && card_params->card)
		ret = rths_put_name(&mb, RTHS_A_DEV_CARD, "card",
				    card_params->card);
	if (!ret && card_params)
		ret = rths_put_card(&mb, NULL, card_params);
	if (ret)
		return ret;
	ctl->nl.params = mb.params;
	/* a stopped device's owner may set what a run sets */
	return rths_ctl_owner_talk(ctl, &mb, name, RTHS_OWNER_BORROW);
}

static int reply_cb(const struct nlmsghdr *nlh, void *arg)
{
	return rths_dev_info_parse(nlh, arg);
}

/* DEV_GET of one device into @r. */
static int dev_get(struct rths_ctl *ctl, const char *name,
		   struct rths_dev_reply *r)
{
	memset(r, 0, sizeof(*r));
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_DEV_GET, name, reply_cb, r);
}

int rths_dev_get(struct rths_ctl *ctl, const char *name,
		 struct rths_dev_info *info, size_t info_size)
{
	struct rths_dev_reply r;
	int ret;

	rths_err_clear(&ctl->nl.err);
	/* refuse a bad size before asking the kernel anything */
	ret = rths_copy_out(info, info_size, &r.info, 0,
			    RTHS_DEV_INFO_SIZE_VER0, "rths_dev_info",
			    &ctl->nl.err);
	if (!ret)
		ret = dev_get(ctl, name, &r);
	if (!ret)
		ret = rths_copy_out(info, info_size, &r.info, sizeof(r.info),
				    RTHS_DEV_INFO_SIZE_VER0, "rths_dev_info",
				    &ctl->nl.err);
	return ret;
}

int rths_dev_get_card(struct rths_ctl *ctl, const char *name,
		      const char *card, void *params, size_t size)
{
	struct rths_dev_reply r;
	int ret = dev_get(ctl, name, &r);

	if (!ret)
		ret = rths_card_params_out(&r, card, params, size,
					   &ctl->nl.err);
	return ret;
}

struct list_ctx {
	int (*cb)(const struct rths_dev_info *info,
		  const struct rths_card_params *card, void *arg);
	void *arg;
	struct rths_dev_reply r;
};

static int list_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct list_ctx *l = arg;
	struct rths_card_params cp;
	int ret = rths_dev_info_parse(nlh, &l->r);

	if (ret)
		return ret;
	rths_dev_reply_card(&l->r, &cp);
	return l->cb(&l->r.info, &cp, l->arg);
}

int rths_dev_list(struct rths_ctl *ctl,
		  int (*cb)(const struct rths_dev_info *info,
			    const struct rths_card_params *card, void *arg),
		  void *arg)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_DEV_GET, NLM_F_DUMP);
	struct list_ctx l = { .cb = cb, .arg = arg };

	return rths_nl_talk(&ctl->nl, mb.nlh, list_cb, &l);
}

struct card_ctx {
	int (*cb)(const char *card, void *arg);
	void *arg;
};

static int card_cb(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *tb[RTHS_A_MAX + 1] = { NULL };
	struct card_ctx *c = arg;
	int ret = rths_attr_parse_msg(nlh, &rths_space_dev, tb);

	if (ret)
		return ret;
	if (!tb[RTHS_A_DEV_CARD])
		return -EPROTO;
	return c->cb(mnl_attr_get_str(tb[RTHS_A_DEV_CARD]), c->arg);
}

int rths_card_list(struct rths_ctl *ctl,
		   int (*cb)(const char *card, void *arg), void *arg)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_CARD_GET,
					     NLM_F_DUMP);
	struct card_ctx c = { cb, arg };

	return rths_nl_talk(&ctl->nl, mb.nlh, card_cb, &c);
}
