// SPDX-License-Identifier: GPL-2.0
/*
 * The sanitized unit tests find leaks: the harness ends each test's child
 * with _exit(), which skips LeakSanitizer's check at exit, so lsan_exit.c
 * wraps _exit() to check first.  A child that leaks and exits 0 must
 * therefore exit non-zero.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifdef __SANITIZE_ADDRESS__
void *volatile leak_sink;

/*
 * LeakSanitizer scans conservatively: a pointer left in a register or a
 * dead stack slot keeps its block "reachable".  So leak many blocks, and
 * overwrite the stack they passed through before exiting, that at least
 * one is certainly unreachable.
 */
static __attribute__((noinline)) void leak(void)
{
	for (int i = 0; i < 64; i++) {
		char *p = malloc(64);

		if (p)
			memset(p, 1, 64);
		leak_sink = p;
	}
	leak_sink = NULL;	/* now unreachable */
}

static __attribute__((noinline)) void scrub_stack(void)
{
	volatile char buf[16384];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}
#endif

TEST(a_leak_fails_the_test)
{
#ifdef __SANITIZE_ADDRESS__
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		leak();
		scrub_stack();
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_NE(0, WEXITSTATUS(status))
		TH_LOG("LeakSanitizer did not run before _exit()");
#else
	SKIP(return, "only the sanitized build checks for leaks");
#endif
}

TEST_HARNESS_MAIN
