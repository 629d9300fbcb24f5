// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Opening a device's char node and mapping its region.  The layout comes
 * from DEV_GET; every ring is checked to lie inside the mapping before it
 * is used, and the node is checked to be the device's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev/internal.h"

int rths_dev_attach(void *base, size_t size, int fd, bool owner,
		    const struct rths_dev_info *info, struct rths_dev **devp,
		    struct rths_err *err)
{
	const struct rths_mmap_header *hdr = base;
	uint32_t n = info->channels;
	struct rths_dev *dev;
	int ret;

	*devp = NULL;
	if (n < 1 || n > RTHS_MAX_CHANNELS)
		return rths_err_set(err, -EPROTO, "device has %u channels", n);
	if (size < sizeof(*hdr))
		return rths_err_set(err, -EPROTO, "mapping too small");
	if (hdr->magic != RTHS_MMAP_MAGIC || hdr->version != RTHS_MMAP_VERSION)
		return rths_err_set(err, -EPROTO,
				    "mapping: bad magic %#x or version %u",
				    hdr->magic, hdr->version);
	if (hdr->channels != n)
		return rths_err_set(err, -EPROTO,
				    "mapping: %u channels, device has %u",
				    hdr->channels, n);
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	ret = rths_ring_bind(&dev->cmd, base, size, &info->cmd,
			     RTHS_CMD_ENTRY_SIZE(n), "command", err);
	if (!ret)
		ret = rths_ring_bind(&dev->fb, base, size, &info->fb,
				     RTHS_FB_ENTRY_SIZE(n), "feedback", err);
	if (!ret)
		ret = rths_ring_bind(&dev->trace, base, size, &info->trace,
				     RTHS_TRACE_ENTRY_SIZE(n), "trace", err);
	if (!ret && (!dev->cmd.entries || !dev->fb.entries))
		ret = rths_err_set(err, -EPROTO,
				    "device reports no command or feedback ring");
	if (ret) {
		free(dev);
		return ret;
	}
	dev->fb_copy = malloc(dev->fb.entry_size);
	dev->trace_copy = malloc(dev->trace.entry_size ? dev->trace.entry_size : 1);
	if (!dev->fb_copy || !dev->trace_copy) {
		free(dev->fb_copy);
		free(dev->trace_copy);
		free(dev);
		return -ENOMEM;
	}
	dev->fd = fd;
	dev->owner = owner;
	dev->base = base;
	dev->size = size;
	dev->channels = n;
	dev->hdr = base;
	rths_dev_sync(dev);
	*devp = dev;
	return 0;
}

int rths_dev_open(struct rths_ctl *ctl, const char *name, unsigned int flags,
		  struct rths_dev **devp)
{
	struct rths_err *err = &ctl->nl.err;
	bool owner = flags & RTHS_OPEN_OWNER;
	struct rths_dev_info info;
	char path[64];
	struct stat st;
	void *base;
	int fd, ret;

	*devp = NULL;
	ret = rths_dev_get(ctl, name, &info, sizeof(info));
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/dev/rths/%s", info.name);
	fd = open(path, (owner ? O_RDWR : O_RDONLY) | O_CLOEXEC |
		  ((flags & RTHS_OPEN_NONBLOCK) ? O_NONBLOCK : 0));
	if (fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			return rths_err_set(err, ret, "%s: already has an owner",
					    path);
		return rths_err_set(err, ret, "%s: %s", path, rths_strerror(-ret));
	}
	/* A stale or foreign node under that name must not be mapped. */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != info.chrdev_major ||
	    minor(st.st_rdev) != info.chrdev_minor) {
		close(fd);
		return rths_err_set(err, -ENODEV,
				    "%s is not the char device of %s (%u:%u)",
				    path, info.name, info.chrdev_major,
				    info.chrdev_minor);
	}
	if (!info.mmap_size || info.mmap_size > SIZE_MAX) {
		close(fd);
		return rths_err_set(err, -EPROTO, "bad mmap size %llu",
				    (unsigned long long)info.mmap_size);
	}
	base = mmap(NULL, (size_t)info.mmap_size,
		    owner ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return rths_err_set(err, ret, "mmap %s: %s", path,
				    rths_strerror(-ret));
	}
	ret = rths_dev_attach(base, (size_t)info.mmap_size, fd, owner, &info,
			      devp, err);
	if (ret) {
		munmap(base, (size_t)info.mmap_size);
		close(fd);
		return ret;
	}
	/* run control on @ctl sends this fd (rths_ctl_owner_talk) */
	if (owner) {
		memcpy((*devp)->name, info.name, sizeof((*devp)->name));
		(*devp)->ctl = ctl;
		(*devp)->next_owned = ctl->owned;
		ctl->owned = *devp;
	}
	return 0;
}

void rths_dev_close(struct rths_dev *dev)
{
	if (!dev)
		return;
	rths_ctl_unlink(dev);
	munmap(dev->base, dev->size);
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev->fb_copy);
	free(dev->trace_copy);
	free(dev);
}

int rths_dev_fd(const struct rths_dev *dev)
{
	return dev->fd;
}

uint32_t rths_dev_channels(const struct rths_dev *dev)
{
	return dev->channels;
}

const volatile struct rths_mmap_header *
rths_dev_header(const struct rths_dev *dev)
{
	return dev->hdr;
}

void rths_dev_sync(struct rths_dev *dev)
{
	rths_ring_sync(&dev->cmd, true);
	rths_ring_sync(&dev->fb, false);
	rths_ring_sync(&dev->trace, false);
}
