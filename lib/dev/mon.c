// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The monitor: a socket subscribed to the family's "monitor" multicast
 * group, and the decoding of RTHS_CMD_EVENT messages.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dev/internal.h"

struct rths_mon {
	struct rths_nl nl;
	size_t len, off;	/* received bytes and the next message in rx */
};

int rths_event_parse(const struct nlmsghdr *nlh, struct rths_event *ev)
{
	const struct nlattr *tb[RTHS_A_MAX + 1] = { NULL };
	const struct nlattr *eb[RTHS_EVENT_A_MAX + 1] = { NULL };
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = rths_attr_parse_msg(nlh, &rths_space_dev, tb);
	if (ret)
		return ret;
	if (g->cmd != RTHS_CMD_EVENT || !tb[RTHS_A_EVENT])
		return -EPROTO;
	ret = rths_attr_parse_nest(tb[RTHS_A_EVENT], &rths_space_event, eb);
	if (ret)
		return ret;
	if (!eb[RTHS_EVENT_A_TYPE])
		return -EPROTO;
	ev->type = rths_attr_u32(eb[RTHS_EVENT_A_TYPE]);
	ev->dev_id = rths_attr_u32(tb[RTHS_A_DEV_ID]);
	rths_attr_name_copy(ev->dev_name, tb[RTHS_A_DEV_NAME]);
	if (eb[RTHS_EVENT_A_TICK])
		ev->tick = mnl_attr_get_u64(eb[RTHS_EVENT_A_TICK]);
	if (eb[RTHS_EVENT_A_STEP])
		ev->step = mnl_attr_get_u64(eb[RTHS_EVENT_A_STEP]);
	ev->state = rths_attr_u32(eb[RTHS_EVENT_A_STATE]);
	ev->reason = rths_attr_u32(eb[RTHS_EVENT_A_REASON]);
	ev->fault = rths_attr_u32(eb[RTHS_EVENT_A_FAULT]);
	ev->channel = rths_attr_u32(eb[RTHS_EVENT_A_CHANNEL]);
	ev->limit = rths_attr_u32(eb[RTHS_EVENT_A_LIMIT]);
	ev->late_action = rths_attr_u32(eb[RTHS_EVENT_A_LATE_ACTION]);
	ev->late_ticks = rths_attr_u32(eb[RTHS_EVENT_A_LATE_TICKS]);
	ev->ring = rths_attr_u32(eb[RTHS_EVENT_A_RING]);
	if (eb[RTHS_EVENT_A_VALUE]) {
		ev->value_raw = (int64_t)mnl_attr_get_u64(eb[RTHS_EVENT_A_VALUE]);
		/* The value is in the tripped limit's units. */
		ev->value = ev->limit == RTHS_LIMIT_FORCE ?
			    rths_un_to_n(ev->value_raw) :
			    rths_nm_to_m(ev->value_raw);
	}
	return 0;
}

int rths_mon_open(struct rths_mon **monp)
{
	struct rths_mon *mon = calloc(1, sizeof(*mon));
	int ret;

	*monp = NULL;
	if (!mon)
		return -ENOMEM;
	ret = rths_nl_open(&mon->nl);
	if (ret)
		goto fail;
	if (!mon->nl.mon_group) {
		ret = -ENOENT;
		goto fail;
	}
	if (mnl_socket_setsockopt(mon->nl.sock, NETLINK_ADD_MEMBERSHIP,
				  &mon->nl.mon_group,
				  sizeof(mon->nl.mon_group)) < 0) {
		ret = -errno;
		goto fail;
	}
	*monp = mon;
	return 0;
fail:
	rths_nl_close(&mon->nl);
	free(mon);
	return ret;
}

void rths_mon_close(struct rths_mon *mon)
{
	if (!mon)
		return;
	rths_nl_close(&mon->nl);
	free(mon);
}

int rths_mon_fd(const struct rths_mon *mon)
{
	return mnl_socket_get_fd(mon->nl.sock);
}

/* Decode the next event already received; 1 if one was stored. */
static int next_buffered(struct rths_mon *mon, struct rths_event *ev)
{
	while (mon->off < mon->len) {
		const struct nlmsghdr *nlh = (const void *)(mon->nl.rx + mon->off);
		int left = (int)(mon->len - mon->off);

		if (!mnl_nlmsg_ok(nlh, left)) {
			mon->off = mon->len;
			break;
		}
		mon->off += MNL_ALIGN(nlh->nlmsg_len);
		if (nlh->nlmsg_type != mon->nl.family)
			continue;
		if (!rths_event_parse(nlh, ev))
			return 1;
	}
	return 0;
}

int rths_mon_read(struct rths_mon *mon, struct rths_event *ev, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : rths_now_ms() + timeout_ms;
	struct pollfd pfd = { .fd = rths_mon_fd(mon), .events = POLLIN };

	for (;;) {
		int wait_ms = -1, ret;
		ssize_t n;

		if (next_buffered(mon, ev))
			return 1;
		if (deadline >= 0) {
			int64_t left = deadline - rths_now_ms();

			wait_ms = left <= 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
		}
		ret = poll(&pfd, 1, wait_ms);
		if (ret < 0)
			return -errno;
		if (!ret) {
			if (deadline >= 0 && rths_now_ms() >= deadline)
				return 0;
			continue;
		}
		n = recv(pfd.fd, mon->nl.rx, sizeof(mon->nl.rx), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;	/* -ENOBUFS: events were lost */
		}
		mon->len = (size_t)n;
		mon->off = 0;
	}
}
