/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The page /dev/rths_echo maps: userspace writes a value and then its
 * sequence number; at the next tick the kernel thread copies the value
 * back with the tick's grid instant and then the sequence number.
 */
#ifndef RTHS_ECHO_H
#define RTHS_ECHO_H

#include <linux/types.h>

struct rths_echo_page {
	__u64 cmd_seq;		/* user: written after cmd_val (release) */
	__s64 cmd_val;
	__u8 pad0[48];
	__u64 fb_seq;		/* kernel: written after fb_val (release) */
	__s64 fb_val;
	__u64 fb_time_ns;	/* CLOCK_MONOTONIC grid instant of the tick */
	__u64 seen;		/* user: last fb_seq read, for poll() */
};

#endif
