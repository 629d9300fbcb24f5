// SPDX-License-Identifier: GPL-2.0
/*
 * Events for the "monitor" multicast group.  The loop must not allocate or
 * block on netlink, so it queues events in a small per-device ring and a
 * work item sends them.  A full queue drops the event and counts it.
 */
#include "rths.h"

static void rths_event_work(struct work_struct *work)
{
	struct rths_device *rd = container_of(work, struct rths_device,
					      ev_work);
	struct rths_event_k ev;

	for (;;) {
		spin_lock_irq(&rd->ev_lock);
		if (rd->ev_head == rd->ev_tail) {
			spin_unlock_irq(&rd->ev_lock);
			break;
		}
		ev = rd->ev[rd->ev_tail % RTHS_EVENT_QUEUE];
		rd->ev_tail++;
		spin_unlock_irq(&rd->ev_lock);
		rths_netlink_event(rd, &ev, GFP_KERNEL);
	}
}

void rths_event_init(struct rths_device *rd)
{
	spin_lock_init(&rd->ev_lock);
	rd->ev_head = 0;
	rd->ev_tail = 0;
	INIT_WORK(&rd->ev_work, rths_event_work);
}

void rths_event_queue(struct rths_device *rd, const struct rths_event_k *ev)
{
	unsigned long flags;
	bool dropped = false;

	spin_lock_irqsave(&rd->ev_lock, flags);
	if (rd->ev_head - rd->ev_tail >= RTHS_EVENT_QUEUE)
		dropped = true;
	else
		rd->ev[rd->ev_head++ % RTHS_EVENT_QUEUE] = *ev;
	spin_unlock_irqrestore(&rd->ev_lock, flags);
	if (dropped)
		rd->stats.events_dropped++;
	else
		schedule_work(&rd->ev_work);
}

/* Sends what is queued and waits for it. */
void rths_event_flush(struct rths_device *rd)
{
	flush_work(&rd->ev_work);
	rths_event_work(&rd->ev_work);
}

void rths_event_send_now(struct rths_device *rd, const struct rths_event_k *ev)
{
	rths_netlink_event(rd, ev, GFP_KERNEL);
}
