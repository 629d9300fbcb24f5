/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librths device layer, private header.  Everything here is hidden from the
 * shared library's symbol table; the unit tests reach it through the static
 * library.
 */
#ifndef RTHS_DEV_INTERNAL_H
#define RTHS_DEV_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "rths/device.h"

#define RTHS_HIDDEN __attribute__((visibility("hidden")))

/* ---- errors ------------------------------------------------------------- */

#define RTHS_ERR_LEN 256

/* Why the last request failed, in words, and which attribute it was about. */
struct rths_err {
	char msg[RTHS_ERR_LEN];
	int attr;		/* innermost attribute type, 0 if none */
};

RTHS_HIDDEN void rths_err_clear(struct rths_err *err);
/* Set the message (printf style); returns @ret so callers can
 * "return rths_err_set(err, -EINVAL, ...)". */
RTHS_HIDDEN int rths_err_set(struct rths_err *err, int ret, const char *fmt,
			     ...) __attribute__((format(printf, 3, 4)));

/* ---- attribute spaces (spaces.c) --------------------------------------- */

struct rths_attr_space;

struct rths_attr_desc {
	const char *name;		/* NULL: not an attribute we know */
	enum mnl_attr_data_type type;	/* checked on every reply */
	uint16_t len;			/* MNL_TYPE_BINARY: exact length */
	const struct rths_attr_space *nest;	/* what a nest holds */
};

struct rths_attr_space {
	uint16_t max;
	/* An attribute whose u32 value labels a nest of this space in
	 * messages ("channel[2]"); 0 if none. */
	uint16_t label_attr;
	const struct rths_attr_desc *attrs;	/* max + 1 entries */
};

/* Top level: enum rths_attr. */
RTHS_HIDDEN extern const struct rths_attr_space rths_space_dev;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_limit;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_ring;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_stats;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_event;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_sim;
/* The comedi card's parameters and one channel of them (comedi.c). */
RTHS_HIDDEN extern const struct rths_attr_space rths_space_comedi;
RTHS_HIDDEN extern const struct rths_attr_space rths_space_comedi_chan;

/* Name of @type in @sp, or NULL. */
RTHS_HIDDEN const char *rths_attr_name(const struct rths_attr_space *sp,
				       unsigned int type);

/* Value of an optional u32 / u64 attribute (0 if absent); the type was
 * checked when the message was parsed. */
RTHS_HIDDEN uint32_t rths_attr_u32(const struct nlattr *a);
RTHS_HIDDEN uint64_t rths_attr_u64(const struct nlattr *a);
/* Copy an optional string attribute into a name buffer ("" if absent). */
RTHS_HIDDEN void rths_attr_name_copy(char dst[RTHS_NAME_LEN],
				     const struct nlattr *a);

/* Validate and index the attributes of a message (after the genl header)
 * or of a nest into @tb (sp->max + 1 entries, zeroed by the caller).
 * Unknown attributes are skipped (a newer kernel may send more).
 * -EPROTO if a known attribute has the wrong type or length. */
RTHS_HIDDEN int rths_attr_parse_msg(const struct nlmsghdr *nlh,
				    const struct rths_attr_space *sp,
				    const struct nlattr **tb);
RTHS_HIDDEN int rths_attr_parse_nest(const struct nlattr *nest,
				     const struct rths_attr_space *sp,
				     const struct nlattr **tb);

/* ---- requests and acks ------------------------------------------------- */

/* A request under construction. */
struct rths_msgbuf {
	struct nlmsghdr *nlh;
	size_t size;		/* bytes available at nlh */
	struct rths_err *err;
	/* What the request's RTHS_A_DEV_CARD_PARAMS nest holds, for naming
	 * attributes in errors; NULL: the sim card's (the encoder sets it). */
	const struct rths_attr_space *params;
};

/* Start a generic netlink request for @cmd of family @family in @buf. */
RTHS_HIDDEN struct nlmsghdr *rths_msg_init(void *buf, size_t size,
					   uint16_t family, uint8_t cmd,
					   uint16_t flags);

/* Encoders; each returns 0 or a negative errno with err->msg set
 * (-EINVAL, -ERANGE for values that do not convert, -EMSGSIZE). */
RTHS_HIDDEN int rths_put_name(struct rths_msgbuf *mb, uint16_t type,
			      const char *field, const char *name);
