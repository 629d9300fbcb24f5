// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Turning an error ack into words.  The kernel's extended ack carries a
 * message and, for a bad attribute, its byte offset in the request we
 * sent (NLMSGERR_ATTR_OFFS) or, for a missing one, its type and the
 * offset of the nest it is missing from (NLMSGERR_ATTR_MISS_*).  We walk
 * our own copy of the request to name that attribute.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dev/internal.h"

void rths_err_clear(struct rths_err *err)
{
	err->msg[0] = '\0';
	err->attr = 0;
}

int rths_err_set(struct rths_err *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return ret;
}

/* Append to a path buffer, truncating safely. */
static void path_add(char *buf, size_t len, const char *sep,
		     const struct rths_attr_space *sp, unsigned int type,
		     const struct nlattr *a, const struct rths_attr_space *in)
{
	size_t used = strlen(buf);
	const char *name = rths_attr_name(sp, type);
	const struct nlattr *lab;

	if (used >= len)
		return;
	if (name)
		snprintf(buf + used, len - used, "%s%s", used ? sep : "", name);
	else
		snprintf(buf + used, len - used, "%sattribute %u",
			 used ? sep : "", type);
	/* Label the nest with the value of its index attribute, if any. */
	if (!a || !in || !in->label_attr)
		return;
	mnl_attr_for_each_nested(lab, a) {
		if (mnl_attr_get_type(lab) == in->label_attr &&
		    mnl_attr_get_payload_len(lab) == sizeof(uint32_t)) {
			used = strlen(buf);
			snprintf(buf + used, len - used, "[%u]",
				 mnl_attr_get_u32(lab));
			break;
		}
	}
}

int rths_attr_path(const struct nlmsghdr *req, uint32_t off, char *buf,
		   size_t len, const struct rths_attr_space *params,
		   const struct rths_attr_space **inner)
{
	const struct rths_attr_space *sp = &rths_space_dev;
	const unsigned char *base = (const unsigned char *)req;
	size_t pos = MNL_NLMSG_HDRLEN + GENL_HDRLEN;
	size_t end = req->nlmsg_len;
	int found = 0;

	if (len)
		buf[0] = '\0';
	*inner = NULL;
	while (pos + MNL_ATTR_HDRLEN <= end) {
		const struct nlattr *a = (const void *)(base + pos);
		unsigned int type = mnl_attr_get_type(a);
		size_t alen = a->nla_len;
		const struct rths_attr_space *nsp = NULL;

		if (alen < MNL_ATTR_HDRLEN || pos + alen > end)
			break;
		if (off < pos || off >= pos + alen) {
			pos += MNL_ALIGN(alen);
			continue;
		}
		if (type <= sp->max)
			nsp = sp->attrs[type].nest;
		if (sp == &rths_space_dev && type == RTHS_A_DEV_CARD_PARAMS &&
		    params)
			nsp = params;
		path_add(buf, len, ".", sp, type, a, nsp);
		found = type;
		*inner = nsp;
		if (off == pos || !nsp || off < pos + MNL_ATTR_HDRLEN)
			break;
		/* The offset points inside a nest: descend. */
		sp = nsp;
		end = pos + alen;
		pos += MNL_ATTR_HDRLEN;
	}
	return found;
}

struct ack_tlvs {
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
};

static int tlv_cb(const struct nlattr *a, void *data)
{
	struct ack_tlvs *t = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type > NLMSGERR_ATTR_MAX)
		return MNL_CB_OK;
	switch (type) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return MNL_CB_OK;
		break;
	case NLMSGERR_ATTR_OFFS:
	case NLMSGERR_ATTR_MISS_TYPE:
	case NLMSGERR_ATTR_MISS_NEST:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return MNL_CB_OK;
		break;
	case NLMSGERR_ATTR_POLICY:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return MNL_CB_OK;
		break;
	default:
		return MNL_CB_OK;
	}
	t->tb[type] = a;
	return MNL_CB_OK;
}

/*
 * The range the kernel's policy allows for the rejected attribute, as
 * " (allowed MIN..MAX)" in the kernel's units; "" if it sent none.
 */
static void policy_range(const struct nlattr *pol, char *buf, size_t len)
{
	long long smin = 0, smax = 0;
	unsigned long long umin = 0, umax = 0;
	bool s = false, u = false;
	const struct nlattr *a;

	buf[0] = '\0';
	if (!pol)
		return;
	mnl_attr_for_each_nested(a, pol) {
		if (mnl_attr_get_payload_len(a) != sizeof(uint64_t))
			continue;
		switch (mnl_attr_get_type(a)) {
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			smin = (long long)mnl_attr_get_u64(a);
			s = true;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			smax = (long long)mnl_attr_get_u64(a);
			s = true;
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			umin = mnl_attr_get_u64(a);
			u = true;
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			umax = mnl_attr_get_u64(a);
			u = true;
			break;
		}
	}
	if (s)
		snprintf(buf, len, " (allowed %lld..%lld)", smin, smax);
	else if (u)
		snprintf(buf, len, " (allowed %llu..%llu)", umin, umax);
}

