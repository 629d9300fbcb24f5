// SPDX-License-Identifier: GPL-2.0
/*
 * rmmod during a run: removing the card module stops and deletes its
 * running devices; the owner sees the device go; the core module then
 * unloads once the last file is closed.  Reloads the modules at the end
 * from $RTHS_KMOD_DIR (the build tree of the running kernel's flavour).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "common.h"

static int module_loaded(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	FILE *f = fopen("/proc/modules", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			found = 1;
	fclose(f);
	return found;
}

TEST(rmmod_during_a_run)
{
	const char *kdir = getenv("RTHS_KMOD_DIR");
	struct rths_dev_config cfg = {
		.set = RTHS_CFG_CLOCK | RTHS_CFG_STEP_TICKS,
		.clock = RTHS_CLOCK_HRTIMER,
		.step_ticks = 8,
	};
	struct rths_feedback fb;
	struct rths_dev_info info;
	struct rt t;
	uint64_t n;
	int err;

	ASSERT_NE(NULL, kdir) TH_LOG("RTHS_KMOD_DIR is not set");
	ASSERT_EQ(0, rt_create(&t, "rm", 2, NULL, &cfg));
	ASSERT_EQ(0, rt_open(&t));
	ASSERT_EQ(0, rt_start(&t));
	for (n = 1; n <= 20; n++)
		ASSERT_EQ(0, rt_post1(&t, n, n * 1000));
	ASSERT_EQ(0, rths_wait_feedback(t.dev, &fb, 10000, 0));

	/* running, owned and mapped: the card module still goes */
	ASSERT_EQ(0, rt_sh("rmmod rths_sim", NULL));
	EXPECT_EQ(0, module_loaded("rths_sim"));
	EXPECT_EQ(-ENODEV, rths_dev_get(t.ctl, t.name, &info, sizeof(info)));
	do {
		err = rths_wait_feedback(t.dev, &fb, 10000, 0);
	} while (err == 0);
	EXPECT_EQ(-ENODEV, err);

	/* the core stays while a file is open, then goes */
	EXPECT_NE(0, rt_sh("rmmod rths 2>/dev/null", NULL));
	EXPECT_EQ(1, module_loaded("rths"));
	rths_dev_close(t.dev);
	rths_ctl_close(t.ctl);
	EXPECT_EQ(0, rt_sh("rmmod rths", NULL));
	EXPECT_EQ(0, module_loaded("rths"));

	ASSERT_EQ(0, rt_sh("insmod %s/kernel/rths.ko", kdir));
	ASSERT_EQ(0, rt_sh("insmod %s/kernel/cards/rths_sim.ko", kdir));
}

static int count_dev(const struct rths_dev_info *info,
		     const struct rths_card_params *card, void *arg)
{
	(void)info;
	(void)card;
	(*(int *)arg)++;
	return 0;
}

/* Deleting devices while their card module goes: each device is torn
 * down exactly once, by whichever comes first. */
TEST(dev_del_races_rmmod)
{
	enum { N = 32 };
	const char *kdir = getenv("RTHS_KMOD_DIR");
	struct rths_ctl *ctl;
	char name[RTHS_NAME_LEN];
	int i, n = 0, st;
	pid_t pid;

	ASSERT_NE(NULL, kdir) TH_LOG("RTHS_KMOD_DIR is not set");
	ASSERT_EQ(0, rths_ctl_open(&ctl));
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "race%d", i);
		ASSERT_EQ(0, rths_dev_new(ctl, name, "sim", 4, NULL));
		if (i % 2)
			ASSERT_EQ(0, rths_run_start(ctl, name));
	}
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct rths_ctl *c;
		int bad = 0, r;

		if (rths_ctl_open(&c))
			_exit(1);
		for (i = N - 1; i >= 0; i--) {
			snprintf(name, sizeof(name), "race%d", i);
			r = rths_dev_del(c, name);
			/* gone already, or the family went with the module */
			if (r && r != -ENODEV && r != -ENOENT)
				bad = 2;
		}
		_exit(bad);
	}
	EXPECT_EQ(0, rt_sh("rmmod rths_sim", NULL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(0, rths_dev_list(ctl, count_dev, &n));
	EXPECT_EQ(0, n);
	rths_ctl_close(ctl);
	ASSERT_EQ(0, rt_sh("insmod %s/kernel/cards/rths_sim.ko", kdir));
}

TEST_HARNESS_MAIN
