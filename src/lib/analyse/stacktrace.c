/*
 * stacktrace.c: the stack trace of every thread in a stored core, the way systemd-coredump writes it (its
 * src/shared/elf-util.c), by elfutils: the modules with their build-ids and packages, then for every thread (within
 * TRACE_TEXT_MAX) up to 64 frames each, "#N  0xPC function (module + 0xOFFSET)", the function from DWARF where there is debug
 * information, else from the symbol table. The core and the files it names are hostile input: this runs only in
 * the sandbox of analysis.c, and everything it prints is escaped by the parent.
 */
#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "pkgnote.h"
#include "stacktrace.h"

#define BUILD_ID_MAX 64

struct trace {
	FILE *text, *json;
	FILE *canon;              /* the crashing thread's frames' canonical names (signature.c), "N NAME" a line */
	Dwfl *dwfl;
	Elf *elf;
	const char *exe;          /* the executable's path, to tell its module by name; NULL when unknown */
	bool exe_here;            /* and that path names it here too (not so in another root) */
	const char *debug_dir;    /* fetched debug info (.build-id/ beneath it), searched after the system's; or NULL */
	unsigned threads, frames, packages;
	unsigned left_out;        /* threads past TRACE_TEXT_MAX, counted, not unwound */
	struct trace_meta *meta;
};

#define NAME_SHOWN 1024   /* a function's or module's name, escaped; longer ones are cut */

/* The last component of a path. */
static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * A name from the core or its binaries, as it may appear in the trace: escaped (one line, a backslash doubled),
 * so that no crafted symbol can forge a line of the trace; "n/a" for none, as systemd-coredump writes.
 */
static const char *shown(const char *name, char *buf)
{
	if (!name)
		return "n/a";
	(void) escape_text(buf, NAME_SHOWN, name, ESCAPE_BACKSLASH);
	return buf;
}

/* The name of the function at pc: the innermost DWARF scope that names one, else the symbol table's. */
static const char *function_at(Dwfl_Module *module, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(module, pc, &bias), *scopes = NULL;
	const char *name = NULL;
	int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;

	for (int i = 0; i < n && !name; i++) {
		Dwarf_Attribute space, *a;
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine && tag != DW_TAG_entry_point)
			continue;
		a = dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &space);
		if (!a)
			a = dwarf_attr_integrate(&scopes[i], DW_AT_MIPS_linkage_name, &space);
		name = a ? dwarf_formstring(a) : NULL;
		if (!name)
			name = dwarf_diename(&scopes[i]);
	}
	free(scopes);
	return name ? name : dwfl_module_addrname(module, pc);
}

/* Whether sym is an exported function's (the names a stripped binary keeps, the same with debug info or without). */
static bool exported_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && (bind == STB_GLOBAL || bind == STB_WEAK) &&
	       sym->st_shndx != SHN_UNDEF && sym->st_size > 0;
}

/*
 * The name a signature gives the function at pc (signature.c, version 2), into buf: the module's exported function
 * there, from its .dynsym (one name whatever debug info is at hand: glibc's __libc_start_main, which its debug file
 * calls __libc_start_main_impl), a global one before a weak one, then the shortest, then the first in byte order;
 * returns 'd'. Else the name shown, without a symbol version ("name@@GLIBC_2.34" is "name"): 's'. Else 0.
 */
static char canonical_at(Dwfl_Module *module, Dwarf_Addr pc, const char *shown, char *buf, size_t len)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(module, &bias);
	Elf_Scn *scn = NULL;
	const char *best = NULL;
	int best_bind = 0;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);
		Elf_Data *d = sh && sh->sh_type == SHT_DYNSYM && sh->sh_entsize ? elf_getdata(scn, NULL) : NULL;

		for (size_t i = 0; d && i < sh->sh_size / sh->sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int bind;

			if (!gelf_getsym(d, (int)i, &sym) || !exported_function(&sym) || pc < sym.st_value + bias ||
			    pc >= sym.st_value + bias + sym.st_size || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
				continue;
			bind = GELF_ST_BIND(sym.st_info);
			if (!best || (bind == STB_GLOBAL && best_bind != STB_GLOBAL) ||
			    (bind == best_bind && (strlen(name) < strlen(best) ||
						   (strlen(name) == strlen(best) && strcmp(name, best) < 0)))) {
				best = name;
				best_bind = bind;
			}
		}
	}
	if (!best && !shown)
		return 0;
	(void) snprintf(buf, len, "%.*s", (int)strcspn(best ? best : shown, "@"), best ? best : shown);
	return best ? 'd' : 's';
}