#define MISSING "missing attribute"

/* Explain error @code given the TLVs at @tlv_off of @ack's payload. */
static void explain(const struct nlmsghdr *req, const struct nlmsghdr *ack,
		    size_t tlv_off, int code,
		    const struct rths_attr_space *params, struct rths_err *err)
{
	struct ack_tlvs t = { { NULL } };
	const char *kmsg = NULL;
	char path[160] = "", range[64];
	const struct rths_attr_space *inner;

	rths_err_clear(err);
	if ((ack->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    tlv_off <= mnl_nlmsg_get_payload_len(ack))
		mnl_attr_parse(ack, tlv_off, tlv_cb, &t);
	if (t.tb[NLMSGERR_ATTR_MSG])
		kmsg = mnl_attr_get_str(t.tb[NLMSGERR_ATTR_MSG]);
	if (kmsg && !*kmsg)
		kmsg = NULL;

	if (t.tb[NLMSGERR_ATTR_MISS_TYPE]) {
		const struct rths_attr_space *sp = &rths_space_dev;
		unsigned int type = mnl_attr_get_u32(t.tb[NLMSGERR_ATTR_MISS_TYPE]);

		if (t.tb[NLMSGERR_ATTR_MISS_NEST] && req) {
			uint32_t noff = mnl_attr_get_u32(t.tb[NLMSGERR_ATTR_MISS_NEST]);

			if (rths_attr_path(req, noff, path, sizeof(path),
					   params, &inner))
				sp = inner;
			else
				sp = NULL;
		}
		path_add(path, sizeof(path), ".", sp, type, NULL, NULL);
		err->attr = (int)type;
		/* "missing attribute: name (missing attribute: the device
		 * name)" says it twice */
		if (kmsg && !strncasecmp(kmsg, MISSING, strlen(MISSING))) {
			kmsg += strlen(MISSING);
			kmsg += strspn(kmsg, ": ");
			if (!*kmsg)
				kmsg = NULL;
		}
		if (kmsg)
			rths_err_set(err, 0, "missing attribute: %s (%s)", path,
				     kmsg);
		else
			rths_err_set(err, 0, "missing attribute: %s", path);
		return;
	}

	if (t.tb[NLMSGERR_ATTR_OFFS] && req)
		err->attr = rths_attr_path(req,
					   mnl_attr_get_u32(t.tb[NLMSGERR_ATTR_OFFS]),
					   path, sizeof(path), params, &inner);
	if (!kmsg) {
		kmsg = rths_strerror(-code);
		if (code == -EPERM)
			kmsg = "Operation not permitted (needs CAP_NET_ADMIN)";
	}
	policy_range(t.tb[NLMSGERR_ATTR_POLICY], range, sizeof(range));
	if (err->attr)
		rths_err_set(err, 0, "%s: %s%s", path, kmsg, range);
	else
		rths_err_set(err, 0, "%s%s", kmsg, range);
}

int rths_ack_decode(const struct nlmsghdr *req, const struct nlmsghdr *ack,
		    struct rths_err *err)
{
	return rths_ack_decode_params(req, ack, NULL, err);
}

int rths_ack_decode_params(const struct nlmsghdr *req,
			   const struct nlmsghdr *ack,
			   const struct rths_attr_space *params,
			   struct rths_err *err)
{
	const struct nlmsgerr *e;
	size_t tlv_off = sizeof(*e);
	int code;

	if (mnl_nlmsg_get_payload_len(ack) < sizeof(*e))
		return rths_err_set(err, -EBADMSG, "truncated netlink ack");
	e = mnl_nlmsg_get_payload(ack);
	code = e->error;
	if (code > 0 || code < -4095)
		return rths_err_set(err, -EBADMSG, "bad error code in ack");
	if (!code)
		return 0;
	/* Without NETLINK_CAP_ACK the ack echoes our whole request. */
	if (!(ack->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len >= sizeof(struct nlmsghdr))
		tlv_off += MNL_ALIGN(e->msg.nlmsg_len - sizeof(struct nlmsghdr));
	explain(req, ack, tlv_off, code, params, err);
	return code;
}

int rths_done_decode(const struct nlmsghdr *req, const struct nlmsghdr *done,
		     struct rths_err *err)
{
	return rths_done_decode_params(req, done, NULL, err);
}

int rths_done_decode_params(const struct nlmsghdr *req,
			    const struct nlmsghdr *done,
			    const struct rths_attr_space *params,
			    struct rths_err *err)
{
	int code;

	/* An old kernel may end a dump with an empty NLMSG_DONE. */
	if (mnl_nlmsg_get_payload_len(done) < sizeof(int))
		return 0;
	memcpy(&code, mnl_nlmsg_get_payload(done), sizeof(code));
	if (code > 0 || code < -4095)
		return rths_err_set(err, -EBADMSG, "bad error code in dump");
	if (code)
		explain(req, done, sizeof(int), code, params, err);
	return code;
}
