// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names of the uapi enums, as rthsctl prints and parses them.  Tables are
 * indexed by the enum value; every enum starts at 1.
 */
#include <errno.h>
#include <string.h>

#include "dev/internal.h"

#define N_NAMES(table) (sizeof(table) / sizeof(table[0]))
#define NAME_OF(table, v) \
	((unsigned int)(v) < N_NAMES(table) ? table[(unsigned int)(v)] : NULL)

static const char *const state_names[] = {
	[RTHS_STATE_STOPPED] = "stopped",
	[RTHS_STATE_RUNNING] = "running",
	[RTHS_STATE_HOLDING] = "holding",
	[RTHS_STATE_FAULTED] = "faulted",
};

static const char *const reason_names[] = {
	[RTHS_REASON_USER] = "user",
	[RTHS_REASON_OWNER_GONE] = "owner-gone",
	[RTHS_REASON_LIMIT] = "limit",
	[RTHS_REASON_RING] = "ring",
	[RTHS_REASON_LATE] = "late",
	[RTHS_REASON_CARD] = "card",
	[RTHS_REASON_REMOVED] = "removed",
	[RTHS_REASON_CPU_OFFLINE] = "cpu-offline",
};

static const char *const fault_names[] = {
	[RTHS_FAULT_CMD_INDEX] = "cmd-index",
	[RTHS_FAULT_CMD_STEP] = "cmd-step",
	[RTHS_FAULT_CMD_ENTRY] = "cmd-entry",
	[RTHS_FAULT_FB_INDEX] = "fb-index",
	[RTHS_FAULT_TRACE_INDEX] = "trace-index",
	[RTHS_FAULT_LATE] = "late",
	[RTHS_FAULT_CARD_IO] = "card-io",
};

static const char *const clock_names[] = {
	[RTHS_CLOCK_HRTIMER] = "hrtimer",
	[RTHS_CLOCK_MANUAL] = "manual",
};

static const char *const late_policy_names[] = {
	[RTHS_LATE_STRICT] = "strict",
	[RTHS_LATE_HOLD] = "hold",
	[RTHS_LATE_EVENT_DRIVEN] = "event-driven",
};

static const char *const late_action_names[] = {
	[RTHS_LATE_EXTRAPOLATED] = "extrapolated",
	[RTHS_LATE_HELD] = "held",
	[RTHS_LATE_DECELERATED] = "decelerated",
	[RTHS_LATE_FAULTED] = "faulted",
};

static const char *const limit_names[] = {
	[RTHS_LIMIT_STROKE] = "stroke",
	[RTHS_LIMIT_VELOCITY] = "velocity",
	[RTHS_LIMIT_FORCE] = "force",
};

static const char *const event_names[] = {
	[RTHS_EVENT_STATE] = "state",
	[RTHS_EVENT_FAULT] = "fault",
	[RTHS_EVENT_LIMIT] = "limit",
	[RTHS_EVENT_LATE] = "late",
	[RTHS_EVENT_OVERFLOW] = "overflow",
	[RTHS_EVENT_DEV_NEW] = "dev-new",
	[RTHS_EVENT_DEV_DEL] = "dev-del",
};

static const char *const ring_names[] = {
	[RTHS_RING_CMD] = "cmd",
	[RTHS_RING_FB] = "fb",
	[RTHS_RING_TRACE] = "trace",
};

/* A public name function over its table: NULL outside the table. */
#define NAME_FN(fn, type, table) \
	const char *fn(type v) \
	{ \
		return NAME_OF(table, v); \
	}

NAME_FN(rths_state_name, enum rths_state, state_names)
NAME_FN(rths_reason_name, enum rths_reason, reason_names)
NAME_FN(rths_fault_name, enum rths_fault, fault_names)
NAME_FN(rths_clock_name, enum rths_clock, clock_names)
NAME_FN(rths_late_policy_name, enum rths_late_policy, late_policy_names)
NAME_FN(rths_late_action_name, enum rths_late_action, late_action_names)
NAME_FN(rths_limit_name, enum rths_limit_kind, limit_names)
NAME_FN(rths_event_name, enum rths_event_type, event_names)
NAME_FN(rths_ring_name, enum rths_ring_id, ring_names)

static int parse_name(const char *const *table, unsigned int n,
		      const char *s)
{
	unsigned int i;

	if (!s)
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (table[i] && !strcmp(table[i], s))
			return (int)i;
	return -EINVAL;
}

int rths_late_policy_parse(const char *s)
{
	return parse_name(late_policy_names, N_NAMES(late_policy_names), s);
}

int rths_clock_parse(const char *s)
{
	return parse_name(clock_names, N_NAMES(clock_names), s);
}
