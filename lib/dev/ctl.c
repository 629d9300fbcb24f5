// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control socket: a generic netlink socket with extended acks, the
 * family and monitor group resolved through nlctrl, and one request/reply
 * exchange at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dev/internal.h"

struct talk_ctx {
	struct rths_nl *nl;
	const struct nlmsghdr *req;
	rths_reply_cb cb;
	void *arg;
	int ret;		/* first error, or cb's stop value */
	bool stopped;		/* cb stopped: drain the rest */
};

static bool ours(const struct talk_ctx *t, const struct nlmsghdr *nlh)
{
	/* Leftovers of an earlier, abandoned exchange carry an older
	 * sequence number; skip them rather than fail. */
	return nlh->nlmsg_seq == t->req->nlmsg_seq &&
	       nlh->nlmsg_pid == t->nl->portid;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *t = data;
	int ret;

	if (!ours(t, nlh) || nlh->nlmsg_type != t->req->nlmsg_type ||
	    t->stopped || !t->cb)
		return MNL_CB_OK;
	ret = t->cb(nlh, t->arg);
	if (ret < 0) {
		t->ret = ret;
		if (ret == -EPROTO && !t->nl->err.msg[0])
			rths_err_set(&t->nl->err, 0,
				     "malformed attribute in the kernel's reply");
		t->stopped = true;
	} else if (ret > 0) {
		t->ret = ret;
		t->stopped = true;
	}
	return MNL_CB_OK;
}

/* Our request's ack (NLMSG_ERROR) or NLMSG_DONE ends the talk. */
static int end_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *t = data;
	int ret;

	if (!ours(t, nlh))
		return MNL_CB_OK;
	if (nlh->nlmsg_type == NLMSG_ERROR)
		ret = rths_ack_decode_params(t->req, nlh, t->nl->params,
					     &t->nl->err);
	else
		ret = rths_done_decode_params(t->req, nlh, t->nl->params,
					      &t->nl->err);
	if (ret && t->ret <= 0)
		t->ret = ret;
	return ret ? MNL_CB_ERROR : MNL_CB_STOP;
}

static int overrun_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *t = data;

	(void)nlh;
	t->ret = rths_err_set(&t->nl->err, -ENOBUFS, "netlink overrun");
	return MNL_CB_ERROR;
}

int rths_nl_talk(struct rths_nl *nl, struct nlmsghdr *req, rths_reply_cb cb,
		 void *arg)
{
	mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = end_cb,
		[NLMSG_DONE] = end_cb,
		[NLMSG_OVERRUN] = overrun_cb,
	};
	struct talk_ctx t = { .nl = nl, .req = req, .cb = cb, .arg = arg };
	ssize_t n;
	int ret;

	if (++nl->seq == 0)
		nl->seq = 1;
	req->nlmsg_seq = nl->seq;
	/* Dumps end with NLMSG_DONE; everything else with an ack. */
	if (!(req->nlmsg_flags & NLM_F_DUMP))
		req->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return rths_err_set(&nl->err, -errno, "netlink send: %s",
				    rths_strerror(errno));
	for (;;) {
		n = mnl_socket_recvfrom(nl->sock, nl->rx, sizeof(nl->rx));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return rths_err_set(&nl->err, -errno,
					    "netlink receive: %s",
					    rths_strerror(errno));
		}
		/* Sequence and port are checked per message (ours()). */
		ret = mnl_cb_run2(nl->rx, (size_t)n, 0, 0, data_cb, &t,
				  ctl_cbs, NLMSG_MIN_TYPE);
		if (ret <= MNL_CB_STOP)
			break;
	}
	if (ret == MNL_CB_ERROR && !t.ret) {
		int e = errno ? errno : EPROTO;

		if (e == EINTR)	/* NLM_F_DUMP_INTR: the list changed */
			return rths_err_set(&nl->err, -EAGAIN,
					    "dump interrupted, try again");
		return rths_err_set(&nl->err, -e, "%s", rths_strerror(e));
	}
	if (t.ret < 0 && !nl->err.msg[0])
		rths_err_set(&nl->err, 0, "%s", rths_strerror(-t.ret));
	return t.ret;
}

/* ---- family resolution ----------------------------------------------------- */

struct family_info {
	uint16_t id;
	uint32_t mon_group;
};

static int grp_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type == CTRL_ATTR_MCAST_GRP_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		tb[type] = a;
	else if (type == CTRL_ATTR_MCAST_GRP_ID &&
		 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
		tb[type] = a;
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	struct family_info *fi = data;
	const struct nlattr *g;

	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		fi->id = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(g, a) {
			const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = { NULL };

			mnl_attr_parse_nested(g, grp_cb, tb);
			if (tb[CTRL_ATTR_MCAST_GRP_NAME] &&
			    tb[CTRL_ATTR_MCAST_GRP_ID] &&
			    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
				    RTHS_MCGRP_MONITOR))
				fi->mon_group = mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
		}
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *arg)
{
	if (mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, arg) < 0)
		return -EPROTO;
	return 0;
}

static int resolve_family(struct rths_nl *nl)
{
	char buf[256];
	struct rths_msgbuf mb = { .size = sizeof(buf), .err = &nl->err };
	struct family_info fi = { 0 };
	int ret;

	mb.nlh = rths_msg_init(buf, sizeof(buf), GENL_ID_CTRL,
			       CTRL_CMD_GETFAMILY, 0);
	/* nlctrl speaks version 1 too; the header carries ours. */
	if (!mnl_attr_put_strz_check(mb.nlh, mb.size, CTRL_ATTR_FAMILY_NAME,
				     RTHS_GENL_NAME))
		return -EMSGSIZE;
	ret = rths_nl_talk(nl, mb.nlh, family_cb, &fi);
	if (ret == -ENOENT)
		return rths_err_set(&nl->err, -ENOENT,
				    "rths module not loaded (no generic netlink family \"%s\")",
				    RTHS_GENL_NAME);
	if (ret < 0)
		return ret;
	if (!fi.id)
		return rths_err_set(&nl->err, -EPROTO,
				    "nlctrl reply without a family id");
	nl->family = fi.id;
	nl->mon_group = fi.mon_group;
	return 0;
}

