/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rths hybrid simulation engine: everything rths-run uses, in one include.
 * "The patent" in these headers is CN109359427B (Southeast University),
 * the multi-actuator RTHS method: Documentation/references.rst.
 * Units are SI throughout (m, N, s, kg); the device layer converts to the
 * kernel's integers (nm, uN).  Public symbols start with rths_hs_.
 *
 * Errors: a negative errno or -RTHS_E_xxx (rths/error.h); calls that take
 * a struct rths_error fill it with what went wrong and where.
 */
#ifndef RTHS_HS_H
#define RTHS_HS_H

/* librths is built with -fvisibility=hidden: this is its API. */
#pragma GCC visibility push(default)

#include <rths/hs_error.h>
#include <rths/hs_model.h>
#include <rths/hs_groundmotion.h>
#include <rths/hs_integrator.h>
#include <rths/hs_plugin.h>
#include <rths/hs_setup.h>
#include <rths/hs_compensation.h>
#include <rths/hs_criteria.h>
#include <rths/hs_backend.h>
#include <rths/hs_sim.h>
#include <rths/hs_output.h>
#include <rths/hs_experiment.h>
#include <rths/hs_odesub.h>

#pragma GCC visibility pop

#endif /* RTHS_HS_H */