RTHS_HIDDEN int rths_put_u32(struct rths_msgbuf *mb, uint16_t type,
			     uint32_t v);
RTHS_HIDDEN int rths_put_u64(struct rths_msgbuf *mb, uint16_t type,
			     uint64_t v);
/* Start a nest (with NLA_F_NESTED); NULL if the request is full. */
RTHS_HIDDEN struct nlattr *rths_nest_start(struct rths_msgbuf *mb,
					   uint16_t type);
RTHS_HIDDEN int rths_put_sim(struct rths_msgbuf *mb,
			     const struct rths_sim_params *sim);
/* The comedi card's parameters nest (comedi.c); sets mb->params. */
RTHS_HIDDEN int rths_put_comedi(struct rths_msgbuf *mb,
				const struct rths_comedi_params *p);
RTHS_HIDDEN int rths_put_config(struct rths_msgbuf *mb,
				const struct rths_dev_config *cfg);
/* The parameters @cp of card @card (NULL: whichever @cp names), checked
 * as rths_card_params_in() does. */
RTHS_HIDDEN int rths_put_card(struct rths_msgbuf *mb, const char *card,
			      const struct rths_card_params *cp);

/* Decode the NLMSG_ERROR message @ack that answers @req (which may be NULL
 * if it is not at hand): returns its error code (0 for a plain ack) and,
 * for an error, writes the explanation into @err, naming the attribute
 * that NLMSGERR_ATTR_OFFS or NLMSGERR_ATTR_MISS_* point at.
 * rths_done_decode() does the same for the NLMSG_DONE that ends a dump. */
RTHS_HIDDEN int rths_ack_decode(const struct nlmsghdr *req,
				const struct nlmsghdr *ack,
				struct rths_err *err);
RTHS_HIDDEN int rths_done_decode(const struct nlmsghdr *req,
				 const struct nlmsghdr *done,
				 struct rths_err *err);
/* The same, for a request whose card-params nest holds @params (NULL:
 * the sim card's). */
RTHS_HIDDEN int rths_ack_decode_params(const struct nlmsghdr *req,
				       const struct nlmsghdr *ack,
				       const struct rths_attr_space *params,
				       struct rths_err *err);
RTHS_HIDDEN int rths_done_decode_params(const struct nlmsghdr *req,
					const struct nlmsghdr *done,
					const struct rths_attr_space *params,
					struct rths_err *err);

/* Path of the attribute at byte @off of request @req ("rate",
 * "limits.channel[2].pos-max"); returns the innermost attribute's type,
 * 0 if @off points at no attribute.  *@inner is set to the space that
 * attribute's payload holds, if it is a nest.  @params: what the card
 * parameters nest holds (NULL: the sim card's). */
RTHS_HIDDEN int rths_attr_path(const struct nlmsghdr *req, uint32_t off,
			       char *buf, size_t len,
			       const struct rths_attr_space *params,
			       const struct rths_attr_space **inner);

/* ---- the netlink channel (ctl.c) --------------------------------------- */

#define RTHS_REQ_SIZE 8192
/* the largest reply: STATS_GET with RTHS_LAT_HIST_US_MAX 1 us buckets
 * full in both histograms (48 kB) */
#define RTHS_RX_SIZE 131072

struct rths_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	uint32_t seq;
	uint16_t family;
	uint32_t mon_group;	/* 0 if the kernel has none */
	struct rths_err err;
	/* the card parameters space of the request being sent (NULL: sim) */
	const struct rths_attr_space *params;
	char rx[RTHS_RX_SIZE];
};

/* Open a bound generic netlink socket with extended acks. */
RTHS_HIDDEN int rths_nl_socket(struct rths_nl *nl);
/* The same, and resolve the family; -ENOENT if it does not exist. */
RTHS_HIDDEN int rths_nl_open(struct rths_nl *nl);
RTHS_HIDDEN void rths_nl_close(struct rths_nl *nl);

/* Called for each reply message of the family; returns 0 to go on,
 * > 0 to stop the caller's iteration (the reply is still drained),
 * < 0 for an error. */
typedef int (*rths_reply_cb)(const struct nlmsghdr *nlh, void *arg);

/* Send @req, run @cb on every reply of the family and wait for the ack
 * (or the end of a dump).  Returns 0, @cb's positive value, or a negative
 * errno with nl->err set. */
