/*
 * signature.c: what identifies a crash's bug, across crashes, restarts, hosts, container roots and whatever debug
 * info was at hand: the signal and the first meaningful frames of the crashing thread, read from the stack trace's
 * text (stacktrace.c, the format systemd-coredump writes) and the frames' canonical names stacktrace.c gives beside
 * it. Definition (docs/signatures.md, version 2):
 *   names:   a frame's function is its module's exported function at the address (.dynsym: a global name before
 *            a weak one, then the shortest, then the first in byte order), else the name the trace shows without a
 *            symbol version, else none;
 *   frames:  the first thread's frames, in order, from the one after the last frame of the abort, assert,
 *            fortify, C++ terminate and Rust panic machinery (the lists below) and the signal trampoline on top of
 *            the stack (before its first named frame that is none of them), and after the unnamed frames of the
 *            last machinery frame's module right below it (its internals); of those, the first SIGNATURE_FRAMES
 *            in a known module, each "MODULE!FUNCTION" where the function is named, else "MODULE@ID+0xOFFSET" (ID:
 *            the module's build-id, else its package's name-version, else nothing);
 *   text:    "2;SIG<NAME>;" then the frames joined by ';';
 *   without a frame: "2;SIG<NAME>;exe:ID" (the executable's build-id, else its file name): weaker, marked so;
 *   hash:    64-bit FNV-1a of the text, 16 lower-case hex digits.
 * The keys are the same made from what every copy of the modules holds: names from .dynsym only, every frame
 * "MODULE@ID+0xOFFSET", text "k2;SIG<NAME>;..."; none where a frame's module has no ID. Debug info fetched or
 * installed later names more frames and so changes the signature, never the keys: --summary and
 * MaxCoresPerSignature= join two signatures of one set of keys (sigstore.c, summary.c).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "signature.h"

#define MODULES_MAX 512
#define MODULE_ID_MAX 160
#define FRAMES_READ 64   /* stacktrace.c writes no more a thread */

/* Frames that are how a program dies, not where: a signature that held them would hold every abort() alike. */
static const char *const machinery[] = {
	"raise", "__GI_raise", "abort", "__GI_abort", "pthread_kill", "__pthread_kill", "__GI___pthread_kill",
	"__pthread_kill_implementation", "__pthread_kill_internal", "__assert_fail", "__assert_fail_base",
	"__GI___assert_fail", "__assert_perror_fail", "__libc_message", "__libc_message_impl", "__libc_fatal",
	"__fortify_fail", "__chk_fail", "__stack_chk_fail", "malloc_printerr", "__malloc_assert", "__restore_rt",
	"__cxa_throw", "__cxa_rethrow", "__cxa_call_terminate", "__gxx_personality_v0", "_Unwind_RaiseException",
	"_Unwind_Resume", "_ZSt9terminatev", "_ZSt10unexpectedv", "rust_panic", "rust_begin_unwind",
};

/* The same by prefix: C++'s terminate handlers, Rust's panic and abort paths (mangled, and as demangled). */
static const char *const machinery_prefix[] = {
	"_ZN10__cxxabiv1", "_ZN9__gnu_cxx27__verbose_terminate_handler", "__cxxabiv1::", "std::terminate",
	"__gnu_cxx::__verbose_terminate_handler", "_ZN3std9panicking", "_ZN4core9panicking", "_ZN3std3sys",
	"_ZN3std7process5abort", "_ZN4core6result13unwrap_failed", "_ZN4core6option13unwrap_failed",
	"_ZN4core6option13expect_failed", "std::panicking::", "core::panicking::", "std::sys::", "std::process::abort",
	"core::result::unwrap_failed", "core::option::", "__rust_", "_ZN11panic_abort", "panic_abort::",
	"_ZN3std2rt12__rust_abort", "_ZN4core6option15Option$LT$T$GT$", "_ZN4core6result19Result$LT$T$C$E$GT$",
	"core::result::Result<",
};

struct module {
	char name[MODULE_ID_MAX];
	char id[MODULE_ID_MAX];   /* build-id, else package name-version, else "" */
};

struct modules {
	struct module m[MODULES_MAX];
	size_t n;
};

/* Rust's v0 mangling (_R...) names each path segment by its length: these are in the machinery's names. */
static const char *const machinery_v0[] = {
	"9panicking", "7___rustc", "___rust_", "11panic_abort", "3std3sys", "3std7process5abort", "13unwrap_failed",
	"13expect_failed", "4core6option", "4core6result",
};

static bool is_machinery(const char *function)
{
	if (strncmp(function, "_R", 2) == 0)
		for (size_t i = 0; i < ELEMENTSOF(machinery_v0); i++)
			if (strstr(function, machinery_v0[i]))
				return true;
	for (size_t i = 0; i < ELEMENTSOF(machinery); i++)
		if (strcmp(function, machinery[i]) == 0)
			return true;
	for (size_t i = 0; i < ELEMENTSOF(machinery_prefix); i++)
		if (strncmp(function, machinery_prefix[i], strlen(machinery_prefix[i])) == 0)
			return true;
	return false;
}

