// SPDX-License-Identifier: GPL-2.0
/*
 * rths_rt_enter() and rths_rt_counters() (<rths/rt.h>): bad arguments,
 * an unprivileged caller (a forked child that drops to nobody with
 * RLIMIT_MEMLOCK and RLIMIT_RTPRIO at 0) told which limit to raise, or
 * failed with RTHS_RT_REQUIRED, and a privileged one made SCHED_FIFO on
 * another CPU than the one it avoids.  Each real-time change happens in a
 * child, so that the test runner itself stays a normal process.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include <rths/rt.h>

/* The sanitizers' mlockall() does nothing and says it did. */
#ifdef __SANITIZE_ADDRESS__
#define MLOCK_WORKS 0
#else
#define MLOCK_WORKS 1
#endif

TEST(bad_arguments_are_einval)
{
	struct rths_rt_config c;
	struct rths_rt_status st;
	struct rths_error err;
	unsigned char big[sizeof(c) + 8];

	EXPECT_EQ(-EINVAL, rths_rt_enter(NULL, sizeof(c), &st, sizeof(st),
					 &err));
	rths_rt_config_default(&c, sizeof(c), -1);
	c.priority = 100;
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, sizeof(c), &st, sizeof(st), &err));
	EXPECT_NE(NULL, strstr(err.msg, "priority 100")) TH_LOG("%s", err.msg);
	rths_rt_config_default(&c, sizeof(c), -1);
	c.cpu = -3;
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, sizeof(c), &st, sizeof(st), &err));
	rths_rt_config_default(&c, sizeof(c), -1);
	c.flags |= 1u << 7;
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, sizeof(c), &st, sizeof(st), &err));
	EXPECT_NE(NULL, strstr(err.msg, "flags")) TH_LOG("%s", err.msg);
	rths_rt_config_default(&c, sizeof(c), -1);
	c.stack_prefault = (size_t)1 << 30;
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, sizeof(c), &st, sizeof(st), &err));
	/* size-tagged: below the first size, or a newer caller's field set */
	rths_rt_config_default(&c, sizeof(c), -1);
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, 4, &st, sizeof(st), &err));
	EXPECT_EQ(-EINVAL, rths_rt_enter(&c, sizeof(c), &st, 4, &err));
	memset(big, 0, sizeof(big));
	memcpy(big, &c, sizeof(c));
	big[sizeof(c) + 2] = 1;
	EXPECT_EQ(-E2BIG, rths_rt_enter((struct rths_rt_config *)big,
					sizeof(big), &st, sizeof(st), &err));
}

TEST(defaults)
{
	struct rths_rt_config c;

	memset(&c, 0xff, sizeof(c));
	rths_rt_config_default(&c, sizeof(c), 3);
	EXPECT_EQ(RTHS_RT_LOCK, c.flags);
	EXPECT_EQ(RTHS_RT_PRIORITY_DEFAULT, c.priority);
	EXPECT_EQ(RTHS_RT_CPU_AUTO, c.cpu);
	EXPECT_EQ(3, c.avoid_cpu);
	EXPECT_LT(0, c.stack_prefault);
	EXPECT_LT(0, c.heap_prefault);
}

