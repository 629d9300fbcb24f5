// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Size-tagged structs: a caller passes the size of the struct it was
 * compiled with, so that a struct can grow at its end without a new
 * soname (Documentation/librths.rst, "ABI policy").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dev/internal.h"

/* The first published sizes end exactly at their last field: a field
 * appended later can never land in an old struct's tail padding. */
_Static_assert(RTHS_DEV_CONFIG_SIZE_VER0 <= RTHS_DEV_CONFIG_SIZE_VER1 &&
	       RTHS_DEV_CONFIG_SIZE_VER1 <= sizeof(struct rths_dev_config) &&
	       RTHS_DEV_INFO_SIZE_VER1 <= sizeof(struct rths_dev_info) &&
	       RTHS_DEV_INFO_SIZE_VER0 <= sizeof(struct rths_dev_info) &&
	       RTHS_SIM_PARAMS_SIZE_VER0 <= sizeof(struct rths_sim_params) &&
	       RTHS_COMEDI_PARAMS_SIZE_VER0 <=
	       sizeof(struct rths_comedi_params),
	       "a published size is larger than its struct");

/* The caller's struct is there and at least its first published size. */
static int check_caller(const void *p, size_t usize, size_t min,
			const char *what, struct rths_err *err)
{
	if (!p)
		return rths_err_set(err, -EINVAL, "struct %s: NULL", what);
	if (usize < min)
		return rths_err_set(err, -EINVAL,
				    "struct %s: size %zu is below the first published size (%zu)",
				    what, usize, min);
	return 0;
}

int rths_copy_in(void *dst, size_t size, const void *src, size_t usize,
		 size_t min, const char *what, struct rths_err *err)
{
	const unsigned char *p = src;
	size_t i;
	int ret = check_caller(src, usize, min, what, err);

	if (ret)
		return ret;
	/* a newer caller: what we do not know must be left unset */
	for (i = size; i < usize; i++)
		if (p[i])
			return rths_err_set(err, -E2BIG,
					    "struct %s: byte %zu is set, but this librths knows only %zu bytes",
					    what, i, size);
	memset(dst, 0, size);
	memcpy(dst, src, usize < size ? usize : size);
	return 0;
}

int rths_copy_out(void *dst, size_t usize, const void *src, size_t size,
		  size_t min, const char *what, struct rths_err *err)
{
	int ret = check_caller(dst, usize, min, what, err);

	if (ret)
		return ret;
	memcpy(dst, src, usize < size ? usize : size);
	if (usize > size)
		memset((char *)dst + size, 0, usize - size);
	return 0;
}

/* ---- the cards' parameters -------------------------------------------- */

static const struct {
	const char *card;
	size_t size, min;
} cards[] = {
	{ "sim", sizeof(struct rths_sim_params), RTHS_SIM_PARAMS_SIZE_VER0 },
	{ "comedi", sizeof(struct rths_comedi_params),
	  RTHS_COMEDI_PARAMS_SIZE_VER0 },
};

static int card_index(const char *card)
{
	size_t i;

	for (i = 0; card && i < sizeof(cards) / sizeof(cards[0]); i++)
		if (!strcmp(card, cards[i].card))
			return (int)i;
	return -1;
}

int rths_card_params_in(const char *card, const struct rths_card_params *cp,
			union rths_card_union *u, struct rths_err *err)
{
	char what[RTHS_NAME_LEN + 16];
	int k;

	if (!cp->card)
		return rths_err_set(err, -EINVAL,
				    "card parameters: the card they are for is not named");
	if (card && strcmp(card, cp->card))
		return rths_err_set(err, -EINVAL,
				    "card %s: parameters for card %s given",
				    card, cp->card);
	k = card_index(cp->card);
	if (k < 0)
		return rths_err_set(err, -EOPNOTSUPP,
				    "card %s: this librths knows no parameters for it",
				    cp->card);
	snprintf(what, sizeof(what), "rths_%s_params", cards[k].card);
	return rths_copy_in(u, cards[k].size, cp->params, cp->size,
			    cards[k].min, what, err);
}

int rths_put_card(struct rths_msgbuf *mb, const char *card,
		  const struct rths_card_params *cp)
{
	union rths_card_union u;
	int ret = rths_card_params_in(card, cp, &u, mb->err);

	if (ret)
		return ret;
	if (!strcmp(cp->card, "sim"))
		return rths_put_sim(mb, &u.sim);
	return rths_put_comedi(mb, &u.comedi);
}

void rths_dev_reply_card(const struct rths_dev_reply *r,
			 struct rths_card_params *cp)
{
	int k = card_index(r->info.card);

	cp->card = r->info.card;
	cp->params = NULL;
	cp->size = 0;
	if (k < 0)
		return;
	cp->params = &r->card;
	cp->size = cards[k].size;
}

int rths_card_params_out(const struct rths_dev_reply *r, const char *card,
			 void *params, size_t size, struct rths_err *err)
{
	char what[RTHS_NAME_LEN + 16];
	int k = card_index(card);

	if (k < 0)
		return rths_err_set(err, -EOPNOTSUPP,
				    "card %s: this librths knows no parameters for it",
				    card ? card : "(none)");
	if (strcmp(card, r->info.card))
		return rths_err_set(err, -EMEDIUMTYPE,
				    "%s: the device's card is %s, not %s",
				    r->info.name, r->info.card, card);
	snprintf(what, sizeof(what), "rths_%s_params", cards[k].card);
	return rths_copy_out(params, size, &r->card, cards[k].size,
			     cards[k].min, what, err);
}