/* One line of text (up to its newline) into buf, NUL-terminated and cut to len; returns the next line. */
static const char *line_of(const char *text, char *buf, size_t len)
{
	size_t n = strcspn(text, "\n");

	(void) snprintf(buf, len, "%.*s", (int)n, text);
	return text + n + (text[n] == '\n');
}

/* "Module NAME with build-id ID" / "Module NAME from TYPE PKG-VERSION.ARCH" / "Module NAME without build-id". */
static void module_of(const char *line, struct modules *ms)
{
	struct module *m;
	const char *rest, *at;
	size_t n;

	if (strncmp(line, "Module ", 7) != 0 || ms->n >= MODULES_MAX)
		return;
	line += 7;
	n = strcspn(line, " ");
	m = &ms->m[ms->n++];
	(void) snprintf(m->name, sizeof(m->name), "%.*s", (int)n, line);
	rest = line + n;
	m->id[0] = '\0';
	if ((at = strstr(rest, " with build-id ")))
		(void) snprintf(m->id, sizeof(m->id), "%s", at + strlen(" with build-id "));
	else if (strncmp(rest, " from ", 6) == 0 && (at = strchr(rest + 6, ' ')))
		(void) snprintf(m->id, sizeof(m->id), "%s", at + 1);
}

static const char *module_id(const struct modules *ms, const char *name)
{
	for (size_t i = 0; i < ms->n; i++)
		if (strcmp(ms->m[i].name, name) == 0)
			return ms->m[i].id;
	return "";
}

/* A frame of the crashing thread, as the trace shows it and by its canonical names. */
struct frame {
	char module[MODULE_ID_MAX];
	char name[SIGNATURE_TEXT_MAX / 2];   /* canonical: exported, else shown; "" for none */
	bool exported;                       /* name is from .dynsym: every copy of the module has it */
	unsigned long long off;              /* from the module's start */
	unsigned index;                      /* N of "#N" */
	bool known;                          /* in a known module: it may be part of the signature */
};

/* "#N  0xPC FUNCTION (MODULE + 0xOFFSET)" into fr, the name as shown; false for a line that is no frame. */
static bool frame_parse(const char *line, struct frame *fr)
{
	const char *f, *open = strrchr(line, '('), *plus;
	size_t n;

	if (line[0] != '#' || sscanf(line, "#%u", &fr->index) != 1 || !open || open == line || open[-1] != ' ' ||
	    !(f = strstr(line, " 0x")))
		return false;
	f += 3 + strspn(f + 3, "0123456789abcdef");
	f += strspn(f, " ");
	if (f >= open - 1)
		return false;
	plus = strstr(open, " + 0x");
	if (!plus || sscanf(plus, " + 0x%llx)", &fr->off) != 1)
		return false;
	(void) snprintf(fr->module, sizeof(fr->module), "%.*s", (int)(plus - open - 1), open + 1);
	fr->known = strcmp(fr->module, "n/a") != 0 && strncmp(fr->module, "linux-vdso", 10) != 0 &&
		    strncmp(fr->module, "linux-gate", 10) != 0;
	/* A longer name is cut, the same way every time; a version suffix is no part of it. */
	n = (size_t)(open - 1 - f);
	if (n == 3 && strncmp(f, "n/a", 3) == 0)
		n = 0;
	fr->exported = false;
	(void) snprintf(fr->name, sizeof(fr->name), "%.*s", (int)n, f);
	fr->name[strcspn(fr->name, "@")] = '\0';
	return true;
}

/* The module lines, then the first thread's frames (up to FRAMES_READ) into frames; returns how many. */
static size_t read_trace(const char *trace, struct modules *ms, struct frame *frames)
{
	char line[SIGNATURE_TEXT_MAX];
	bool in_first = false;
	size_t n = 0;

	for (const char *p = trace ? trace : ""; *p && n < FRAMES_READ;) {
		p = line_of(p, line, sizeof(line));
		module_of(line, ms);
		if (strncmp(line, "Stack trace of thread ", 22) == 0) {
			/* The crashing thread is the first: the kernel writes its notes first. */
			if (in_first)
				break;
			in_first = true;
		} else if (in_first && line[0] == '\0') {
			break;
		} else if (in_first && frame_parse(line, &frames[n])) {
			n++;
		}
	}
	return n;
}

/*
 * The canonical names ("N d NAME": exported, "N s NAME": as shown; stacktrace.c) over the names shown. Without
 * them (a trace from elsewhere), the names shown stand, none known to be exported.
 */
static void read_canon(const char *canon, struct frame *frames, size_t nf)
{
	char line[SIGNATURE_TEXT_MAX], name[SIGNATURE_TEXT_MAX / 2];
	unsigned index;
	char from;

	if (!canon)
		return;
	for (size_t i = 0; i < nf; i++)
		frames[i].name[0] = '\0';
	for (const char *p = canon; *p;) {
		p = line_of(p, line, sizeof(line));
		if (sscanf(line, "%u %c %511[^\n]", &index, &from, name) != 3 || (from != 'd' && from != 's'))
			continue;
		for (size_t i = 0; i < nf; i++)
			if (frames[i].index == index) {
				memcpy(frames[i].name, name, sizeof(name));
				frames[i].exported = from == 'd';
			}
	}
}

