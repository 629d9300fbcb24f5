// SPDX-License-Identifier: GPL-2.0
/* Tools' plots: gnuplot run as a child on a script the tool wrote. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "gnuplot.h"

extern char **environ;

int gnuplot_run(const char *dir, const char *script, struct rths_error *err)
{
	posix_spawn_file_actions_t fa;
	char log[4096];
	char *argv[3];
	pid_t pid;
	int st, r;

	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	argv[0] = (char *)"gnuplot";
	argv[1] = (char *)script;
	argv[2] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT |
					 O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	r = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r == ENOENT)
		return rths_error_set(err, RTHS_E_UNSUPPORTED, script, 0, NULL,
				      "gnuplot is not installed; the script is ready");
	if (r != 0)
		return rths_error_set(err, r, script, 0, NULL,
				      "cannot run gnuplot: %s", strerror(r));
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return rths_error_set(err, errno, script, 0, NULL,
					      "waiting for gnuplot: %s",
					      strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return rths_error_set(err, EIO, log, 0, NULL,
				      "gnuplot failed (status %d); see the log",
				      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
