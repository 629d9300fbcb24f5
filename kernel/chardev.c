// SPDX-License-Identifier: GPL-2.0
/*
 * The device node /dev/rths/NAME: ownership (the one O_RDWR opener owns a
 * run), mmap of the shared region, and poll for feedback.
 */
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pfn_t.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "rths.h"

static dev_t rths_devt;
static struct cdev rths_cdev;
static struct class *rths_class;

static char *rths_devnode(RTHS_DEVNODE_CONST struct device *dev,
			  umode_t *mode)
{
	/* Group access is for the lab's users; udev sets the group. */
	if (mode)
		*mode = 0660;
	return kasprintf(GFP_KERNEL, "rths/%s", dev_name(dev));
}

static int rths_open(struct inode *inode, struct file *file)
{
	struct rths_device *rd;
	int err = 0;

	rd = rths_dev_get_by_id(iminor(inode));
	if (!rd)
		return -ENODEV;
	mutex_lock(&rd->lock);
	if (rd->dead) {
		err = -ENODEV;
	} else if (file->f_mode & FMODE_WRITE) {
		if (rd->owner)
			err = -EBUSY;
		else
			rd->owner = file;
	}
	mutex_unlock(&rd->lock);
	if (err) {
		rths_dev_put(rd);
		return err;
	}
	file->private_data = rd;
	return nonseekable_open(inode, file);
}

static int rths_release(struct inode *inode, struct file *file)
{
	struct rths_device *rd = file->private_data;

	mutex_lock(&rd->lock);
	if (rd->owner == file) {
		rd->owner = NULL;
		/* The owner is gone mid-run: hold where we are, never jump. */
		if (!rd->dead && rd->state == RTHS_STATE_RUNNING)
			rths_loop_request_hold(rd, RTHS_REASON_OWNER_GONE);
	}
	mutex_unlock(&rd->lock);
	rths_dev_put(rd);
	return 0;
}

static void rths_vm_open(struct vm_area_struct *vma)
{
	struct rths_region *rg = vma->vm_private_data;

	rths_region_get(rg);
	atomic_inc(&rg->maps);
}

static void rths_vm_close(struct vm_area_struct *vma)
{
	struct rths_region *rg = vma->vm_private_data;

	atomic_dec(&rg->maps);
	rths_region_put(rg);
}

/*
 * The region's pages are faulted in, one at a time, from its vmalloc
 * memory: also again after MADV_DONTNEED, or in a moved mapping.  They
 * go in as special entries of a VM_MIXEDMAP mapping, by pfn: no page
 * reference (the VMA holds the region), and a write to one comes to
 * rths_vm_pfn_mkwrite(), not through the page cache's locking and
 * dirtying, which memory without an address space has no use for.
 */
static vm_fault_t rths_vm_fault(struct vm_fault *vmf)
{
	struct rths_region *rg = vmf->vma->vm_private_data;
	unsigned long pfn;

	if (vmf->pgoff >= PAGE_ALIGN(rg->size) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	pfn = vmalloc_to_pfn(rg->base + (vmf->pgoff << PAGE_SHIFT));
	return vmf_insert_mixed(vmf->vma, vmf->address, pfn_to_pfn_t(pfn));
}

/*
 * Page 0, the header, is the kernel's.  A shared writable mapping is
 * write-notified (this handler makes it so): its pages are mapped
 * without write permission until a write faults here, also after an
 * mprotect() round trip, and only the header's write is refused.
 */
static vm_fault_t rths_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	return vmf->pgoff ? 0 : VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct rths_vm_ops = {
	.open = rths_vm_open,
	.close = rths_vm_close,
	.fault = rths_vm_fault,
	.pfn_mkwrite = rths_vm_pfn_mkwrite,
};

static int rths_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct rths_device *rd = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct rths_region *rg;
	int err;

	if (vma->vm_pgoff)
		return -EINVAL;
	/* Observers map read-only; only the owner may post commands. */
	if (!(file->f_mode & FMODE_WRITE)) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		rths_vm_flags_clear(vma, VM_MAYWRITE);
	}
	/* a private copy of the rings would post nothing */
	if (!(vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EINVAL;
		rths_vm_flags_clear(vma, VM_MAYWRITE);
	}
	/*
	 * Pin the region and count the map before mapping, under
	 * rd->region_lock alone (never rd->lock: see Locking in rths.h).  A
	 * resize sees the map and refuses; one under way makes us wait.
	 */
	spin_lock(&rd->region_lock);
	rg = READ_ONCE(rd->dead) ? NULL : rd->region;
	if (rg && !rd->resizing) {
		rths_region_get(rg);
		atomic_inc(&rg->maps);
	}
	err = !rg ? -ENODEV : rd->resizing ? -EAGAIN : 0;
	spin_unlock(&rd->region_lock);
	if (err)
		return err;
	if (len > PAGE_ALIGN(rg->size)) {
		atomic_dec(&rg->maps);
		rths_region_put(rg);
		return -EINVAL;
	}
	/*
	 * Neither grown by mremap() nor inherited by a child: a fork must
	 * not hand the owner's writable command ring to another process.
	 */
	rths_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_DONTCOPY);
	/* the VMA owns the reference and the count, as rths_vm_open() */
	vma->vm_private_data = rg;
	vma->vm_ops = &rths_vm_ops;
	return 0;
}