/* The crashing thread's frame n for the signature: "N d NAME" (exported), "N s NAME" (shown), nothing unnamed. */
static void canonical_write(struct trace *t, Dwfl_Module *module, Dwarf_Addr pc, const char *function)
{
	char cbuf[NAME_SHOWN], ebuf[NAME_SHOWN];
	char from = module ? canonical_at(module, pc, function, cbuf, sizeof(cbuf)) : 0;

	if (from)
		fprintf(t->canon, "%u %c %s\n", t->frames, from, shown(cbuf, ebuf));
}

static int frame_callback(Dwfl_Frame *frame, void *arg)
{
	struct trace *t = arg;
	char fbuf[NAME_SHOWN], mbuf[NAME_SHOWN];
	Dwarf_Addr pc, start = 0;
	bool activation;
	const char *function = NULL, *module_name = NULL;
	Dwfl_Module *module;

	if (t->frames >= TRACE_FRAMES_MAX || !dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	/* A return address points after the call: the call itself is one byte before. */
	module = dwfl_addrmodule(t->dwfl, pc - (activation ? 0 : 1));
	if (module) {
		function = function_at(module, pc - (activation ? 0 : 1));
		module_name = dwfl_module_info(module, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	}
	fprintf(t->text, "#%-2u 0x%016" PRIx64 " %s (%s + 0x%" PRIx64 ")\n", t->frames, (uint64_t)pc,
		shown(function, fbuf), shown(module_name ? base(module_name) : NULL, mbuf), (uint64_t)(pc - start));
	if (t->canon && t->threads == 0)
		canonical_write(t, module, pc - (activation ? 0 : 1), function);
	t->frames++;
	return DWARF_CB_OK;
}

/*
 * One thread's frames, into a text of their own first: they join the trace only where it then stays within
 * TRACE_TEXT_MAX (the crashing thread, the first, always does); from the first that does not, the rest are counted.
 */
static int thread_callback(Dwfl_Thread *thread, void *arg)
{
	struct trace *t = arg;
	FILE *whole = t->text;
	char *one = NULL;
	size_t len = 0;
	long at = ftell(whole);

	if (t->left_out > 0 || at < 0) {
		t->left_out++;
		return DWARF_CB_OK;
	}
	t->text = open_memstream(&one, &len);
	if (!t->text) {
		t->text = whole;
		return DWARF_CB_ABORT;
	}
	fprintf(t->text, "%sStack trace of thread %d:\n", t->threads ? "\n" : "", (int)dwfl_thread_tid(thread));
	t->frames = 0;
	/* A thread whose unwinding fails midway keeps the frames found so far. */
	(void) dwfl_thread_getframes(thread, frame_callback, t);
	if (fclose(t->text) != 0)
		len = 0;
	t->text = whole;
	if (t->threads > 0 && (uint64_t)at + len > TRACE_TEXT_MAX)
		t->left_out = 1;
	else if (len > 0 && fwrite(one, 1, len, whole) == len)
		t->threads++;
	free(one);
	return DWARF_CB_OK;
}

/* The first package note in elf's PT_NOTE segments. 0 found, -ENOENT, or -EBADMSG for a malformed one. */
static int find_package(Elf *elf, struct pkgnote *p)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum) < 0)
		return -ENOENT;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr mem, *ph = gelf_getphdr(elf, (int)i, &mem);
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!ph || ph->p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz, ELF_T_NHDR);
		while (data && off < data->d_size && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != PKGNOTE_TYPE || nh.n_namesz != sizeof(PKGNOTE_OWNER) ||
			    memcmp((const char *)data->d_buf + name_off, PKGNOTE_OWNER, sizeof(PKGNOTE_OWNER)) != 0)
				continue;
			return pkgnote_parse((const char *)data->d_buf + desc_off, nh.n_descsz, p);
		}
	}
	return -ENOENT;
}

