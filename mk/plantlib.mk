# SPDX-License-Identifier: GPL-2.0
# librths' plant design (lib/plant): the sim card's sections from a
# continuous transfer function, their frequency response and the RTHS
# benchmark's plant; numerics beside lib/ode and lib/la, above them.

LIBRTHS_SRCS += $(sort $(wildcard lib/plant/*.c))