RTHS_HIDDEN int rths_nl_talk(struct rths_nl *nl, struct nlmsghdr *req,
			     rths_reply_cb cb, void *arg);

struct rths_ctl {
	struct rths_nl nl;
	struct rths_dev *owned;	/* owner handles opened through it */
	char req[RTHS_REQ_SIZE];
};

/* Start a request on @ctl (clears the last error). */
RTHS_HIDDEN struct rths_msgbuf rths_ctl_msg(struct rths_ctl *ctl, uint8_t cmd,
					    uint16_t flags);

/* A request naming one device: builds, sends and waits.  @cb may be NULL. */
RTHS_HIDDEN int rths_ctl_dev_cmd(struct rths_ctl *ctl, uint8_t cmd,
				 const char *name, rths_reply_cb cb,
				 void *arg);

/* How rths_ctl_owner_talk() goes on without an owner handle on the ctl
 * and without CAP_NET_ADMIN. */
enum rths_owner_need {
	/* -EPERM, saying to open the device as its owner first */
	RTHS_OWNER_HANDLE,
	/* open the node O_RDWR for this one request: only for requests
	 * that leave nothing running (closing an owner fd holds a run) */
	RTHS_OWNER_BORROW,
};

/* Send @req (device @name's run control or configuration) with the fd
 * of an owner handle of @ctl for @name in RTHS_A_DEV_FD, if it has one;
 * the kernel lets CAP_NET_ADMIN or that owner fd in.  As
 * rths_nl_talk(). */
RTHS_HIDDEN int rths_ctl_owner_talk(struct rths_ctl *ctl,
				    struct rths_msgbuf *mb, const char *name,
				    enum rths_owner_need need);
/* A request naming device @name alone, through rths_ctl_owner_talk()
 * (run.c). */
RTHS_HIDDEN int rths_run_cmd(struct rths_ctl *ctl, uint8_t cmd,
			     const char *name, enum rths_owner_need need);
/* Forget @dev on the ctl it was opened through (rths_dev_close). */
RTHS_HIDDEN void rths_ctl_unlink(struct rths_dev *dev);

/* ---- size-tagged structs (sized.c) ------------------------------------- */

/* Every card's parameters struct this library knows. */
union rths_card_union {
	struct rths_sim_params sim;
	struct rths_comedi_params comedi;
};

/* A DEV_GET reply, decoded: the core part and the card's parameters
 * (those of card info.card, zero for a card the library does not know). */
struct rths_dev_reply {
	struct rths_dev_info info;
	union rths_card_union card;
};

/* Take the caller's struct @src of @usize bytes into @dst (our @size):
 * a shorter struct's tail reads as 0; -EINVAL below @min (the first
 * published size) or for NULL, -E2BIG if a byte beyond @size is not 0.
 * @what names the struct in the message. */
RTHS_HIDDEN int rths_copy_in(void *dst, size_t size, const void *src,
			     size_t usize, size_t min, const char *what,
			     struct rths_err *err);
/* Give the caller @usize bytes of @src (our @size bytes), zeroing what
 * it has beyond ours; -EINVAL below @min or for NULL. */
RTHS_HIDDEN int rths_copy_out(void *dst, size_t usize, const void *src,
			      size_t size, size_t min, const char *what,
			      struct rths_err *err);
/* Check @cp against card @card (NULL: any) and take its struct into @u:
 * -EINVAL for parameters of another card, -EOPNOTSUPP for a card the
 * library does not know, and as rths_copy_in(). */
RTHS_HIDDEN int rths_card_params_in(const char *card,
				    const struct rths_card_params *cp,
				    union rths_card_union *u,
				    struct rths_err *err);
/* @r's card parameters as the library's own struct (params NULL for a
 * card it does not know). */
RTHS_HIDDEN void rths_dev_reply_card(const struct rths_dev_reply *r,
				     struct rths_card_params *cp);
/* Give @r's parameters of card @card to the caller (@size bytes at
 * @params): -EMEDIUMTYPE if the device has another card. */
RTHS_HIDDEN int rths_card_params_out(const struct rths_dev_reply *r,
				     const char *card, void *params,
				     size_t size, struct rths_err *err);

/* ---- decoders (attrs.c, stats.c, mon.c) -------------------------------- */