TEST(counters_of_this_thread)
{
	struct rths_rt_counters a, b;
	char *p;

	ASSERT_EQ(0, rths_rt_counters(&a, sizeof(a)));
	EXPECT_EQ(SCHED_OTHER, a.sched_policy);
	EXPECT_STREQ("SCHED_OTHER", rths_rt_policy_name(a.sched_policy));
	EXPECT_EQ(sched_getcpu() >= 0, a.cpu >= 0);
	/* fresh pages touched: minor faults the counters see */
	p = mmap(NULL, 64 << 12, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	for (int i = 0; i < 64; i++)
		p[i << 12] = 1;
	ASSERT_EQ(0, rths_rt_counters(&b, sizeof(b)));
	EXPECT_LE(a.minor_faults + 64, b.minor_faults);
	munmap(p, 64 << 12);
	EXPECT_EQ(-EINVAL, rths_rt_counters(&a, 4));
	EXPECT_EQ(NULL, rths_rt_policy_name(12345));
}

/* What a child saw, sent to the parent. */
struct outcome {
	int ret;
	struct rths_rt_status st;
	struct rths_rt_counters c;
	struct rths_error err;
	int skip;		/* the child could not set up its case */
	int avoid;		/* the CPU the child avoided */
	bool left;		/* rths_rt_leave() made it normal again */
};

/* Runs @fn in a child and returns what it saw. */
static void in_child(struct __test_metadata *_metadata,
		    void (*fn)(struct outcome *), struct outcome *o)
{
	int fd[2], status;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	ASSERT_EQ(0, pipe(fd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct outcome out = { 0 };

		close(fd[0]);
		fn(&out);
		_exit(write(fd[1], &out, sizeof(out)) == sizeof(out) ? 0 : 1);
	}
	close(fd[1]);
	ASSERT_EQ(sizeof(*o), read(fd[0], o, sizeof(*o)));
	close(fd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* nobody, without the limits rths's limits.d file grants */
static int unprivileged(void)
{
	struct rlimit zero = { 0, 0 };

	if (setrlimit(RLIMIT_MEMLOCK, &zero) || setrlimit(RLIMIT_RTPRIO, &zero))
		return -1;
	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		return -1;
	return 0;
}

static void enter_unprivileged(struct outcome *o, unsigned int flags)
{
	struct rths_rt_config c;

	if (unprivileged()) {
		o->skip = 1;
		return;
	}
	rths_rt_config_default(&c, sizeof(c), -1);
	c.flags |= flags;
	c.heap_prefault = 1 << 20;
	o->ret = rths_rt_enter(&c, sizeof(c), &o->st, sizeof(o->st), &o->err);
	rths_rt_counters(&o->c, sizeof(o->c));
}

static void unprivileged_optional(struct outcome *o)
{
	enter_unprivileged(o, 0);
}

static void unprivileged_required(struct outcome *o)
{
	enter_unprivileged(o, RTHS_RT_REQUIRED);
}

TEST(unprivileged_is_told_which_limits_to_raise)
{
	struct outcome o;

	in_child(_metadata, unprivileged_optional, &o);
	if (o.skip)
		SKIP(return, "cannot drop to an unprivileged user here");
	EXPECT_EQ(0, o.ret) TH_LOG("%s", o.err.msg);
	EXPECT_EQ(-EPERM, o.st.policy);
	EXPECT_EQ(0, o.st.heap);
	EXPECT_EQ(0, o.st.stack);
	EXPECT_EQ(SCHED_OTHER, o.c.sched_policy);
	if (MLOCK_WORKS) {
		EXPECT_GT(0, o.st.lock);
		EXPECT_FALSE(o.st.memory_locked);
		EXPECT_NE(NULL, strstr(o.st.advice, "RLIMIT_MEMLOCK"))
			TH_LOG("%s", o.st.advice);
	}
	EXPECT_NE(NULL, strstr(o.st.advice, "RLIMIT_RTPRIO (rtprio, now 0) to 70"))
		TH_LOG("%s", o.st.advice);
	EXPECT_NE(NULL, strstr(o.st.advice, "group rths"));
	EXPECT_NE(NULL, strstr(o.st.advice, "90-rths.conf"));
}

TEST(unprivileged_and_required_is_an_error)
{
	struct outcome o;

	in_child(_metadata, unprivileged_required, &o);
	if (o.skip)
		SKIP(return, "cannot drop to an unprivileged user here");
	EXPECT_GT(0, o.ret);
	EXPECT_EQ(o.ret, o.err.code);
	/* the first item refused is the error: the lock */
	EXPECT_EQ(MLOCK_WORKS ? o.st.lock : o.st.policy, o.ret);
	EXPECT_NE(NULL, strstr(o.err.msg, MLOCK_WORKS ? "cannot lock memory" :
			       "cannot set SCHED_FIFO"))
		TH_LOG("%s", o.err.msg);
	/* and the message names every limit to raise */
	EXPECT_NE(NULL, strstr(o.err.msg, "RLIMIT_RTPRIO"))
		TH_LOG("%s", o.err.msg);
	if (MLOCK_WORKS)
		EXPECT_NE(NULL, strstr(o.err.msg, "RLIMIT_MEMLOCK"))
			TH_LOG("%s", o.err.msg);
}

/* Privileged, without the lock (an ASan process maps terabytes of
 * shadow): SCHED_FIFO 10 on a CPU other than the one avoided. */
static void privileged(struct outcome *o)
{
	struct rths_rt_config c;
	cpu_set_t set;
	int avoid = -1;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				avoid = i;	/* the highest: auto's choice */
	rths_rt_config_default(&c, sizeof(c), avoid);
	c.flags = 0;
	c.priority = 10;
	c.heap_prefault = 1 << 20;
	o->ret = rths_rt_enter(&c, sizeof(c), &o->st, sizeof(o->st), &o->err);
	rths_rt_counters(&o->c, sizeof(o->c));
	o->avoid = avoid;
	if (o->ret == 0 && o->st.policy == 0 &&
	    rths_rt_leave(&o->st, sizeof(o->st)) == 0 &&
	    sched_getscheduler(0) == SCHED_OTHER &&
	    sched_getaffinity(0, sizeof(set), &set) == 0 &&
	    CPU_COUNT(&set) == o->st.cpus)
		o->left = true;
}

TEST(privileged_gets_fifo_on_another_cpu)
{
	struct outcome o;

	if (geteuid() != 0)
		SKIP(return, "not root");
	in_child(_metadata, privileged, &o);
	ASSERT_EQ(0, o.ret) TH_LOG("%s", o.err.msg);
	if (o.st.policy == -EPERM)
		SKIP(return, "SCHED_FIFO refused to root here (no CAP_SYS_NICE or no RT runtime)");
	EXPECT_EQ(1, o.st.lock);
	EXPECT_EQ(0, o.st.policy);
	EXPECT_EQ(SCHED_FIFO, o.st.sched_policy);
	EXPECT_EQ(10, o.st.sched_priority);
	EXPECT_EQ(SCHED_FIFO, o.c.sched_policy);
	EXPECT_EQ(10, o.c.sched_priority);
	EXPECT_STREQ("", o.st.advice);
	if (o.st.cpus < 2) {
		EXPECT_EQ(-EXDEV, o.st.affinity);
		EXPECT_EQ(-1, o.st.cpu);
	} else {
		EXPECT_EQ(0, o.st.affinity);
		EXPECT_NE(o.avoid, o.st.cpu);
		EXPECT_EQ(o.st.cpu, o.c.cpu);
	}
	EXPECT_TRUE(o.left) TH_LOG("rths_rt_leave() did not restore");
}

TEST_HARNESS_MAIN
