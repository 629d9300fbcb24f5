// SPDX-License-Identifier: GPL-2.0
/*
 * A device substructure in an OpenFresco session (openfresco.c): the
 * session opens and starts the device, executes each trial on it, and
 * brings it to rest when it ends.  The device itself is device.c's.
 */
#include <rths/hs_experiment.h>

#include "site.h"

/* One session drives the device at a time: it is one specimen. */
int device_session_open(struct session *s)
{
	struct substructure *sub = s->sub;

	if (sub->dev_session) {
		session_fail(s, "device busy: session %u drives it",
			     sub->dev_session);
		return -1;
	}
	if (device_sub_open(&s->dev, sub) || device_sub_start(s->dev)) {
		session_fail(s, "device: %s", device_sub_error(s->dev));
		device_sub_close(s->dev);
		s->dev = NULL;
		return -1;
	}
	sub->dev_session = s->id;
	site_view_running(sub);
	session_log(s, LOG_INFO, "device %s started (%s backend, %u Hz, %u ticks a step%s%s)",
		    sub->dev->device.name, device_sub_backend(s->dev),
		    sub->dev->device.rate, sub->dev->device.step_ticks,
		    sub->dev->plant_name[0] ? ", plant " : "",
		    sub->dev->plant_name);
	return 0;
}

void device_session_close(struct session *s)
{
	if (!s->dev)
		return;
	if (device_sub_stop(s->dev))
		session_log(s, LOG_ERR, "device stop: %s",
			    device_sub_error(s->dev));
	else
		session_log(s, LOG_INFO, "device at rest after %llu steps",
			    (unsigned long long)device_sub_steps(s->dev));
	device_sub_close(s->dev);
	s->dev = NULL;
	s->sub->dev_session = 0;
	site_view_ended(s->sub);
}

/* The trial s->u executed: s->meas and s->f are what was measured. */
int device_session_execute(struct session *s)
{
	struct device_step_info info;

	if (device_sub_step(s->dev, device_sub_seq(s->dev) + 1, s->u, s->meas, s->f,
			    &info)) {
		session_fail(s, "device step %llu: %s",
			     (unsigned long long)device_sub_steps(s->dev) + 1,
			     device_sub_error(s->dev));
		return -1;
	}
	site_view_step(s->sub, device_sub_steps(s->dev), s->u, s->meas, s->f,
		       &info);
	if (info.late_ticks || info.flags)
		session_log(s, LOG_WARN, "device step %llu: late %u ticks%s%s",
			    (unsigned long long)device_sub_steps(s->dev), info.late_ticks,
			    info.flags & RTHS_FB_F_EXTRAPOLATED ?
			    ", extrapolated" : "",
			    info.held ? ", held" : "");
	return 0;
}