RTHS_HIDDEN int rths_dev_info_parse(const struct nlmsghdr *nlh,
				    struct rths_dev_reply *r);
RTHS_HIDDEN int rths_stats_parse(const struct nlmsghdr *nlh, uint32_t *id,
				 char name[RTHS_NAME_LEN],
				 struct rths_stats *st);
RTHS_HIDDEN int rths_event_parse(const struct nlmsghdr *nlh,
				 struct rths_event *ev);
/* The comedi card's parameters nest of a DEV_GET reply (comedi.c). */
RTHS_HIDDEN int rths_comedi_parse(const struct nlattr *nest,
				  struct rths_comedi_params *p);

/* ---- units (units.c) ---------------------------------------------------- */

/* round(@v * @scale) into [@lo, @hi]; -ERANGE if not finite or outside. */
RTHS_HIDDEN int rths_si_to_int(double v, double scale, int64_t lo,
			       int64_t hi, int64_t *out);

/* CLOCK_MONOTONIC in ms, for timeouts (io.c). */
RTHS_HIDDEN int64_t rths_now_ms(void);

/* ---- rings (ring.c) ------------------------------------------------------- */

/* One single-producer/single-consumer ring of the mapping, seen from
 * userspace.  @head is our own copy of the index we own (the producer
 * index of the command ring, the consumer index of the others). */
struct rths_ring {
	uint32_t *producer, *consumer;
	unsigned char *desc;
	uint32_t entries, mask, entry_size;
	uint32_t head;
};

/* Bind @r to the ring @ri describes inside the mapping [@base, +@size),
 * after checking that every part of it lies inside and is aligned and
 * that entries hold at least @entry_size bytes.  A ring with 0 entries is
 * left unbound (entries = 0).  -EPROTO with @err set otherwise. */
RTHS_HIDDEN int rths_ring_bind(struct rths_ring *r, void *base, size_t size,
			       const struct rths_ring_info *ri,
			       uint32_t entry_size, const char *what,
			       struct rths_err *err);

/* Take our index from the mapping (after a start reset it). */
RTHS_HIDDEN void rths_ring_sync(struct rths_ring *r, bool producer);

/* Producer side: free slots (0 if the consumer index is impossible). */
RTHS_HIDDEN uint32_t rths_ring_space(const struct rths_ring *r);
/* Next free slot, or NULL: -EAGAIN full, -EIO impossible consumer index. */
RTHS_HIDDEN void *rths_ring_prod_slot(struct rths_ring *r, int *ret);
/* Publish the slot rths_ring_prod_slot() returned. */
RTHS_HIDDEN void rths_ring_prod_commit(struct rths_ring *r);

/* Consumer side: copy the next entry (entry_size bytes) into @dst and
 * release its slot.  -EAGAIN if empty; -EIO if the producer index claims
 * more than a ring's worth (nothing is read).  Without @owner (a
 * read-only observer) the consumer index in the mapping is not written:
 * the observer follows the owner's, and *@gap tells that records went by
 * unseen. */
RTHS_HIDDEN int rths_ring_consume(struct rths_ring *r, void *dst, bool owner,
				  bool *gap);

/* ---- data path (map.c) --------------------------------------------------- */

struct rths_dev {
	int fd;				/* -1 for a mapping without a node */
	bool owner;
	/* an owner handle: the ctl it was opened through (NULL once that
	 * is closed), the next one of that ctl, and the device's name */
	struct rths_ctl *ctl;
	struct rths_dev *next_owned;
	char name[RTHS_NAME_LEN];
	void *base;
	size_t size;
	uint32_t channels;
	struct rths_ring cmd, fb, trace;
	const volatile struct rths_mmap_header *hdr;
	/* one entry of each kernel-produced ring, copied out before it is
	 * decoded (no allocation per call; one per ring so that the two
	 * may be read from different threads) */
	unsigned char *fb_copy, *trace_copy;
};

/* Build a struct rths_dev on a mapping described by @info (rths_dev_open
 * does this after mmap; tests do it on an anonymous mapping).  On success
 * the device owns @base (munmap) and @fd (close). */
RTHS_HIDDEN int rths_dev_attach(void *base, size_t size, int fd, bool owner,
				const struct rths_dev_info *info,
				struct rths_dev **dev, struct rths_err *err);

#endif /* RTHS_DEV_INTERNAL_H */
