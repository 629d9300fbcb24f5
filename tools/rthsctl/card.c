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

int rc_cmd_card(struct rc *rc, int argc, char **argv)
{
	static const char *const words[] = { "show", "help", NULL };
	struct rc_err e;
	json_t *arr;
	int k = 0, ret;

	if (argc >= 1) {
		k = rc_keyword(argv[0], words, "card command", &e);
		if (k < 0)
			return rc_usage_error(&e, "card");
		if (k == 1) {
			rc_usage_card(stdout);
			return RC_OK;
		}
		if (argc > 1) {
			rc_err_set(&e, "card show: unexpected \"%s\"", argv[1]);
			return rc_usage_error(&e, "card");
		}
	}
	if (!rc_ctl(rc))
		return RC_ERROR;
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
