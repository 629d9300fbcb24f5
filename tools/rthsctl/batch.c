// SPDX-License-Identifier: GPL-2.0
/*
 * rthsctl -b FILE (as "ip -b"): one rthsctl command line per line, "#"
 * starts a comment, double quotes group words.  Only the configuration
 * commands are allowed: dev add, dev set, dev del.
 *
 * Nothing is applied until the whole file has passed every check that
 * can be made beforehand:
 *   1. without the kernel (rc_batch_load): each line parses as its
 *      command would, a plant is designed at the rate the device will
 *      have then, and the names agree within the file;
 *   2. against the kernel's devices: an add of an existing name, a set
 *      or del of a missing one, a plant for a device whose card is not
 *      the sim card or at its present rate.
 * Then the lines run in order, as the same commands.  If the kernel
 * still refuses line N (e.g. a parameter out of its card's range, or
 * another process changed the devices meanwhile), the devices lines
 * 1..N-1 created are deleted again, newest first; what those lines set
 * on devices that existed before, or deleted, stays as it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

/* ---- reading -------------------------------------------------------------- */

/* "FILE:LINE: [kind] message" (Documentation/tool-conventions.rst; the
 * words carry no column). */
static int line_err(struct rc_err *e, const char *file, unsigned int lineno,
		    const char *kind, const char *msg)
{
	return rc_err_set(e, "%s:%u: [%s] %s", file, lineno, kind, msg);
}

/* A parser's error as a file error: an unknown word (rc_keyword's
 * "unknown ...") is a field, the rest values. */
static int parse_err(struct rc_err *e, const char *file, unsigned int lineno,
		     const char *msg)
{
	return line_err(e, file, lineno,
			strncmp(msg, "unknown ", 8) ? "value" : "field", msg);
}

/* Split @s into words (in place): blanks separate, "..." groups, "#"
 * at the start of a word ends the line.  Returns the count or -EINVAL. */
static int split(char *s, char **w, int max, const char **why)
{
	int n = 0;

	for (;;) {
		char *out;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == max) {
			*why = "too many words";
			return -EINVAL;
		}
		w[n++] = out = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' &&
		       *s != '\n') {
			if (*s == '"') {
				for (s++; *s && *s != '"'; s++)
					*out++ = *s;
				if (!*s) {
					*why = "unterminated quote";
					return -EINVAL;
				}
				s++;
				continue;
			}
			*out++ = *s++;
		}
		if (*s)
			s++;
		*out = '\0';
	}
}

/* What the file has done to a name so far. */
struct rc_name {
	const char *name;
	unsigned int added;	/* line of its add, 0 if none */
	bool deleted;
	uint32_t rate;		/* known rate (0: the kernel's, unknown) */
	const char *card;	/* known card (NULL: unknown) */
};

static struct rc_name *find(struct rc_name *t, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = n; i-- > 0;)
		if (!strcmp(t[i].name, s))
			return &t[i];
	return NULL;
}

/* One line's command, checked without the kernel. */
static int check_line(struct rc_batch_line *l, struct rc_name *names,
		      unsigned int *nnames, struct rc_err *e)
{
	static const char *const objects[] = { "dev", NULL };
	static const char *const cmds[] = { "add", "set", "del", NULL };
	struct rths_sim_params sim;
	struct rc_name *nm;
	int k;

	if (rc_keyword(l->argv[-1], objects,
		       "object in a batch (only dev add, dev set and dev del)",
		       e) < 0)
		return -EINVAL;
	if (l->argc < 1)
		return rc_err_set(e, "dev: missing command (add, set or del)");
	k = rc_keyword(l->argv[0], cmds, "dev command in a batch", e);
	if (k < 0)
		return k;
	l->op = (enum rc_batch_op)k;
	if (l->op == RC_BATCH_ADD) {
		struct rc_dev_add a;

		if (rc_parse_dev_add(l->argc - 1, l->argv + 1, &a, e))
			return -EINVAL;
		if (a.plant.given &&
		    rc_plant_design(&a.plant, RTHS_RATE_DEFAULT, &sim, e))
			return -EINVAL;
		l->name = a.name;
		l->card = a.card;
	} else if (l->op == RC_BATCH_SET) {
		struct rc_dev_set s;

		if (rc_parse_dev_set(l->argc - 1, l->argv + 1, &s, e))
			return -EINVAL;
		l->name = s.name;
		l->rate = (s.cfg.set & RTHS_CFG_RATE) ? s.cfg.rate_hz : 0;
		l->plant = s.plant.given;
		l->plant_spec = s.plant;
	} else {
		if (l->argc != 2)
			return rc_err_set(e, "dev del: %s", l->argc < 2 ?
					  "missing NAME" : "too many arguments");
		l->name = l->argv[1];
	}

	nm = find(names, *nnames, l->name);
	if (l->op == RC_BATCH_ADD) {
		if (nm && nm->added && !nm->deleted)
			return rc_err_set(e, "dev add %s: line %u added it already",
					  l->name, nm->added);
		nm = &names[(*nnames)++];
		*nm = (struct rc_name){ l->name, l->lineno, false,
					RTHS_RATE_DEFAULT, l->card };
		return 0;
	}
	if (nm && nm->deleted)
		return rc_err_set(e, "dev %s %s: an earlier line deleted it",
				  l->argv[0], l->name);
	if (!nm) {	/* the kernel's: checked against it later */
		nm = &names[(*nnames)++];
		*nm = (struct rc_name){ l->name, 0, false, 0, NULL };
	}
	if (l->op == RC_BATCH_DEL) {
		nm->deleted = true;
		return 0;
	}
	if (l->rate)
		nm->rate = l->rate;
	if (l->plant && nm->card && strcmp(nm->card, "sim"))
		return rc_err_set(e, "dev set %s: plant: only the sim card has one, line %u made it a %s device",
				  l->name, nm->added, nm->card);
	if (l->plant && nm->rate &&
	    rc_plant_design(&l->plant_spec, nm->rate, &sim, e))
		return -EINVAL;
	return 0;
}