static void hex(const unsigned char *id, int len, char *out, size_t size)
{
	out[0] = '\0';
	for (int i = 0; i < len && (size_t)(2 * i + 2) < size; i++)
		(void) snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* "Module NAME from deb NAME-VERSION.ARCH" or "Module NAME with build-id ID", as systemd-coredump says it. */
static void module_line(struct trace *t, const char *name, const char *build_id, const struct pkgnote *p)
{
	const char *pkg = p ? pkgnote_get(p, "name") : NULL, *version = p ? pkgnote_get(p, "version") : NULL,
		   *arch = p ? pkgnote_get(p, "architecture") : NULL, *type = p ? pkgnote_get(p, "type") : NULL;
	char buf[NAME_SHOWN];

	/* The note's strings are clean text already (pkgnote.c); the module's name comes from the core. */
	/* libdwfl names the executable by its whole path when it was not given one (in a container's root). */
	fprintf(t->text, "Module %s", shown(base(name), buf));
	if (pkg)
		fprintf(t->text, " from %s %s%s%s%s%s", type ? type : "package", pkg, version ? "-" : "",
			version ? version : "", arch ? "." : "", arch ? arch : "");
	if (build_id[0] && !(pkg && version))
		fprintf(t->text, " with build-id %s", build_id);
	else if (!build_id[0])
		fprintf(t->text, " without build-id");
	fputc('\n', t->text);
}

/*
 * Records a module's package: into the JSON of all, and as the crash's package when it is the executable (named by
 * its file name, as systemd-coredump matches it: libdwfl names the main module so when it is given the path).
 */
static void record_package(struct trace *t, const char *name, const char *build_id, const struct pkgnote *p)
{
	const char *pkg = pkgnote_get(p, "name"), *version = pkgnote_get(p, "version");

	if (!escape_clean(name))
		return;
	fputc(t->packages++ ? ',' : '{', t->json);
	pkgnote_json(t->json, name, p, build_id);
	if (t->exe && strcmp(base(name), base(t->exe)) == 0 && pkg && !t->meta->package_name) {
		t->meta->package_name = strdup(pkg);
		t->meta->package_version = version ? strdup(version) : NULL;
	}
}

/*
 * A module whose file libdwfl did not use (none at its path, not readable, or one with another build-id than the
 * core's): its frames show n/a, and the entry says which and why.
 */
static void note_unread(struct trace_meta *m, const char *name, const char *why)
{
	size_t used = strlen(m->unread_list);
	char buf[NAME_SHOWN];

	if (m->unread++ < 3)
		(void) snprintf(m->unread_list + used, sizeof(m->unread_list) - used, "%s%s (%s)", used ? ", " : "",
				shown(base(name), buf), why ? why : "?");
}

static int module_callback(Dwfl_Module *module, void **user, const char *name, Dwarf_Addr start, void *arg)
{
	struct trace *t = arg;
	const unsigned char *id;
	GElf_Addr vaddr, bias;
	char build_id[2 * BUILD_ID_MAX + 1];
	struct pkgnote p;
	Elf *elf;
	int len = dwfl_module_build_id(module, &id, &vaddr);
	bool have;

	(void) start;
	hex(id, len > 0 && len <= BUILD_ID_MAX ? len : 0, build_id, sizeof(build_id));
	name = name ? name : "(unnamed)";
	elf = dwfl_module_getelf(module, &bias);
	/* find_elf() left the reason in the module's user data. */
	if (!elf)
		note_unread(t->meta, name, *user ? (const char *)*user : dwfl_errmsg(-1));
	have = elf && find_package(elf, &p) == 0;
	module_line(t, name, build_id, have ? &p : NULL);
	if (have)
		record_package(t, name, build_id, &p);
	return DWARF_CB_OK;
}

/*
 * The files this analysis was handed: one table for the one trace its process makes, since libdwfl's callbacks
 * take no argument of the caller's.
 */
static const struct trace_files *handed;
/* Where find_elf() says which handed files' paths lead elsewhere now (stacktrace_write()); NULL: nowhere. */
static FILE *lost_out;

/* The handed file whose mappings span addr (the smallest such span: a module within another's is its own), or -1. */
static int handed_at(Dwarf_Addr addr)
{
	int best = -1;

	for (unsigned i = 0; handed && i < handed->n; i++) {
		const struct mapped_file *f = &handed->f[i];

		if (addr >= f->lo && addr < f->hi &&
		    (best < 0 || f->hi - f->lo < handed->f[best].hi - handed->f[best].lo))
			best = (int)i;
	}
	return best;
}

/* Whether elf's build-id is the one the core holds for mod (any file is, where the core kept none). */
static bool same_build_id(Dwfl_Module *mod, Elf *elf)
{
	const unsigned char *want;
	const void *have;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &want, &vaddr), m;

	if (n <= 0)
		return true;
	m = (int)dwelf_elf_gnu_build_id(elf, &have);
	return m == n && memcmp(want, have, (size_t)n) == 0;
}

