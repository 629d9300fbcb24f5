// SPDX-License-Identifier: GPL-2.0
/*
 * The kselftest harness ends each test's child with _exit(), which skips
 * LeakSanitizer's check at exit: check for leaks before it (asan variant
 * only, linked with -Wl,--wrap=_exit).
 */
#include <sanitizer/lsan_interface.h>

void __real__exit(int status) __attribute__((noreturn));
void __wrap__exit(int status) __attribute__((noreturn));

void __wrap__exit(int status)
{
	if (status == 0 && __lsan_do_recoverable_leak_check())
		status = 1;
	__real__exit(status);
}
