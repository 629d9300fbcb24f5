# SPDX-License-Identifier: GPL-2.0
# Independent reference for examples/c/own-loop -o: the same one-storey
# structure integrated by central differences with the specimen's
# stiffness folded into the model (an ideal actuator and a linear
# specimen make the hybrid loop exactly this).  Reads a PEER .AT2 in g;
# prints "t u" per step.  Variables: m c k dt (from the command line).
NR == 4 {
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^NPTS/) { sub(/.*=/, "", $i); if ($i == "") npts = $(i + 1) + 0; else npts = $i + 0 }
		if ($i ~ /^DT/) { sub(/.*=/, "", $i); if ($i == "") rdt = $(i + 1) + 0; else rdt = $i + 0 }
	}
}
NR > 4 { for (i = 1; i <= NF; i++) a[n++] = $i * 9.80665 }
END {
	u0 = 0; u1 = 0
	for (s = 0; s * dt <= (n - 1) * rdt + 1e-12; s++) {
		t = s * dt; x = t / rdt; j = int(x)
		ag = j + 1 < n ? a[j] + (a[j + 1] - a[j]) * (x - j) : a[n - 1]
		printf "%.6f %.9e\n", t, u1
		u2 = (-m * ag - k * u1 + 2 * m / (dt * dt) * u1 - (m / (dt * dt) - c / (2 * dt)) * u0) / (m / (dt * dt) + c / (2 * dt))
		u0 = u1; u1 = u2
	}
}