/* Why the file in fd is not mod's: NULL when it is, else "not an ELF" or "build-id differs". */
static const char *not_the_module(Dwfl_Module *mod, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	const char *why = !elf || elf_kind(elf) != ELF_K_ELF ? "not an ELF" :
			  !same_build_id(mod, elf) ? "build-id differs" : NULL;

	if (elf)
		elf_end(elf);
	return why;
}

/* fd (libdwfl closes it) as the file of the module named name, when it is that module's. -1 and why otherwise. */
static int take(Dwfl_Module *mod, int fd, const char *name, char **file_name, const char **why)
{
	if (fd < 0)
		return -1;
	*why = not_the_module(mod, fd);
	if (*why) {
		(void) close(fd);
		return -1;
	}
	*file_name = name ? strdup(name) : NULL;
	return fd;
}

static const char *open_error(int e)
{
	return e == ENOENT || e == ENOTDIR ? "gone" : e == EACCES || e == EPERM ? "not permitted" : "not opened";
}

/*
 * Opens a module's path, read-only. The kernel names a file deleted since it was mapped "PATH (deleted)": then PATH,
 * where an upgrade put another file (the build-id tells), or none. The fd, or -1 with errno set.
 */
static int open_path(const char *name)
{
	size_t len = path_undeleted(name);
	char *path;
	int fd, e;

	if (name[len] == '\0')
		return open(name, O_RDONLY | O_CLOEXEC);
	path = strndup(name, len);
	if (!path)
		return errno = ENOMEM, -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	e = errno;
	free(path);
	errno = e;
	return fd;
}

/*
 * Whether the module's path no longer leads to its file, which was read from handed file i: deleted since it was
 * mapped and not put back, gone, or another build there now. Then "i BUILD-ID NAME" to lost_out: what KeepModules=
 * keeps, for gdb and a retrace, which have only the path.
 */
static void note_if_lost(Dwfl_Module *mod, int i, const char *name)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	char build_id[2 * BUILD_ID_MAX + 1], buf[NAME_SHOWN];
	int len = dwfl_module_build_id(mod, &id, &vaddr), fd;
	bool lost;

	if (!lost_out || !name || name[0] != '/' || len <= 0 || len > BUILD_ID_MAX)
		return;
	fd = open_path(name);
	lost = fd < 0 || not_the_module(mod, fd) != NULL;
	fd_close(&fd);
	if (!lost)
		return;
	hex(id, len, build_id, sizeof(build_id));
	fprintf(lost_out, "%d %s %s\n", i, build_id, shown(base(name), buf));
}

/*
 * The fd of the fetched file (debug info, or the module's own file) the handler handed for mod's build-id, or -1.
 * The caller checks it is mod's (take()): the fetch step's cache is not trusted either.
 */
static int fetched_for(Dwfl_Module *mod, bool debug)
{
	const struct fetch_files *ff = handed ? handed->fetched : NULL;
	const unsigned char *id;
	GElf_Addr vaddr;
	char hexid[2 * BUILD_ID_MAX + 1];
	int len = dwfl_module_build_id(mod, &id, &vaddr);

	if (!ff || len <= 0 || len > BUILD_ID_MAX)
		return -1;
	hex(id, len, hexid, sizeof(hexid));
	for (unsigned i = 0; i < ff->n; i++)
		if (ff->f[i].debug == debug && strcmp(ff->f[i].id, hexid) == 0)
			return dup(handed->fetched_first_fd + (int)i);
	return -1;
}

