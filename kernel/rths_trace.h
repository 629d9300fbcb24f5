/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rths tracepoints (tracefs events/rths/): a tick with its timer-irq and
 * thread latencies, a step, a late-command decision, a state change and
 * a hold.  They fire in the tick context (rths.h, Locking), except the
 * state changes that netlink makes under rd->lock.  loop.c defines them
 * (CREATE_TRACE_POINTS); Kbuild puts this directory on its include path
 * so that the out-of-tree build finds this header again.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rths

#if !defined(_RTHS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RTHS_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

#include "rths.h"

/* Userspace (perf, trace-cmd) resolves the names in the print formats. */
TRACE_DEFINE_ENUM(RTHS_STATE_STOPPED);
TRACE_DEFINE_ENUM(RTHS_STATE_RUNNING);
TRACE_DEFINE_ENUM(RTHS_STATE_HOLDING);
TRACE_DEFINE_ENUM(RTHS_STATE_FAULTED);
TRACE_DEFINE_ENUM(RTHS_REASON_USER);
TRACE_DEFINE_ENUM(RTHS_REASON_OWNER_GONE);
TRACE_DEFINE_ENUM(RTHS_REASON_LIMIT);
TRACE_DEFINE_ENUM(RTHS_REASON_RING);
TRACE_DEFINE_ENUM(RTHS_REASON_LATE);
TRACE_DEFINE_ENUM(RTHS_REASON_CARD);
TRACE_DEFINE_ENUM(RTHS_REASON_REMOVED);
TRACE_DEFINE_ENUM(RTHS_REASON_CPU_OFFLINE);
TRACE_DEFINE_ENUM(RTHS_LATE_EXTRAPOLATED);
TRACE_DEFINE_ENUM(RTHS_LATE_HELD);
TRACE_DEFINE_ENUM(RTHS_LATE_DECELERATED);
TRACE_DEFINE_ENUM(RTHS_LATE_FAULTED);

#define rths_show_state(s)						\
	__print_symbolic(s,						\
			 { RTHS_STATE_STOPPED, "stopped" },		\
			 { RTHS_STATE_RUNNING, "running" },		\
			 { RTHS_STATE_HOLDING, "holding" },		\
			 { RTHS_STATE_FAULTED, "faulted" })

#define rths_show_reason(r)						\
	__print_symbolic(r,						\
			 { RTHS_REASON_USER, "user" },			\
			 { RTHS_REASON_OWNER_GONE, "owner-gone" },	\
			 { RTHS_REASON_LIMIT, "limit" },		\
			 { RTHS_REASON_RING, "ring" },			\
			 { RTHS_REASON_LATE, "late" },			\
			 { RTHS_REASON_CARD, "card" },			\
			 { RTHS_REASON_REMOVED, "removed" },		\
			 { RTHS_REASON_CPU_OFFLINE, "cpu-offline" })

#define rths_show_late(a)						\
	__print_symbolic(a,						\
			 { RTHS_LATE_EXTRAPOLATED, "extrapolated" },	\
			 { RTHS_LATE_HELD, "held" },			\
			 { RTHS_LATE_DECELERATED, "decelerated" },	\
			 { RTHS_LATE_FAULTED, "faulted" })

/* One per tick; the latencies are 0 under the manual clock. */
TRACE_EVENT(rths_tick,
	    TP_PROTO(const struct rths_device *rd, u64 irq_lat, u64 thread_lat),
	    TP_ARGS(rd, irq_lat, thread_lat),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, state)
			     __field(u64, tick)
			     __field(u64, irq_lat)
			     __field(u64, thread_lat)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->state = rd->state;
			   __entry->tick = rd->loop.tick;
			   __entry->irq_lat = irq_lat;
			   __entry->thread_lat = thread_lat;),
	    TP_printk("dev=%s id=%u tick=%llu irq_lat=%llu thread_lat=%llu state=%s",
		      __entry->name, __entry->id, __entry->tick, __entry->irq_lat,
		      __entry->thread_lat, rths_show_state(__entry->state))
);