void rc_batch_free(struct rc_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		free(b->lines[i].argv - 1);
	free(b->lines);
	memset(b, 0, sizeof(*b));
}

#define RC_BATCH_MAX_WORDS 256

int rc_batch_load(FILE *f, const char *file, struct rc_batch *b,
		  struct rc_err *e)
{
	struct rc_name *names = NULL;
	unsigned int lineno = 0, nnames = 0;
	char *buf = NULL;
	size_t cap = 0;
	int ret = 0;

	memset(b, 0, sizeof(*b));
	b->file = file;
	while (getline(&buf, &cap, f) >= 0) {
		char *w[RC_BATCH_MAX_WORDS];
		struct rc_batch_line *l;
		const char *why = NULL;
		struct rc_err le;
		size_t len;
		char *copy;
		int n, i;

		lineno++;
		len = strlen(buf);
		/* the words point into a copy that the line keeps */
		n = split(buf, w, RC_BATCH_MAX_WORDS, &why);
		if (n < 0) {
			ret = line_err(e, file, lineno, "syntax", why);
			goto out;
		}
		if (n == 0)
			continue;
		l = realloc(b->lines, (b->n + 1) * sizeof(*l));
		copy = malloc((n + 1) * sizeof(char *) + len + 1);
		if (!l || !copy) {
			if (l)
				b->lines = l;
			free(copy);
			rc_err_set(e, "%s: out of memory", file);
			ret = -ENOMEM;
			goto out;
		}
		b->lines = l;
		l = &b->lines[b->n];
		memset(l, 0, sizeof(*l));
		{
			char **v = (char **)copy;
			char *text = copy + (n + 1) * sizeof(char *);

			memcpy(text, buf, len + 1);
			for (i = 0; i < n; i++)
				v[i] = text + (w[i] - buf);
			v[n] = NULL;
			l->argv = v + 1;
		}
		l->argc = n - 1;
		l->lineno = lineno;
		b->n++;
		names = realloc(names, b->n * sizeof(*names));
		if (!names) {
			rc_err_set(e, "%s: out of memory", file);
			ret = -ENOMEM;
			goto out;
		}
		if (check_line(l, names, &nnames, &le)) {
			ret = parse_err(e, file, lineno, le.msg);
			goto out;
		}
	}
	/* a file of comments only is valid: nothing to do */
	if (ferror(f)) {
		rc_err_set(e, "%s: [io] read error", file);
		ret = -EIO;
	}
out:
	free(buf);
	free(names);
	if (ret)
		rc_batch_free(b);
	return ret;
}

int rc_batch_option(int *argc, char **argv, const char **file,
		    struct rc_err *e)
{
	int i, j;

	*file = NULL;
	for (i = 1; i < *argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (strcmp(argv[i], "-b") && strcmp(argv[i], "--batch") &&
		    strcmp(argv[i], "-batch"))
			continue;
		if (i + 1 >= *argc)
			return rc_err_set(e, "%s: missing FILE (\"-\" for standard input)",
					  argv[i]);
		*file = argv[i + 1];
		for (j = i; j + 2 <= *argc; j++)
			argv[j] = argv[j + 2];
		*argc -= 2;
		return 0;
	}
	return 0;
}

/* ---- against the kernel --------------------------------------------------- */

struct kdevs {
	struct rc_name *t;
	unsigned int n, cap;
};