/*
 * libdwfl's find_elf, when reading the core did not find the module's file by its path already: first the file
 * that was mapped (handed), then the one the fetch step got (handed), then the build-id's in the debug directories,
 * then the path beneath the root (a name of libdwfl's that is not the core's, such as the executable's). Where none
 * is the module's, the reason is left in its user data: gone, not permitted, build-id differs, not an ELF.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	const char *why = NULL, *path_why;
	int i = handed_at(base), fd;

	if (i >= 0) {
		fd = take(mod, dup(handed->first_fd + i), name, file_name, &why);
		if (fd >= 0) {
			note_if_lost(mod, i, name);
			return fd;
		}
	}
	fd = take(mod, fetched_for(mod, false), name, file_name, &why);
	if (fd >= 0)
		return fd;
	fd = dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
	if (fd >= 0 || *elfp)
		return fd;
	fd = name && name[0] == '/' ? open_path(name) : -1;
	path_why = fd < 0 ? open_error(errno) : NULL;
	fd = take(mod, fd, name, file_name, &path_why);
	if (fd >= 0)
		return fd;
	*userdata = (void *)(uintptr_t)(why ? why : path_why ? path_why : "gone");
	return -1;
}

/*
 * libdwfl's find_debuginfo: the debug file the fetch step got (handed), where it is mod's; else libdwfl's own
 * search (the debug directories, .gnu_debuglink).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const char *why = NULL;
	int fd = take(mod, fetched_for(mod, true), "fetched debug info", debuginfo_file_name, &why);

	if (fd >= 0)
		return fd;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file, debuglink_crc,
					    debuginfo_file_name);
}

/* Opens the core with libdwfl: its modules reported, its threads attached. 0 or -EBADMSG. */
static int open_core(struct trace *t, int corefd)
{
	static char path_buf[2 * PATH_MAX + 96];
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
		.find_elf = find_elf,
		.find_debuginfo = find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &debuginfo_path,
	};

	(void) elf_version(EV_CURRENT);
	/* libdwfl's own default, then the kept modules (KeepModules=): .build-id/xx/rest beneath it. */
	debuginfo_path = NULL;
	if (t->debug_dir && snprintf(path_buf, sizeof(path_buf), ":.debug:/usr/lib/debug:%s", t->debug_dir) <
				    (int)sizeof(path_buf))
		debuginfo_path = path_buf;
	/*
	 * Read, not mapped: through a mapping, libdwfl's report of a core pulls most of it into the page cache (390 MiB
	 * of a 650 MiB Python core, measured; 5.7 MiB read this way), the flood coresink's hygiene exists to prevent.
	 */
	t->elf = elf_begin(corefd, ELF_C_READ, NULL);
	if (!t->elf)
		return -EBADMSG;
	t->dwfl = dwfl_begin(&callbacks);
	if (!t->dwfl || dwfl_core_file_report(t->dwfl, t->elf, t->exe_here ? t->exe : NULL) < 0 ||
	    dwfl_report_end(t->dwfl, NULL, NULL) != 0)
		return -EBADMSG;
	return 0;
}

/*
 * Writes the modules and the stack traces of the core in corefd to text, and what it learns of packages to meta.
 * exe (may be NULL) names the executable, as the kernel's NT_FILE note would; with exe_here its path is opened
 * as the executable, otherwise (another root's path) the core's notes are. 0, or -EBADMSG when the core could not
 * be read as one (what was written so far stays). files (may be NULL) are the modules' own files, opened from the
 * crashed process's mappings: a module is read from its own before any path.
 */
