/*
 * signature.c: what identifies a crash's bug, across crashes, restarts, hosts and container roots: the signal and
 * the first meaningful frames of the crashing thread, read from the stack trace's text (stacktrace.c, the format
 * systemd-coredump writes), so that any tool holding the entry's MESSAGE can compute it again. Definition
 * (docs/signatures.md):
 *   frames:  the first thread's frames, in order, from the one after the last frame of the abort, assert,
 *            fortify, C++ terminate and Rust panic machinery (the lists below) and the signal trampoline on top of
 *            the stack (before its first named frame that is none of them); of those, the first SIGNATURE_FRAMES
 *            in a known module, each "MODULE!FUNCTION" where the function is
 *            named, else "MODULE@ID+0xOFFSET" (ID: the module's build-id, else its package's name-version, else
 *            nothing);
 *   text:    "1;SIG<NAME>;" then the frames joined by ';' (version 1);
 *   without a frame: "1;SIG<NAME>;exe:ID" (the executable's build-id, else its file name): weaker, marked so;
 *   hash:    64-bit FNV-1a of the text, 16 lower-case hex digits.
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

/* A frame of the crashing thread: its part of the signature, and what it is. */
struct frame {
	char part[SIGNATURE_TEXT_MAX];
	bool known;       /* in a known module: it may be part of the signature */
	bool named;       /* its function has a name */
	bool machinery;   /* named, and how a program dies, not where */
};

/* "#N  0xPC FUNCTION (MODULE + 0xOFFSET)" into fr; false for a line that is no frame. */
static bool frame_parse(const char *line, const struct modules *ms, struct frame *fr)
{
	/* A longer name is cut, the same way every time. */
	char function[SIGNATURE_TEXT_MAX / 2], module[MODULE_ID_MAX];
	const char *f, *open = strrchr(line, '('), *plus;
	unsigned long long off;

	if (line[0] != '#' || !open || open == line || open[-1] != ' ' || !(f = strstr(line, " 0x")))
		return false;
	f += 3 + strspn(f + 3, "0123456789abcdef");
	f += strspn(f, " ");
	if (f >= open - 1)
		return false;
	(void) snprintf(function, sizeof(function), "%.*s", (int)(open - 1 - f), f);
	plus = strstr(open, " + 0x");
	if (!plus || sscanf(plus, " + 0x%llx)", &off) != 1)
		return false;
	(void) snprintf(module, sizeof(module), "%.*s", (int)(plus - open - 1), open + 1);
	fr->known = strcmp(module, "n/a") != 0 && strncmp(module, "linux-vdso", 10) != 0 &&
		    strncmp(module, "linux-gate", 10) != 0;
	fr->named = strcmp(function, "n/a") != 0;
	fr->machinery = fr->named && is_machinery(function);
	if (strcmp(function, "n/a") != 0)
		(void) snprintf(fr->part, sizeof(fr->part), "%s!%s", module, function);
	else
		(void) snprintf(fr->part, sizeof(fr->part), "%s@%s+0x%llx", module, module_id(ms, module), off);
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
		} else if (in_first && frame_parse(line, ms, &frames[n])) {
			n++;
		}
	}
	return n;
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
 * The signature of a crash by signal sig, from its stack trace's text (NULL or "" when none was made) and its
 * executable's path ("" when unknown).
 */
void signature_make(const char *trace, int sig, const char *exe, struct signature *s)
{
	static struct modules ms;
	static struct frame frames[FRAMES_READ];
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	size_t n, from = 0, nf;
	char id[MODULE_ID_MAX];

	*s = (struct signature) { .from_trace = false };
	ms.n = 0;
	nf = read_trace(trace, &ms, frames);
	/*
	 * The frames on top down to the last of the machinery are how the program died: unnamed ones among them too
	 * (Debian's libstdc++ has no symbol for its terminate handler's frames). The first named frame that is not
	 * the machinery ends them: below it, a name like the machinery's is the program's (Rust's main runs under
	 * std::sys::backtrace::__rust_begin_short_backtrace).
	 */
	for (size_t i = 0; i < nf && (frames[i].machinery || !frames[i].named); i++)
		if (frames[i].machinery)
			from = i + 1;
	n = (size_t)snprintf(s->text, sizeof(s->text), "1;SIG%s", abbrev ? abbrev : "?");
	for (size_t i = from; i < nf && s->frames < SIGNATURE_FRAMES; i++) {
		if (!frames[i].known || n + 1 + strlen(frames[i].part) >= sizeof(s->text))
			continue;
		n += (size_t)snprintf(s->text + n, sizeof(s->text) - n, ";%s", frames[i].part);
		s->frames++;
	}
	s->from_trace = s->frames > 0;
	if (!s->from_trace) {
		exe_id(&ms, exe ? exe : "", id, sizeof(id));
		(void) snprintf(s->text + n, sizeof(s->text) - n, ";exe:%s", id);
	}
	hash(s->text, s->hex);
}
