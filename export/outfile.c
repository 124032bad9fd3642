// SPDX-License-Identifier: GPL-2.0
/*
 * outfile.c - exporters' output under a temporary name, renamed into place
 * only when complete: an export that fails, or is interrupted by an error,
 * leaves no file a viewer would open as if it were whole.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* Output is written in large blocks: the exporters write small pieces. */
#define OUT_BUFFER (1 << 20)

static char *tmp_name(const char *path)
{
	size_t n = strlen(path);
	char *s = malloc(n + 5);

	if (s) {
		memcpy(s, path, n);
		memcpy(s + n, ".tmp", 5);
	}
	return s;
}

int outfile_open(struct outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	o->tmp = tmp_name(path);
	if (!o->path || !o->tmp)
		goto err_nomem;
	o->f = fopen(o->tmp, "wb");
	if (!o->f) {
		int err = -errno;

		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return err;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUFFER);
	return 0;

err_nomem:
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return -ENOMEM;
}

int outfile_write(struct outfile *o, const void *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, o->f) != len)
		return errno ? -errno : -EIO;
	return 0;
}

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

int outfile_commit(struct outfile *o)
{
	int ret = 0;

	if (fflush(o->f) || ferror(o->f))
		ret = errno ? -errno : -EIO;
	if (fclose(o->f) && !ret)
		ret = -errno;
	o->f = NULL;
	if (!ret && rename(o->tmp, o->path))
		ret = -errno;
	if (ret)
		unlink(o->tmp);
	outfile_free(o);
	return ret;
}

void outfile_abort(struct outfile *o)
{
	if (o->f) {
		fclose(o->f);
		unlink(o->tmp);
	}
	outfile_free(o);
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);

	return n >= k && !strcmp(s + n - k, end);
}

/* Whether @de in an export's folder is one of ours: CTF's metadata and
 * channel files, OTF2's anchor, definition and event files. */
static bool export_file(const struct dirent *de)
{
	return de->d_type == DT_REG && (!strcmp(de->d_name, "metadata") ||
					!strncmp(de->d_name, "channel", 7) ||
					ends_with(de->d_name, ".otf2") ||
					ends_with(de->d_name, ".def") ||
					ends_with(de->d_name, ".evt") ||
					ends_with(de->d_name, ".marker"));
}

enum tree_op {
	TREE_CHECK, /* -ENOTEMPTY if anything is not an export's */
	TREE_REMOVE, /* remove the folder, after TREE_CHECK */
	TREE_REMOVE_ALL, /* remove our own temporary, whatever it holds */
};

/*
 * Walks the folder @path: checks that it holds only an export's files
 * (and folders of them), or removes them and it. A folder holding
 * anything else is left alone (-ENOTEMPTY): a mistyped -o must not delete
 * someone's files. Return: 0 or -errno.
 */
static int export_tree(const char *path, enum tree_op op)
{
	bool remove = op != TREE_CHECK;
	DIR *d = opendir(path);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR) {
			if (op != TREE_REMOVE_ALL && !export_file(de))
				ret = -ENOTEMPTY;
			else if (remove && unlinkat(dirfd(d), de->d_name, 0))
				ret = -errno;
			continue;
		}
		sub = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!sub) {
			ret = -ENOMEM;
			break;
		}
		sprintf(sub, "%s/%s", path, de->d_name);
		ret = export_tree(sub, op);
		free(sub);
	}
	closedir(d);
	if (!ret && remove && rmdir(path))
		ret = -errno;
	return ret;
}

static int remove_export_dir(const char *path)
{
	int ret = export_tree(path, TREE_CHECK);

	return ret ? ret : export_tree(path, TREE_REMOVE);
}

int outdir_open(struct outdir *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	d->tmp = tmp_name(path);
	if (!d->path || !d->tmp) {
		free(d->path);
		free(d->tmp);
		return -ENOMEM;
	}
	/* A temporary left by an export that was killed goes first (if it
	 * holds only an export's files). */
	remove_export_dir(d->tmp);
	if (mkdir(d->tmp, 0777)) {
		int err = -errno;

		free(d->path);
		free(d->tmp);
		memset(d, 0, sizeof(*d));
		return err;
	}
	return 0;
}

FILE *outdir_create(struct outdir *d, const char *name)
{
	size_t n = strlen(d->tmp) + strlen(name) + 2;
	char *p = malloc(n);
	FILE *f;

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(p, n, "%s/%s", d->tmp, name);
	f = fopen(p, "wb");
	free(p);
	if (f)
		setvbuf(f, NULL, _IOFBF, OUT_BUFFER / 4);
	return f;
}

int outdir_mkdir(struct outdir *d, const char *name)
{
	size_t n = strlen(d->tmp) + strlen(name) + 2;
	char *p = malloc(n);
	int ret = 0;

	if (!p)
		return -ENOMEM;
	snprintf(p, n, "%s/%s", d->tmp, name);
	if (mkdir(p, 0777) && errno != EEXIST)
		ret = -errno;
	free(p);
	return ret;
}

int outdir_commit(struct outdir *d)
{
	struct stat st;
	int ret = 0;

	/* rename(2) does not replace a folder that has files in it. */
	if (!stat(d->path, &st) && S_ISDIR(st.st_mode))
		ret = remove_export_dir(d->path);
	if (!ret && rename(d->tmp, d->path))
		ret = -errno;
	if (ret)
		export_tree(d->tmp, TREE_REMOVE_ALL);
	free(d->path);
	free(d->tmp);
	memset(d, 0, sizeof(*d));
	return ret;
}

void outdir_abort(struct outdir *d)
{
	if (d->tmp)
		export_tree(d->tmp, TREE_REMOVE_ALL);
	free(d->path);
	free(d->tmp);
	memset(d, 0, sizeof(*d));
}
