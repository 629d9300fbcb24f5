// SPDX-License-Identifier: GPL-2.0
/* What every rths tool says the same way (cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int tool_version(const char *tool)
{
	printf("%s %s\n", tool, RTHS_VERSION);
	return TOOL_OK;
}

int tool_print_file(const char *tool, const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;
	int bad;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", tool, path, strerror(errno));
		return TOOL_FAILED;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	bad = ferror(f) || ferror(stdout);
	fclose(f);
	if (bad) {
		fprintf(stderr, "%s: %s: cannot copy to stdout\n", tool, path);
		return TOOL_FAILED;
	}
	return TOOL_OK;
}

const char *tool_error_kind(int code)
{
	if (code < 0)
		code = -code;
	if (code < RTHS_E_BASE)
		return "io";
	switch (code) {
	case RTHS_E_JSON_SYNTAX:
	case RTHS_E_GM_HEADER:
	case RTHS_E_GM_VALUE:
		return "syntax";
	case RTHS_E_MISSING_FIELD:
	case RTHS_E_UNKNOWN_FIELD:
	case RTHS_E_WRONG_TYPE:
		return "field";
	default:
		return "value";
	}
}

const char *tool_message_kind(const char *what)
{
	/* the type words of the file readers' "expected ..." messages */
	static const char *const field[] = {
		"missing", "unknown field", "expected a string",
		"expected a non-empty string", "expected an object",
		"expected a list", "expected a non-empty list",
		"expected true or false", "expected a finite number",
	};

	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (!strncmp(what, field[i], strlen(field[i])))
			return "field";
	return "value";
}

int tool_file_error(const char *tool, const struct rths_error *err)
{
	const char *msg = err->msg[0] ? err->msg : rths_strerror(err->code);
	char *end;
	long col = 0;

	if (!err->file[0]) {
		fprintf(stderr, "%s: %s [%s]\n", tool, msg,
			rths_strerror_name(err->code));
		return TOOL_FAILED;
	}
	/* librths keeps no column but in a syntax error's message
	 * ("column N: ..."): lift it to its place */
	if (err->line && !strncmp(msg, "column ", 7)) {
		col = strtol(msg + 7, &end, 10);
		if (col >= 0 && end > msg + 7 && !strncmp(end, ": ", 2))
			msg = end + 2;	/* column 0: at the end of the file */
		else
			col = 0;
	}
	fputs(err->file, stderr);
	if (err->line)
		fprintf(stderr, ":%u", err->line);
	if (col)
		fprintf(stderr, ":%ld", col);
	fprintf(stderr, ": [%s] ", tool_error_kind(err->code));
	if (err->path[0])
		fprintf(stderr, "%s: ", err->path);
	fprintf(stderr, "%s\n", msg);
	return TOOL_FAILED;
}
