/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rths native protocol (RNP), version 1, between rths-coord and
 * rths-site: frames and their codec.  Documentation/rths-protocol.rst is
 * the specification; this header follows it field for field.
 *
 * A frame is a 16-byte header and a payload.  Integers are little-endian,
 * reals IEEE 754 binary64 little-endian, names NUL-padded ASCII.  Doubles
 * travel bit for bit, so a distributed run can equal a local one exactly.
 *
 *	coordinator				site
 *	HELLO(test, last_seq, substructure) ->
 *					<- WELCOME(test, last_seq, ndof) | ERROR
 *	STEP(seq, t, u[, v, a])		->		one round trip a step
 *					<- RESULT(seq, disp, force, timing)
 *	PING				<->	PONG	(either side, any time)
 *	BYE				->		the test is over
 *
 * A step is executed once: STEP seq == the site's last_seq + 1 runs it,
 * seq == last_seq answers the cached RESULT (flag CACHED) and moves
 * nothing, anything else is an ERROR (SEQUENCE).
 */
#ifndef RTHS_NET_WIRE_H
#define RTHS_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define RNP_MAGIC 0x4e485452u		/* "RTHN" as a little-endian u32 */
#define RNP_VERSION 1
#define RNP_HDR_SIZE 16
#define RNP_MAX_PAYLOAD (1u << 20)	/* larger declared sizes are refused */
#define RNP_MAX_DOF 1024
#define RNP_NAME_LEN 64
#define RNP_TEXT_MAX 256

enum rnp_type {
	RNP_HELLO = 1,		/* coordinator -> site */
	RNP_WELCOME = 2,	/* site -> coordinator */
	RNP_STEP = 3,		/* coordinator -> site */
	RNP_RESULT = 4,		/* site -> coordinator */
	RNP_PING = 5,		/* either way; answered by PONG */
	RNP_PONG = 6,
	RNP_BYE = 7,		/* coordinator -> site: the test ended */
	RNP_ERROR = 8,		/* site -> coordinator, then the site closes */
};

/* ERROR codes (RNP_ERR_*), also what the codec's parse calls return
 * negated. */
enum rnp_error {
	RNP_ERR_VERSION = 1,	/* no common version, or a frame of another */
	RNP_ERR_PROTOCOL = 2,	/* malformed frame, or one out of turn */
	RNP_ERR_SIZE = 3,	/* declared size too large or inconsistent */
	RNP_ERR_UNKNOWN = 4,	/* no such substructure */
	RNP_ERR_BUSY = 5,	/* the substructure runs another test */
	RNP_ERR_SEQUENCE = 6,	/* step neither last_seq nor last_seq + 1 */
	RNP_ERR_DOF = 7,	/* ndof differs from the substructure's */
	RNP_ERR_DEVICE = 8,	/* the device faulted or cannot run */
	RNP_ERR_AUTH = 9,	/* not authorized for this substructure */
	RNP_ERR_INTERNAL = 10,	/* out of memory and the like */
};

/* HELLO flags */
#define RNP_HELLO_RESET 0x1u	/* start test_id from scratch, even if the
				 * site runs another test */
/* WELCOME kinds */
#define RNP_KIND_NUMERICAL 1
#define RNP_KIND_DEVICE 2
/* STEP flags */
#define RNP_STEP_VEL 0x1u	/* v[] follows u[] */
#define RNP_STEP_ACC 0x2u	/* a[] follows (after v[] if present) */
#define RNP_STEP_REPLAY 0x4u	/* part of a replay after a site restart */
/* RESULT flags */
#define RNP_RES_CACHED 0x1u	/* re-issued step: the cached answer */
#define RNP_RES_LATE 0x2u	/* the device saw the command late */
#define RNP_RES_HELD 0x4u	/* the device held during the step */
#define RNP_RES_REPLAY 0x8u	/* answer to a REPLAY step */

struct rnp_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t length;	/* payload bytes */
};

struct rnp_hello {
	uint16_t version_min, version_max;
	uint32_t flags;		/* RNP_HELLO_* */
	uint64_t test_id;	/* the coordinator's test, never 0 */
	uint64_t last_seq;	/* the coordinator's last completed step */
	uint32_t ndof;		/* expected DOF, 0: any */
	char substructure[RNP_NAME_LEN];
};

struct rnp_welcome {
	uint16_t version;
	uint16_t kind;		/* RNP_KIND_* */
	uint32_t ndof;
	uint64_t test_id;	/* the site's test, 0: none yet */
	uint64_t last_seq;	/* its last executed step of that test */
	uint32_t heartbeat_ms;	/* the site ends a session silent 3x this */
	uint32_t rate;		/* device: controller Hz; numerical: 0 */
	uint32_t step_ticks;	/* device: d; numerical: 0 */
	char substructure[RNP_NAME_LEN];
};

/* u, v, a point to ndof doubles each; v, a only with their flags. */
struct rnp_step {
	uint64_t seq;
	double t;
	uint32_t flags;		/* RNP_STEP_* */
	uint32_t ndof;
	double *u, *v, *a;
};