/* One per completed step, at its last tick. */
TRACE_EVENT(rths_step,
	    TP_PROTO(const struct rths_device *rd, u32 ticks),
	    TP_ARGS(rd, ticks),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, ticks)
			     __field(u32, late_ticks)
			     __field(u32, flags)
			     __field(u64, step)
			     __field(u64, tick)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->ticks = ticks;
			   __entry->late_ticks = rd->loop.wait;
			   __entry->flags = rd->loop.late_flags;
			   __entry->step = rd->loop.step;
			   __entry->tick = rd->loop.tick;),
	    TP_printk("dev=%s id=%u step=%llu tick=%llu ticks=%u late_ticks=%u flags=0x%x",
		      __entry->name, __entry->id, __entry->step, __entry->tick,
		      __entry->ticks, __entry->late_ticks, __entry->flags)
);

/* A late command: what the policy did, @w ticks into the step. */
TRACE_EVENT(rths_late,
	    TP_PROTO(const struct rths_device *rd, u32 action, u32 w),
	    TP_ARGS(rd, action, w),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, action)
			     __field(u32, w)
			     __field(u64, step)
			     __field(u64, tick)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->action = action;
			   __entry->w = w;
			   __entry->step = rd->loop.step + 1;
			   __entry->tick = rd->loop.tick;),
	    TP_printk("dev=%s id=%u step=%llu tick=%llu action=%s w=%u",
		      __entry->name, __entry->id, __entry->step, __entry->tick,
		      rths_show_late(__entry->action), __entry->w)
);

TRACE_EVENT(rths_state,
	    TP_PROTO(const struct rths_device *rd, u32 state, u32 reason),
	    TP_ARGS(rd, state, reason),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, old)
			     __field(u32, state)
			     __field(u32, reason)
			     __field(u64, step)
			     __field(u64, tick)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->old = rd->state;
			   __entry->state = state;
			   __entry->reason = reason;
			   __entry->step = rd->loop.step;
			   __entry->tick = rd->loop.tick;),
	    TP_printk("dev=%s id=%u tick=%llu step=%llu %s->%s reason=%s",
		      __entry->name, __entry->id, __entry->tick, __entry->step,
		      rths_show_state(__entry->old),
		      rths_show_state(__entry->state),
		      rths_show_reason(__entry->reason))
);

/* The loop stops stepping and ramps to rest (holding or faulted). */
TRACE_EVENT(rths_hold,
	    TP_PROTO(const struct rths_device *rd, u32 state, u32 reason,
		     u32 fault, u64 step),
	    TP_ARGS(rd, state, reason, fault, step),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, state)
			     __field(u32, reason)
			     __field(u32, fault)
			     __field(u32, ramp_ticks)
			     __field(u64, step)
			     __field(u64, tick)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->state = state;
			   __entry->reason = reason;
			   __entry->fault = fault;
			   __entry->ramp_ticks = rd->cfg.ramp_ticks;
			   __entry->step = step;
			   __entry->tick = rd->loop.tick;),
	    TP_printk("dev=%s id=%u tick=%llu step=%llu state=%s reason=%s fault=%u ramp_ticks=%u",
		      __entry->name, __entry->id, __entry->tick, __entry->step,
		      rths_show_state(__entry->state),
		      rths_show_reason(__entry->reason), __entry->fault,
		      __entry->ramp_ticks)
);

/*
 * The first thread latency above the device's break threshold
 * (RTHS_A_DEV_LAT_BREAK_US); tracing is turned off right after it.
 */
TRACE_EVENT(rths_lat_break,
	    TP_PROTO(const struct rths_device *rd, u64 irq_lat, u64 thread_lat,
		     u32 break_us),
	    TP_ARGS(rd, irq_lat, thread_lat, break_us),
	    TP_STRUCT__entry(__array(char, name, RTHS_NAME_LEN)
			     __field(u32, id)
			     __field(u32, break_us)
			     __field(u64, tick)
			     __field(u64, irq_lat)
			     __field(u64, thread_lat)),
	    TP_fast_assign(memcpy(__entry->name, rd->name, RTHS_NAME_LEN);
			   __entry->id = rd->id;
			   __entry->break_us = break_us;
			   __entry->tick = rd->loop.tick;
			   __entry->irq_lat = irq_lat;
			   __entry->thread_lat = thread_lat;),
	    TP_printk("dev=%s id=%u tick=%llu irq_lat=%llu thread_lat=%llu break_us=%u",
		      __entry->name, __entry->id, __entry->tick,
		      __entry->irq_lat, __entry->thread_lat, __entry->break_us)
);

#endif /* _RTHS_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rths_trace
#include <trace/define_trace.h>