static int kdev_push(struct kdevs *k, const char *name, const char *card,
		     uint32_t rate, unsigned int added)
{
	struct rc_name *nm;

	if (k->n == k->cap) {
		unsigned int cap = k->cap ? 2 * k->cap : 16;
		struct rc_name *t = realloc(k->t, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		k->t = t;
		k->cap = cap;
	}
	nm = &k->t[k->n++];
	nm->name = strdup(name);
	nm->card = strdup(card);
	nm->rate = rate;
	nm->added = added;
	nm->deleted = false;
	return nm->name && nm->card ? 0 : -ENOMEM;
}

static int collect(const struct rths_dev_info *d,
		   const struct rths_card_params *card, void *arg)
{
	(void)card;
	return kdev_push(arg, d->name, d->card, d->rate_hz, 0);
}

static void kdevs_free(struct kdevs *k)
{
	unsigned int i;

	for (i = 0; i < k->n; i++) {
		free((char *)k->t[i].name);
		free((char *)k->t[i].card);
	}
	free(k->t);
}

/* Replay the batch on the kernel's list of devices. */
static int check_kernel(const struct rc_batch *b, struct kdevs *k,
			struct rc_err *e)
{
	struct rths_sim_params sim;
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		const struct rc_batch_line *l = &b->lines[i];
		struct rc_name *nm = find(k->t, k->n, l->name);
		bool exists = nm && !nm->deleted;
		struct rc_err le;

		if (l->op == RC_BATCH_ADD) {
			if (exists)
				return line_err(e, b->file, l->lineno, "value",
						"dev add: a device of that name exists");
			if (kdev_push(k, l->name, l->card, RTHS_RATE_DEFAULT,
				      l->lineno))
				return -ENOMEM;
			continue;
		}
		if (!exists)
			return line_err(e, b->file, l->lineno, "value",
					l->op == RC_BATCH_DEL ?
					"dev del: no such device" :
					"dev set: no such device");
		if (l->op == RC_BATCH_DEL) {
			nm->deleted = true;
			continue;
		}
		if (l->rate)
			nm->rate = l->rate;
		if (l->plant && strcmp(nm->card, "sim")) {
			rc_err_set(&le, "dev set %s: plant: only the sim card has one, this device's card is %s",
				   l->name, nm->card);
			return parse_err(e, b->file, l->lineno, le.msg);
		}
		if (l->plant &&
		    rc_plant_design(&l->plant_spec, nm->rate, &sim, &le))
			return parse_err(e, b->file, l->lineno, le.msg);
	}
	return 0;
}

int rc_batch_run(struct rc *rc, const char *file)
{
	struct kdevs k = { NULL, 0, 0 };
	struct rc_batch b;
	struct rc_err e;
	FILE *f;
	unsigned int i, j;
	int ret;

	f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	if (!f) {
		fprintf(stderr, "%s: [io] cannot open: %s\n", file,
			strerror(errno));
		return RC_ERROR;
	}
	ret = rc_batch_load(f, file, &b, &e);
	if (f != stdin)
		fclose(f);
	/* a file error, as every tool prints one; status 2 as for a
	 * command line (the file is one) */
	if (ret == -EINVAL) {
		fprintf(stderr, "%s\n", e.msg);
		return RC_USAGE;
	}
	if (ret) {
		fprintf(stderr, "rthsctl: %s\n", e.msg);
		return RC_ERROR;
	}
	if (!b.n)
		return RC_OK;
	if (!rc_ctl(rc)) {
		rc_batch_free(&b);
		return RC_UNREACHABLE;
	}
	ret = rths_dev_list(rc->ctl, collect, &k);
	if (!ret)
		ret = check_kernel(&b, &k, &e);
	kdevs_free(&k);
	if (ret) {
		if (ret == -EINVAL)
			fprintf(stderr, "%s; nothing applied\n", e.msg);
		else
			rc_fail(rc, ret, file);
		rc_batch_free(&b);
		return RC_ERROR;
	}

	for (i = 0; i < b.n; i++) {
		ret = rc_cmd_dev(rc, b.lines[i].argc, b.lines[i].argv);
		if (ret != RC_OK)
			break;
	}
	if (i < b.n) {
		fprintf(stderr, "rthsctl: %s:%u: refused; deleting the devices the lines before it added\n",
			file, b.lines[i].lineno);
		for (j = i; j-- > 0;) {
			const struct rc_batch_line *l = &b.lines[j];
			unsigned int d;
			bool gone = false;
			int r;

			if (l->op != RC_BATCH_ADD)
				continue;
			for (d = j + 1; d < i; d++)
				gone |= b.lines[d].op == RC_BATCH_DEL &&
					!strcmp(b.lines[d].name, l->name);
			r = gone ? 0 : rths_dev_del(rc->ctl, l->name);
			if (r)
				rc_fail(rc, r, l->name);
		}
		ret = RC_ERROR;
	}
	rc_batch_free(&b);
	return ret;
}