static __poll_t rths_poll(struct file *file, poll_table *wait)
{
	struct rths_device *rd = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &rd->wq, wait);
	mutex_lock(&rd->lock);
	if (rd->dead) {
		mask = EPOLLHUP | EPOLLERR;
	} else {
		if (rths_kring_has_data(&rd->region->fb))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (READ_ONCE(rd->state) != RTHS_STATE_RUNNING)
			mask |= EPOLLPRI;
	}
	mutex_unlock(&rd->lock);
	return mask;
}

static const struct file_operations rths_fops = {
	.owner = THIS_MODULE,
	.open = rths_open,
	.release = rths_release,
	.mmap = rths_mmap,
	.poll = rths_poll,
	/* no .llseek: since 6.0 that makes lseek() fail with ESPIPE */
};

int rths_chardev_add(struct rths_device *rd)
{
	struct device *node;

	node = device_create(rths_class, NULL, MKDEV(MAJOR(rths_devt), rd->id),
			     rd, "%s", rd->name);
	if (IS_ERR(node))
		return PTR_ERR(node);
	rd->node = node;
	return 0;
}

void rths_chardev_del(struct rths_device *rd)
{
	device_destroy(rths_class, MKDEV(MAJOR(rths_devt), rd->id));
	rd->node = NULL;
}

/*
 * Whether @fd, in the calling task's file table, is @rd's owner: the
 * O_RDWR open of its node.  An observer's (O_RDONLY) open, another
 * device's node or any other file is not.  Caller holds rd->lock.
 */
bool rths_chardev_owner_fd(struct rths_device *rd, int fd)
{
	struct file *file;
	bool owner;

	lockdep_assert_held(&rd->lock);
	if (fd < 0)
		return false;
	file = fget(fd);
	if (!file)
		return false;
	owner = file->f_op == &rths_fops && file->private_data == rd &&
		rd->owner == file;
	/* not the last reference while it is rd->owner; else a deferred one */
	fput(file);
	return owner;
}

u32 rths_chardev_encode(const struct rths_device *rd)
{
	return new_encode_dev(MKDEV(MAJOR(rths_devt), rd->id));
}

int rths_chardev_init(void)
{
	int err;

	err = alloc_chrdev_region(&rths_devt, 0, RTHS_MAX_DEVICES, "rths");
	if (err)
		return err;
	cdev_init(&rths_cdev, &rths_fops);
	rths_cdev.owner = THIS_MODULE;
	err = cdev_add(&rths_cdev, rths_devt, RTHS_MAX_DEVICES);
	if (err)
		goto unregister;
	rths_class = rths_class_create("rths");
	if (IS_ERR(rths_class)) {
		err = PTR_ERR(rths_class);
		goto del;
	}
	rths_class->devnode = rths_devnode;
	return 0;
del:
	cdev_del(&rths_cdev);
unregister:
	unregister_chrdev_region(rths_devt, RTHS_MAX_DEVICES);
	return err;
}

void rths_chardev_exit(void)
{
	class_destroy(rths_class);
	cdev_del(&rths_cdev);
	unregister_chrdev_region(rths_devt, RTHS_MAX_DEVICES);
}
