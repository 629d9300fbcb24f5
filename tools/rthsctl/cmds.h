/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rthsctl's objects, one file each (dev.c, run.c, stats.c, monitor.c,
 * card.c, latency.c): what the main file's table dispatches to.
 */
#ifndef RTHSCTL_CMDS_H
#define RTHSCTL_CMDS_H

#include <stdio.h>

#include "output.h"

int rc_cmd_dev(struct rc *rc, int argc, char **argv);
int rc_cmd_run(struct rc *rc, int argc, char **argv);
int rc_cmd_stats(struct rc *rc, int argc, char **argv);
int rc_cmd_monitor(struct rc *rc, int argc, char **argv);
int rc_cmd_card(struct rc *rc, int argc, char **argv);
int rc_cmd_latency(struct rc *rc, int argc, char **argv);

void rc_usage_dev(FILE *f);
void rc_usage_run(FILE *f);
void rc_usage_stats(FILE *f);
void rc_usage_monitor(FILE *f);
void rc_usage_card(FILE *f);
void rc_usage_latency(FILE *f);

#endif /* RTHSCTL_CMDS_H */