/* Whether frame fr is named in this view: by any name, or (exported_only) by one every copy of its module has. */
static bool named(const struct frame *fr, bool exported_only)
{
	return fr->name[0] && (!exported_only || fr->exported);
}

/*
 * Where the frames that say where the program failed begin. The frames on top down to the last of the machinery
 * are how it died: unnamed ones among them too (Debian's libstdc++ has no symbol for its terminate handler's
 * frames). The first named frame that is not the machinery ends them: below it, a name like the machinery's is the
 * program's (Rust's main runs under std::sys::backtrace::__rust_begin_short_backtrace). Right below the last of
 * it, the unnamed frames of its own module are its internals (glibc's malloc_printerr under abort, without libc's
 * debug file): a signature of them would be every such abort's.
 */
static size_t first_frame(const struct frame *frames, size_t nf, bool exported_only)
{
	size_t from = 0;

	for (size_t i = 0; i < nf && (!named(&frames[i], exported_only) || is_machinery(frames[i].name)); i++)
		if (named(&frames[i], exported_only))
			from = i + 1;
	while (from > 0 && from < nf && !named(&frames[from], exported_only) &&
	       strcmp(frames[from].module, frames[from - 1].module) == 0)
		from++;
	return from;
}

/* Frame fr's part of a text: its name in this view, else its module's id and offset ("" when keys need one). */
static bool part_of(const struct frame *fr, const struct modules *ms, bool keys, char *buf, size_t len)
{
	const char *id = module_id(ms, fr->module);

	if (!keys && named(fr, false))
		return snprintf(buf, len, "%s!%s", fr->module, fr->name), true;
	(void) snprintf(buf, len, "%s@%s+0x%llx", fr->module, id, fr->off);
	return !keys || id[0];
}

/*
 * The text of the frames from first_frame() on into text after its prefix of n bytes: the first SIGNATURE_FRAMES in
 * a known module. Returns how many; for keys, 0 where one has no module id.
 */
static unsigned frames_text(const struct frame *frames, size_t nf, const struct modules *ms, bool keys, char *text,
			    size_t len, size_t n)
{
	char part[SIGNATURE_TEXT_MAX];
	unsigned count = 0;

	for (size_t i = first_frame(frames, nf, keys); i < nf && count < SIGNATURE_FRAMES; i++) {
		if (!frames[i].known)
			continue;
		if (!part_of(&frames[i], ms, keys, part, sizeof(part)))
			return 0;
		if (n + 1 + strlen(part) >= len)
			continue;
		n += (size_t)snprintf(text + n, len - n, ";%s", part);
		count++;
	}
	return count;
}

static void hash(const char *text, char hex[SIGNATURE_HEX + 1])
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	(void) snprintf(hex, SIGNATURE_HEX + 1, "%016llx", (unsigned long long)h);
}

/* The executable's id for the weaker signature: its module's build-id in the trace, else its file name. */
static void exe_id(const struct modules *ms, const char *exe, char *buf, size_t len)
{
	const char *name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	const char *id = module_id(ms, name);

	(void) snprintf(buf, len, "%s", id[0] ? id : name[0] ? name : "unknown");
}

/*
 * The signature of a crash by signal sig, from its stack trace's text (NULL or "" when none was made), the frames'
 * canonical names (stacktrace.c; NULL: the names shown) and its executable's path ("" when unknown).
 */
void signature_make(const char *trace, const char *canon, int sig, const char *exe, struct signature *s)
{
	static struct modules ms;
	static struct frame frames[FRAMES_READ];
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	size_t n, nf;
	char id[MODULE_ID_MAX];

	*s = (struct signature) { .from_trace = false };
	ms.n = 0;
	nf = read_trace(trace, &ms, frames);
	read_canon(canon, frames, nf);
	n = (size_t)snprintf(s->text, sizeof(s->text), "2;SIG%s", abbrev ? abbrev : "?");
	s->frames = frames_text(frames, nf, &ms, false, s->text, sizeof(s->text), n);
	s->from_trace = s->frames > 0;
	if (!s->from_trace) {
		exe_id(&ms, exe ? exe : "", id, sizeof(id));
		(void) snprintf(s->text + n, sizeof(s->text) - n, ";exe:%s", id);
	}
	hash(s->text, s->hex);
	/* Keys only from a trace with canonical names: without them no name is known to be in every copy. */
	n = (size_t)snprintf(s->keys_text, sizeof(s->keys_text), "k2;SIG%s", abbrev ? abbrev : "?");
	if (canon && s->from_trace && frames_text(frames, nf, &ms, true, s->keys_text, sizeof(s->keys_text), n) > 0)
		hash(s->keys_text, s->keys);
	else
		s->keys_text[0] = '\0';
}