struct rnp_result {
	uint64_t seq;
	uint32_t flags;		/* RNP_RES_* */
	uint32_t ndof;
	uint64_t compute_ns;	/* site: STEP received to RESULT queued */
	uint32_t late_ticks;	/* device: ticks the command was late */
	uint32_t fb_flags;	/* device: RTHS_FB_F_* of the sample */
	double *disp, *force;	/* ndof each */
};

struct rnp_ping {
	uint64_t nonce;
	uint64_t time_ns;	/* sender's CLOCK_MONOTONIC, echoed */
};

struct rnp_errmsg {
	int32_t code;		/* RNP_ERR_* */
	char text[RNP_TEXT_MAX];
};

/* A growable output buffer; rnp_put_* append one whole frame each. */
struct rnp_buf {
	unsigned char *p;
	size_t len, cap;
};

void rnp_buf_free(struct rnp_buf *b);
/* Drop the first n bytes (written). */
void rnp_buf_consume(struct rnp_buf *b, size_t n);

/* Each returns 0, or -ENOMEM, or -EINVAL for a message that breaks the
 * limits above (ndof, text length). */
int rnp_put_hello(struct rnp_buf *b, const struct rnp_hello *m);
int rnp_put_welcome(struct rnp_buf *b, const struct rnp_welcome *m);
int rnp_put_step(struct rnp_buf *b, const struct rnp_step *m);
int rnp_put_result(struct rnp_buf *b, const struct rnp_result *m);
int rnp_put_ping(struct rnp_buf *b, enum rnp_type type,
		 const struct rnp_ping *m);
int rnp_put_bye(struct rnp_buf *b);
int rnp_put_error(struct rnp_buf *b, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Parsing.  Each returns 0, or -RNP_ERR_* with a one-line reason in why
 * (which may be NULL).  rnp_parse_hdr() checks magic, version, type and
 * the declared length (<= RNP_MAX_PAYLOAD and plausible for the type)
 * before the payload is read, so an absurd size never allocates.
 */
int rnp_parse_hdr(const unsigned char hdr[RNP_HDR_SIZE], struct rnp_hdr *h,
		  char *why, size_t why_len);
int rnp_parse_hello(const unsigned char *p, size_t len, struct rnp_hello *m,
		    char *why, size_t why_len);
int rnp_parse_welcome(const unsigned char *p, size_t len,
		      struct rnp_welcome *m, char *why, size_t why_len);
/* m->u/v/a (and disp/force) must hold max_dof doubles each; arrays the
 * flags leave out are not touched. */
int rnp_parse_step(const unsigned char *p, size_t len, struct rnp_step *m,
		   uint32_t max_dof, char *why, size_t why_len);
int rnp_parse_result(const unsigned char *p, size_t len,
		     struct rnp_result *m, uint32_t max_dof, char *why,
		     size_t why_len);
int rnp_parse_ping(const unsigned char *p, size_t len, struct rnp_ping *m,
		   char *why, size_t why_len);
int rnp_parse_bye(const unsigned char *p, size_t len, char *why,
		  size_t why_len);
int rnp_parse_error(const unsigned char *p, size_t len, struct rnp_errmsg *m,
		    char *why, size_t why_len);

/*
 * One message, whole: h.type says which member holds it.  To send, the
 * caller sets h.type and that member (rnp_put_msg()).  To parse, the
 * caller sets accept, max_dof and arr once (they are not touched), and
 * rnp_parse_frame() fills h and the member; the doubles of a STEP (u, v,
 * a) or a RESULT (disp, force) go straight into arr[], max_dof each.
 */
struct rnp_msg {
	uint32_t accept;	/* 1u << RNP_*: types parsed; the others come
				 * with their header only */
	uint32_t max_dof;	/* doubles each arr[] holds */
	double *arr[3];		/* STEP: u, v, a; RESULT: disp, force */
	struct rnp_hdr h;
	union {
		struct rnp_hello hello;
		struct rnp_welcome welcome;
		struct rnp_step step;
		struct rnp_result result;
		struct rnp_ping ping;		/* PING and PONG */
		struct rnp_errmsg error;
	};
};

/* Appends the frame of m (by m->h.type): as the rnp_put_* above. */
int rnp_put_msg(struct rnp_buf *b, const struct rnp_msg *m);
/*
 * The frame at p (have bytes of it in): 1 parsed into m, 0 its header
 * is good and m->h says how long it is, but it is not all in yet (fewer
 * than RNP_HDR_SIZE bytes: 0 too, m untouched), -RNP_ERR_* a bad header
 * (why as rnp_parse_hdr()) or a bad payload (why "bad TYPE: reason").
 */
int rnp_parse_frame(const unsigned char *p, size_t have, struct rnp_msg *m,
		    char *why, size_t why_len);

const char *rnp_type_name(unsigned type);
const char *rnp_error_name(int code);

#endif
