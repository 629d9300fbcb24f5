// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl card: the card types the kernel has registered.
 */
#include <stdio.h>

#include "rthsctl.h"

void rc_usage_card(FILE *f)
{
	fputs("Usage: rthsctl card show\n", f);
}

static int one_card(const char *card, void *arg)
{
	json_t *arr = arg;

	if (arr)
		json_array_append_new(arr, json_pack("{s:s}", "card", card));
	else
		printf("%s\n", card);
	return 0;
}

static int card_show(struct rc *rc, int argc, char **argv)
{
	struct rc_err e;
	json_t *arr;
	int ret;

	if (argc > 0) {
		rc_err_set(&e, "card show: unexpected \"%s\"", argv[0]);
		return rc_usage_error(&e, "card");
	}
	if (!rc_ctl(rc))
		return RC_UNREACHABLE;
	arr = rc->opt.json ? json_array() : NULL;
	ret = rths_card_list(rc->ctl, one_card, arr);
	if (ret < 0) {
		json_decref(arr);
		return rc_fail(rc, ret, "card show");
	}
	if (arr)
		rc_json_print(rc, arr);
	return RC_OK;
}

int rc_cmd_card(struct rc *rc, int argc, char **argv)
{
	static const struct rc_cmd cmds[] = {
		{ "show", card_show }, { "help", NULL }, { NULL, NULL }
	};

	return rc_dispatch(rc, cmds, "card", rc_usage_card, argc, argv);
}
