// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl card: the card types the kernel has registered.
 */
#include <stdio.h>

#include "cmds.h"
#include "print.h"

void rc_usage_card(FILE *f)
{
	fputs("Usage: rthsctl card show\n", f);
}

void rc_show_card(struct pr *p, const char *card)
{
	pr_obj(p, NULL, NULL);
	pr_str(p, "card", "card %s\n", card);
	pr_close(p);
}

static int one_card(const char *card, void *arg)
{
	rc_show_card(arg, card);
	return 0;
}

static int card_show(struct rc *rc, int argc, char **argv)
{
	struct rc_err e;
	struct pr p;
	int ret;

	if (argc > 0) {
		rc_err_set(&e, "card show: unexpected \"%s\"", argv[0]);
		return rc_usage_error(&e, "card");
	}
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	pr_begin(&p, rc->opt.json, stdout);
	ret = rths_card_list(rc->ctl, one_card, &p);
	return rc_show_done(rc, &p, ret, "card show");
}

int rc_cmd_card(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "show", card_show }, { "help", NULL }, { NULL, NULL }
	};

	return rc_dispatch(rc, cmds, "card", rc_usage_card, argc, argv);
}
