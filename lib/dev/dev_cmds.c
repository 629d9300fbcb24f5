// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Device commands: create, delete, configure, query, list; card types.
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

int rths_dev_new(struct rths_ctl *ctl, const char *name, const char *card,
		 uint32_t channels, const struct rths_sim_params *sim)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_DEV_NEW, 0);
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (!ret)
		ret = rths_put_name(&mb, RTHS_A_DEV_CARD, "card", card);
	if (!ret)
		ret = rths_put_u32(&mb, RTHS_A_DEV_CHANNELS, channels);
	if (!ret && sim && sim->set) {
		if (strcmp(card, "sim"))
			return rths_err_set(mb.err, -EINVAL,
					    "card %s: sim parameters given, but only card sim takes them",
					    card);
		ret = rths_put_sim(&mb, sim);
	}
	if (ret)
		return ret;
	return rths_nl_talk(&ctl->nl, mb.nlh, NULL, NULL);
}

int rths_dev_del(struct rths_ctl *ctl, const char *name)
{
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_DEV_DEL, name, NULL, NULL);
}

int rths_dev_set(struct rths_ctl *ctl, const char *name,
		 const struct rths_dev_config *cfg)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_DEV_SET, 0);
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (!ret)
		ret = rths_put_config(&mb, cfg);
	if (ret)
		return ret;
	ctl->nl.params = mb.params;
	return rths_nl_talk(&ctl->nl, mb.nlh, NULL, NULL);
}

static int info_cb(const struct nlmsghdr *nlh, void *arg)
{
	return rths_dev_info_parse(nlh, arg);
}

int rths_dev_get(struct rths_ctl *ctl, const char *name,
		 struct rths_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	return rths_ctl_dev_cmd(ctl, RTHS_CMD_DEV_GET, name, info_cb, info);
}

struct list_ctx {
	int (*cb)(const struct rths_dev_info *info, void *arg);
	void *arg;
	struct rths_dev_info info;
};

static int list_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct list_ctx *l = arg;
	int ret = rths_dev_info_parse(nlh, &l->info);

	if (ret)
		return ret;
	return l->cb(&l->info, l->arg);
}

int rths_dev_list(struct rths_ctl *ctl,
		  int (*cb)(const struct rths_dev_info *info, void *arg),
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
