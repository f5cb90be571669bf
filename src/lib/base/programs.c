/*
 * programs.c: where one of coresink's programs finds another. The handler hands its admin flags over to coresinkctl;
 * coresinkctl's retrace runs the fetch step, which is the handler's (--fetch-debuginfo). The running program is where
 * the kernel says it is (/proc/self/exe, read now: the fetch step's sandbox has no /proc of it); another is the one
 * beside it where there is one (the build tree: tests run what they built), else where `make install` and the
 * package put it (coresinkctl in BINDIR, the handler in LIBEXECDIR).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "programs.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec"
#endif
#ifndef BINDIR
#define BINDIR "/usr/local/bin"
#endif

/* The path of program name ("coresink" or "coresinkctl") into buf. 0, -ENAMETOOLONG, or -errno of readlink. */
int program_path(const char *name, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *slash;
	int w;

	if (n < 0 && strcmp(name, diag_program_name()) == 0)
		return -errno;
	if (n >= 0) {
		self[n] = '\0';
		if (strcmp(name, diag_program_name()) == 0)
			return snprintf(buf, len, "%s", self) < (int)len ? 0 : -ENAMETOOLONG;
		slash = strrchr(self, '/');
		w = slash ? snprintf(buf, len, "%.*s/%s", (int)(slash - self), self, name) : -1;
		if (w >= 0 && w < (int)len && access(buf, X_OK) == 0)
			return 0;
	}
	w = snprintf(buf, len, "%s/%s", strcmp(name, "coresinkctl") == 0 ? BINDIR : LIBEXECDIR, name);
	return w < (int)len ? 0 : -ENAMETOOLONG;
}