int rths_nl_socket(struct rths_nl *nl)
{
	int one = 1, ret;

	rths_err_clear(&nl->err);
	nl->sock = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl->sock)
		return rths_err_set(&nl->err, -errno, "netlink socket: %s",
				    rths_strerror(errno));
	/* Extended acks name the bad attribute; capped acks do not echo
	 * our request back (we kept it). */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_GET_STRICT_CHK, &one,
			      sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		rths_nl_close(nl);
		return rths_err_set(&nl->err, ret, "netlink bind: %s",
				    rths_strerror(-ret));
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	return 0;
}

int rths_nl_open(struct rths_nl *nl)
{
	int ret = rths_nl_socket(nl);

	if (ret)
		return ret;
	ret = resolve_family(nl);
	if (ret) {
		rths_nl_close(nl);
		return ret;
	}
	return 0;
}

void rths_nl_close(struct rths_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

/* ---- public control API ------------------------------------------------- */

int rths_ctl_open(struct rths_ctl **ctlp)
{
	struct rths_ctl *ctl = calloc(1, sizeof(*ctl));
	int ret;

	*ctlp = NULL;
	if (!ctl)
		return -ENOMEM;
	ret = rths_nl_open(&ctl->nl);
	if (ret) {
		free(ctl);
		return ret;
	}
	*ctlp = ctl;
	return 0;
}

void rths_ctl_close(struct rths_ctl *ctl)
{
	struct rths_dev *d;

	if (!ctl)
		return;
	/* the handles stay open; they no longer name a ctl */
	for (d = ctl->owned; d; d = d->next_owned)
		d->ctl = NULL;
	rths_nl_close(&ctl->nl);
	free(ctl);
}

const char *rths_ctl_error(const struct rths_ctl *ctl)
{
	return ctl ? ctl->nl.err.msg : "";
}

int rths_ctl_error_attr(const struct rths_ctl *ctl)
{
	return ctl ? ctl->nl.err.attr : 0;
}

struct rths_msgbuf rths_ctl_msg(struct rths_ctl *ctl, uint8_t cmd,
				uint16_t flags)
{
	struct rths_msgbuf mb = {
		.size = sizeof(ctl->req),
		.err = &ctl->nl.err,
	};

	rths_err_clear(&ctl->nl.err);
	ctl->nl.params = NULL;
	mb.nlh = rths_msg_init(ctl->req, sizeof(ctl->req), ctl->nl.family,
			       cmd, flags);
	return mb;
}

int rths_ctl_dev_cmd(struct rths_ctl *ctl, uint8_t cmd, const char *name,
		     rths_reply_cb cb, void *arg)
{
	struct rths_msgbuf mb = rths_ctl_msg(ctl, cmd, 0);
	int ret = rths_put_name(&mb, RTHS_A_DEV_NAME, "name", name);

	if (ret)
		return ret;
	return rths_nl_talk(&ctl->nl, mb.nlh, cb, arg);
}

/* ---- run control: the node is the key ------------------------------------ */

void rths_ctl_unlink(struct rths_dev *dev)
{
	struct rths_dev **p;

	if (!dev->ctl)
		return;
	for (p = &dev->ctl->owned; *p; p = &(*p)->next_owned)
		if (*p == dev) {
			*p = dev->next_owned;
			break;
		}
	dev->ctl = NULL;
}

static int owner_fd(const struct rths_ctl *ctl, const char *name)
{
	const struct rths_dev *d;

	for (d = ctl->owned; d; d = d->next_owned)
		if (!strcmp(d->name, name))
			return d->fd;
	return -1;
}

static int talk_with_fd(struct rths_ctl *ctl, struct rths_msgbuf *mb, int fd)
{
	int ret = rths_put_u32(mb, RTHS_A_DEV_FD, (uint32_t)fd);

	return ret ? ret : rths_nl_talk(&ctl->nl, mb->nlh, NULL, NULL);
}

int rths_ctl_owner_talk(struct rths_ctl *ctl, struct rths_msgbuf *mb,
			const char *name, enum rths_owner_need need)
{
	char path[sizeof("/dev/rths/") + RTHS_NAME_LEN];
	int fd = owner_fd(ctl, name), ret, e;

	if (fd >= 0)
		return talk_with_fd(ctl, mb, fd);
	/* an admin needs no fd; anyone else learns so from the kernel */
	ret = rths_nl_talk(&ctl->nl, mb->nlh, NULL, NULL);
	if (ret != -EPERM)
		return ret;
	if (need == RTHS_OWNER_HANDLE)
		return rths_err_set(mb->err, -EPERM,
				    "%s: without CAP_NET_ADMIN only the device's owner may do this: open it first with rths_dev_open(RTHS_OPEN_OWNER) on this handle",
				    name);
	snprintf(path, sizeof(path), "/dev/rths/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == EBUSY)
			return rths_err_set(mb->err, -EPERM,
					    "%s: the device has an owner (%s is open for writing); without CAP_NET_ADMIN only its owner may do this",
					    name, path);
		return rths_err_set(mb->err, -EPERM,
				    "%s: needs CAP_NET_ADMIN or %s open for writing, which failed: %s",
				    name, path, rths_strerror(e));
	}
	rths_err_clear(mb->err);
	ret = talk_with_fd(ctl, mb, fd);
	close(fd);
	return ret;
}
