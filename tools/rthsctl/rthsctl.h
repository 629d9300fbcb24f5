/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every part of rthsctl, for the unit tests that drive them.  The parts
 * themselves include only the headers of the parts below them.
 */
#ifndef RTHSCTL_H
#define RTHSCTL_H

#include "cmds.h"
#include "latfmt.h"
#include "output.h"
#include "parse.h"

#endif /* RTHSCTL_H */
