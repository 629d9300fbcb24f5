// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Run control: start, stop, hold, and manual ticks.
 */
#include <errno.h>

#include "dev/internal.h"

/*
 * Run control, and the configuration of a stopped device, take
 * CAP_NET_ADMIN or the device's owner fd (rths_ctl_owner_talk).  What
 * leaves nothing running may borrow the node for the request; a start or
 * ticks need an owner handle, as a run whose owner closes holds.
 */
int rths_run_cmd(struct rths_ctl *ctl, uint8_t cmd, const char *name,
		 enum rths_owner_need need)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, cmd, 0);
	int ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);

	return ret ? ret : rths_ctl_owner_talk(ctl, &mb, name, need);
}

int rths_run_start(struct rths_ctl *ctl, const char *name)
{
	return rths_run_cmd(ctl, RTHS_CMD_RUN_START, name, RTHS_OWNER_HANDLE);
}

int rths_run_stop(struct rths_ctl *ctl, const char *name)
{
	return rths_run_cmd(ctl, RTHS_CMD_RUN_STOP, name, RTHS_OWNER_BORROW);
}

int rths_run_stop_now(struct rths_ctl *ctl, const char *name)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_RUN_STOP, 0);
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (ret)
		return ret;
	if (!mnl_attr_put_check(mb.nlh, mb.size, RTHS_A_RUN_NOW, 0, NULL))
		return rths_err_set(mb.err, -EMSGSIZE, "request too large");
	return rths_ctl_owner_talk(ctl, &mb, name, RTHS_OWNER_BORROW);
}

int rths_run_hold(struct rths_ctl *ctl, const char *name)
{
	return rths_run_cmd(ctl, RTHS_CMD_RUN_HOLD, name, RTHS_OWNER_BORROW);
}

int rths_run_tick(struct rths_ctl *ctl, const char *name, uint32_t ticks)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, RTHS_CMD_RUN_TICK, 0);
	int ret;

	ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);
	if (!ret)
		ret = rths_put_u32(&mb, RTHS_A_RUN_TICKS, ticks);
	if (ret)
		return ret;
	return rths_ctl_owner_talk(ctl, &mb, name, RTHS_OWNER_HANDLE);
}