int stacktrace_write(int corefd, const char *exe, bool exe_here, const struct trace_files *files,
		     const char *debug_dir, FILE *text, FILE *canon, struct trace_meta *meta)
{
	struct trace t = { .text = text, .canon = canon, .exe = exe, .exe_here = exe_here, .debug_dir = debug_dir,
			   .meta = meta };
	char *json = NULL, *lost = NULL;
	size_t json_len = 0, lost_len = 0;
	int r;

	*meta = (struct trace_meta) { 0 };
	handed = files;
	t.json = open_memstream(&json, &json_len);
	lost_out = open_memstream(&lost, &lost_len);
	if (!t.json || !lost_out) {
		if (t.json)
			(void) fclose(t.json);
		if (lost_out)
			(void) fclose(lost_out);
		lost_out = NULL;
		free(json);
		free(lost);
		return -ENOMEM;
	}
	r = open_core(&t, corefd);
	if (r == 0 && dwfl_getmodules(t.dwfl, module_callback, &t, 0) < 0)
		r = -EBADMSG;
	if (r == 0 && dwfl_core_file_attach(t.dwfl, t.elf) < 0)
		r = -EBADMSG;
	if (r == 0 && dwfl_getthreads(t.dwfl, thread_callback, &t) < 0 && t.threads == 0)
		r = -EBADMSG;
	if (t.left_out > 0)
		fprintf(text, "\n%u more threads left out: the trace is kept within %u KiB\n", t.left_out,
			(unsigned)(TRACE_TEXT_MAX / 1024));
	if (t.packages)
		fputc('}', t.json);
	if (fclose(t.json) == 0 && t.packages)
		meta->package_json = json;
	else
		free(json);
	if (fclose(lost_out) == 0 && lost_len > 0)
		meta->lost = lost;
	else
		free(lost);
	lost_out = NULL;
	if (t.dwfl)
		dwfl_end(t.dwfl);
	if (t.elf)
		elf_end(t.elf);
	return r;
}

/* Whether elf has a full symbol table (.symtab): a stripped binary keeps only .dynsym, its imports and exports. */
static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr mem, *sh = gelf_getshdr(scn, &mem);

		if (sh && sh->sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

/*
 * A module that needs debug info from elsewhere: its file not read ("executable"), or read but with neither a
 * .symtab nor DWARF, here or in the system's debug directories and debug_dir ("debuginfo"). One line each,
 * "KIND BUILD-ID NAME"; a module without a build-id cannot be asked for.
 */
static int needs_callback(Dwfl_Module *module, void **user, const char *name, Dwarf_Addr start, void *arg)
{
	struct trace *t = arg;
	const unsigned char *id;
	GElf_Addr vaddr, bias;
	char build_id[2 * BUILD_ID_MAX + 1], buf[NAME_SHOWN];
	int len = dwfl_module_build_id(module, &id, &vaddr);
	Elf *elf;

	(void) user, (void) start;
	/* The kernel's vDSO is in the core itself; no server has its debug info. */
	if (len <= 0 || len > BUILD_ID_MAX || (name && strncmp(base(name), "linux-vdso", 10) == 0))
		return DWARF_CB_OK;
	hex(id, len, build_id, sizeof(build_id));
	elf = dwfl_module_getelf(module, &bias);
	if (!elf)
		fprintf(t->text, "executable %s %s\n", build_id, shown(base(name ? name : "?"), buf));
	else if (!has_symtab(elf) && !dwfl_module_getdwarf(module, &bias))
		fprintf(t->text, "debuginfo %s %s\n", build_id, shown(base(name ? name : "?"), buf));
	return DWARF_CB_OK;
}

/*
 * Writes to out the modules of the core in corefd that need debug info from elsewhere (needs_callback()), with the
 * same view of files as stacktrace_write(). 0, or -EBADMSG when the core could not be read as one.
 */
int stacktrace_needs(int corefd, const char *exe, bool exe_here, const struct trace_files *files,
		     const char *debug_dir, FILE *out)
{
	struct trace_meta meta = { 0 };
	struct trace t = { .text = out, .exe = exe, .exe_here = exe_here, .debug_dir = debug_dir, .meta = &meta };
	int r;

	handed = files;
	r = open_core(&t, corefd);
	if (r == 0 && dwfl_getmodules(t.dwfl, needs_callback, &t, 0) < 0)
		r = -EBADMSG;
	if (t.dwfl)
		dwfl_end(t.dwfl);
	if (t.elf)
		elf_end(t.elf);
	return r;
}

void trace_meta_free(struct trace_meta *m)
{
	free(m->package_name);
	free(m->package_version);
	free(m->package_json);
	free(m->lost);
	*m = (struct trace_meta) { 0 };
}
