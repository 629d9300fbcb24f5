/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every rths tool says the same way (Documentation/tool-conventions.rst):
 * exit statuses, --version, and errors in a file it reads.
 */
#ifndef RTHS_TOOLS_CLI_H
#define RTHS_TOOLS_CLI_H

#include <rths/error.h>

/* Exit statuses; a tool's own start at 4. */
enum {
	TOOL_OK = 0,
	TOOL_FAILED = 1,	/* failed at run time (a bad file too) */
	TOOL_USAGE = 2,		/* the command line is wrong */
	TOOL_UNREACHABLE = 3,	/* the device or a site cannot be reached */
	TOOL_INTERRUPTED = 130,	/* SIGINT, as a shell reports it */
};

/* "TOOL VERSION" on stdout (the project's version); returns TOOL_OK. */
int tool_version(const char *tool);

/*
 * Copy the file @path to stdout (a tool's --json prints the summary.json
 * it wrote).  Returns TOOL_OK, or TOOL_FAILED after saying why.
 */
int tool_print_file(const char *tool, const char *path);

/* The kind of a file error: "io" (cannot open or read), "syntax",
 * "field" (missing, unknown or mistyped) or "value" (out of range or
 * inconsistent). */
const char *tool_error_kind(int code);

/*
 * The kind of a tool's own file error from its message ("missing
 * (required)", "unknown field", "expected a string" ... are "field",
 * anything else "value"), for readers that keep a message, not a code.
 */
const char *tool_message_kind(const char *what);

/*
 * @err on stderr.  An error in a file: "FILE:LINE:COL: [kind] PATH:
 * message", with the position as far as it is known ("FILE: [io]
 * message" for a file that cannot be read); anything else "TOOL:
 * message [name]".  Returns TOOL_FAILED.
 */
int tool_file_error(const char *tool, const struct rths_error *err);

#endif
