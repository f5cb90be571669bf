# coresink: a kernel.core_pattern handler. Plain make; see README.md.
.DELETE_ON_ERROR:

VERSION = 0.1
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
LIBEXECDIR ?= $(PREFIX)/libexec
BINDIR ?= $(PREFIX)/bin
MANPREFIX ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/coresink
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The notifiers and collect hooks shipped disabled (not executable, and not in NotifyDirectory= or
# CollectDirectory=): docs/notify.md, docs/collect.md.
EXAMPLESDIR ?= $(PREFIX)/share/doc/coresink/examples
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# Where 'make enable' puts the drop-in, and where it keeps the values it replaced.
SYSCTLDIR ?= /etc/sysctl.d
STATEFILE ?= /var/lib/coresink.previous
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-qual -Wwrite-strings -Wmissing-prototypes
# Tests build tables of string literals and argv arrays; the two const warnings only get in the way there.
TEST_WARN = -Wall -Wextra -Wshadow -Wpointer-arith -Wmissing-prototypes -Wno-override-init
CPPFLAGS += -D_GNU_SOURCE -DSYSCONFDIR=\"$(SYSCONFDIR)\" -DVERSION=\"$(VERSION)\" $(PLANT)
# Empty but for make check-powercut's test build, which plants the bug the test must catch.
PLANT =
# Evaluated when a recipe runs, after the dependency step has installed the -dev packages.
# libdebuginfod is not linked: the fetch step alone opens it (src/lib/sandbox/debuginfod.c), its header is enough.
# Nor is libsqlite3: podman 5's database is read with it, loaded where there is one (src/lib/intake/podmandb.c).
# libsodium (SHA-256) is linked in whole from Debian's libsodium.a: the package is built once and installed on Debian
# 12, 13 and unstable, where libsodium's soname moved (libsodium23 to libsodium26); the few functions used add no RSS.
DEP_LIBS = $$(pkg-config --libs libsystemd libdw libelf libacl libzstd libseccomp json-c) $$(pkg-config --variable=libdir libsodium)/libsodium.a
CHECK_CFLAGS = $$(pkg-config --cflags check)
CHECK_LIBS = $$(pkg-config --libs check sqlite3)

B = build
SAN = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CC = clang
FUZZ_FLAGS = -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZERS = $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_SECONDS = 30

# The tree shows the programs: src/lib is the handler's library (libcoresink.a), src/coresink the handler's main,
# src/bench coresink-bench, tests/helpers what the end-to-end tests crash and measure with.
LIB_SRC = $(wildcard src/lib/*/*.c)
LIB_OBJ = $(LIB_SRC:src/lib/%.c=$(B)/obj/lib/%.o)
LIB_HDR = $(wildcard src/lib/*.h src/lib/*/*.h)
# Each stage of src/lib is a folder with one header beside it (src/lib/write.h for src/lib/write/), the only thing the
# other stages, the programs and the tests include of it: scripts/check-layout.sh checks that every arrow runs down.
LIB_INC = -Isrc/lib
# coresink-bench: its main, the pipe benchmark (pipe/), the crash benchmark (crash/), and what both and the tests
# share (shared/: the clocks, the producer of core-like input, the crasher's pattern, the medians and charts).
BENCH_SRC = $(wildcard src/bench/*.c src/bench/*/*.c)
BENCH_OBJ = $(BENCH_SRC:src/bench/%.c=$(B)/obj/bench/%.o)
BENCH_INC = -Isrc/bench/pipe -Isrc/bench/crash -Isrc/bench/shared
# One Check suite per tests/check_*.c, one fuzzer per tests/fuzz/fuzz_*.c: found, not listed.
UNITS = $(sort $(patsubst tests/check_%.c,%,$(wildcard tests/check_*.c)))
UNIT_BIN = $(UNITS:%=$(B)/check_%)
HELPERS = $(B)/crasher $(B)/patcheck $(B)/freewatch $(B)/deadsock $(B)/corecraft $(B)/sockpeer $(B)/withpidfd \
	$(B)/stopuid $(B)/badserver $(B)/fetchprobe $(B)/workers $(B)/replaylog $(B)/nosuid

all: $(B)/coresink $(B)/coresinkctl $(B)/coresink-bench $(B)/60-coresink.conf $(B)/coresink.service $(B)/coresink.socket \
	$(B)/coresink-upload.service $(B)/coresink-net@.service

# The drop-in's pattern comes from the handler itself, for the path it is installed at; regenerated on every run,
# since LIBEXECDIR may differ between 'make' and 'make install'.
$(B)/60-coresink.conf: systemd/60-coresink.conf.in $(B)/coresink FORCE
	pattern=$$($(B)/coresink --handler $(LIBEXECDIR)/coresink --core-pattern) && \
		sed "s#@CORE_PATTERN@#$$pattern#" systemd/60-coresink.conf.in > $@

# The units run the handler where it is installed; regenerated on every run, as above.
$(B)/coresink.service $(B)/coresink.socket $(B)/coresink-upload.service $(B)/coresink-net@.service: $(B)/%: systemd/%.in FORCE
	@mkdir -p $(B)
	sed "s#@LIBEXECDIR@#$(LIBEXECDIR)#" $< > $@

$(B)/.deps:
	@mkdir -p $(B)
	sh scripts/install-deps.sh
	@touch $@

$(B)/.deps-test:
	@mkdir -p $(B)
	sh scripts/install-deps.sh --test
	@touch $@

$(B)/obj/lib/%.o: src/lib/%.c $(LIB_HDR) | $(B)/.deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DLIBEXECDIR=\"$(LIBEXECDIR)\" -DBINDIR=\"$(BINDIR)\" $(CFLAGS) $(WARN) $(LIB_INC) -c -o $@ $<

$(B)/obj/coresink/%.o: src/coresink/%.c src/coresink/*.h $(LIB_HDR) | $(B)/.deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_INC) -c -o $@ $<

$(B)/obj/coresinkctl/%.o: src/coresinkctl/%.c src/coresinkctl/*.h $(LIB_HDR) | $(B)/.deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_INC) -c -o $@ $<

$(B)/obj/bench/%.o: src/bench/%.c src/bench/*/*.h $(LIB_HDR) | $(B)/.deps
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DLIBEXECDIR=\"$(LIBEXECDIR)\" $(CFLAGS) $(WARN) $(LIB_INC) $(BENCH_INC) -c -o $@ $<

$(B)/libcoresink.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $(LIB_OBJ)

# Each program is its own files and the library: what both read back (the entry reader, the core finder, a crash
# shown) is the library's admin stage; coresinkctl's verbs are its own files (the handler's --summary, --retrace and
# --check-config hand over to it).
MAIN_OBJ = $(patsubst src/coresink/%.c,$(B)/obj/coresink/%.o,$(wildcard src/coresink/*.c))

$(B)/coresink: $(MAIN_OBJ) $(B)/libcoresink.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(B)/libcoresink.a $(DEP_LIBS)

CTL_OBJ = $(patsubst src/coresinkctl/%.c,$(B)/obj/coresinkctl/%.o,$(wildcard src/coresinkctl/*.c))

$(B)/coresinkctl: $(CTL_OBJ) $(B)/libcoresink.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CTL_OBJ) $(B)/libcoresink.a $(DEP_LIBS)

$(B)/coresink-bench: $(BENCH_OBJ) $(B)/libcoresink.a
	$(CC) $(CFLAGS) $(LDFLAGS) -pthread -o $@ $(BENCH_OBJ) $(B)/libcoresink.a $(DEP_LIBS)

# A quick default run of the benchmark, on pipe input, in /var/tmp.
bench: all
	$(B)/coresink-bench --size 256M --runs 3

# The suites link the production objects; the engine's is fed by the bench's producer.
$(B)/check_%: tests/check_%.c tests/unit.h $(B)/libcoresink.a $(B)/obj/bench/shared/producer.o | $(B)/.deps-test
	$(CC) $(CPPFLAGS) $(CFLAGS) $(TEST_WARN) $(CHECK_CFLAGS) $(LIB_INC) -Isrc/bench/shared -o $@ $< \
		$(B)/obj/bench/shared/producer.o $(B)/libcoresink.a $(DEP_LIBS) $(CHECK_LIBS)

$(B)/crasher: tests/helpers/crasher.c tests/helpers/idle.h src/bench/shared/pattern.h
	$(CC) $(CPPFLAGS) -O0 -g $(WARN) -Isrc/bench/shared -pthread -o $@ tests/helpers/crasher.c

$(B)/replaylog: tests/helpers/replaylog.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/replaylog.c

$(B)/workers: tests/helpers/workers.c tests/helpers/idle.h src/bench/shared/pattern.h
	$(CC) $(CPPFLAGS) -O0 -g $(WARN) -Isrc/bench/shared -pthread -o $@ tests/helpers/workers.c

$(B)/patcheck: tests/helpers/patcheck.c src/bench/shared/pattern.h
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -Isrc/bench/shared -o $@ tests/helpers/patcheck.c

$(B)/freewatch: tests/helpers/freewatch.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/freewatch.c

$(B)/corecraft: tests/helpers/corecraft.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/corecraft.c

$(B)/sockpeer: tests/helpers/sockpeer.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/sockpeer.c

# The fetch step's stand-in: confine_fetch() of the library, then what it can reach (check_fetch).
$(B)/fetchprobe: tests/helpers/fetchprobe.c $(B)/libcoresink.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LIB_INC) $(LDFLAGS) -o $@ tests/helpers/fetchprobe.c $(B)/libcoresink.a \
		$(DEP_LIBS)

$(B)/badserver: tests/helpers/badserver.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/badserver.c

$(B)/nosuid: tests/helpers/nosuid.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/nosuid.c $$(pkg-config --libs libseccomp)

$(B)/stopuid: tests/helpers/stopuid.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/stopuid.c

$(B)/withpidfd: tests/helpers/withpidfd.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/withpidfd.c

$(B)/deadsock: tests/helpers/deadsock.c
	$(CC) $(CPPFLAGS) -O2 -g $(WARN) -o $@ tests/helpers/deadsock.c

# The fast tier, for every change (minutes): every include running down the stages (scripts/check-layout.sh), the
# Check suites plain and under ASan+UBSan, then the end-to-end tests marked "# tier: fast" against the kernel (with
# the ASan+UBSan handler too): every feature once.
check: $(B)/.deps-test
	sh scripts/check-layout.sh
	$(MAKE) all $(UNIT_BIN) $(HELPERS)
	sh tests/run-units.sh -j 2 $(B) $(UNITS)
	$(MAKE) B=$(B)/asan CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" asan-units
	bash tests/e2e/run.sh $(B) fast

# Everything (CI runs it): the same suites, and under valgrind, a short run of each fuzzer, every end-to-end test
# (the fault and kill sweeps' short lists, storms, file systems, containers, piuparts, the releases under nspawn),
# the VM tier and the power cuts (make check-vm, whose unstable boot records them): in three lanes, the VMs and the
# static checks beside the rest (tests/check-all.sh says how).
check-all: $(B)/.deps-test $(B)/.deps-vm
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/check-all.sh $(B)

# Static analysis (make check-all runs it): clang's analyzer (scan-build) over everything the checks build (the
# programs, the Check suites, the helpers) and cppcheck over every C file; any report fails. A false positive is
# answered in the code, with a comment that says why, never by turning a check off (docs/tests.md).
CPPCHECK_FLAGS = --quiet --inline-suppr --error-exitcode=1 --std=c11 -D_GNU_SOURCE -Isrc/lib \
	--enable=warning,portability,performance --suppress=missingIncludeSystem

analyze: $(B)/.deps-test
	rm -rf $(B)/analyze
	scan-build -o $(B)/analyze/reports --status-bugs $(MAKE) -s -j2 B=$(B)/analyze test-programs
	cppcheck -j 2 $(CPPCHECK_FLAGS) src tests

test-programs: all $(UNIT_BIN) $(HELPERS)

asan-units: $(UNIT_BIN) $(B)/coresink $(B)/coresinkctl $(B)/fetchprobe
	sh tests/run-units.sh -j 2 $(B) $(UNITS)

# libFuzzer harnesses (tests/fuzz), each against its own instrumented objects. 'make fuzz' runs them long.
FUZZ_OBJ = $(LIB_SRC:src/lib/%.c=$(B)/fuzz/%.o)
FUZZ_BIN = $(FUZZERS:%=$(B)/fuzz/fuzz_%)
# Made by a chain of rules, but worth keeping between runs. (Not a bare .SECONDARY: that would stop FORCE forcing.)
.SECONDARY: $(FUZZ_OBJ)

$(B)/fuzz/%.o: src/lib/%.c $(LIB_HDR) | $(B)/.deps-test
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(LIB_INC) -fsanitize=fuzzer-no-link -c -o $@ $<

# coresinkctl's summary groups what fuzz_entry forges: its one file of a program's a fuzzer takes.
FUZZ_CTL_OBJ = $(B)/fuzz/ctl/summary.o
.SECONDARY: $(FUZZ_CTL_OBJ)

$(B)/fuzz/ctl/%.o: src/coresinkctl/%.c src/coresinkctl/*.h $(LIB_HDR) | $(B)/.deps-test
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) $(LIB_INC) -fsanitize=fuzzer-no-link -c -o $@ $<

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ) $(FUZZ_CTL_OBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $(LIB_INC) -Isrc/coresinkctl -o $@ $< $(FUZZ_OBJ) \
		$(FUZZ_CTL_OBJ) $(DEP_LIBS)

# Two at a time: each is one thread, and the machine has two CPUs (FUZZ_JOBS=).
FUZZ_JOBS = 2
fuzz-run: $(FUZZ_BIN)
	sh tests/fuzz/run.sh $(B) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZERS)

fuzz:
	$(MAKE) fuzz-run FUZZ_SECONDS=600

# Every syscall of the capture failed in turn with each errno it can return, at its 1st, 2nd, last and every later
# call, in pipe mode, in socket mode and compressing (the zstd copy's calls); then the handler (pipe mode) and the
# crash's process (socket mode) killed before each step of a capture (make check runs a short list of each); the
# tables go to $(B)/faults.md,
# $(B)/faults-socket.md, $(B)/faults-compress.md, $(B)/kills.md and $(B)/kills-socket.md.
fault-sweep: all $(HELPERS)
	FAULTS=all FAULTS_TABLE=$(CURDIR)/$(B)/faults.md CORESINK_TEST_NAME=fault-sweep bash tests/e2e/t-faults.sh
	FAULTS=all FAULTS_TABLE=$(CURDIR)/$(B)/faults-socket.md CORESINK_TEST_NAME=fault-sweep-socket \
		bash tests/e2e/t-faults-socket.sh
	FAULTS=all FAULTS_TABLE=$(CURDIR)/$(B)/faults-compress.md CORESINK_TEST_NAME=fault-sweep-compress \
		bash tests/e2e/t-faults-compress.sh
	FAULTS=all FAULTS_TABLE=$(CURDIR)/$(B)/kills.md CORESINK_TEST_NAME=kill-sweep bash tests/e2e/t-kills.sh
	FAULTS=all FAULTS_TABLE=$(CURDIR)/$(B)/kills-socket.md CORESINK_TEST_NAME=kill-sweep-socket \
		bash tests/e2e/t-kills-socket.sh

# Without DESTDIR, also the analysis and upload users (systemd/coresink.sysusers); a staged install leaves it to the package's
# postinst (systemd-sysusers), as systemd-coredump's does.
install: $(B)/.deps
	$(MAKE) all
	install -D -m 0755 $(B)/coresink $(DESTDIR)$(LIBEXECDIR)/coresink
	install -D -m 0755 scripts/upload-rclone.sh $(DESTDIR)$(LIBEXECDIR)/coresink-upload-rclone
	install -D -m 0755 $(B)/coresink-bench $(DESTDIR)$(BINDIR)/coresink-bench
	install -D -m 0755 $(B)/coresinkctl $(DESTDIR)$(BINDIR)/coresinkctl
	install -D -m 0644 completion/coresinkctl $(DESTDIR)$(BASHCOMPDIR)/coresinkctl
	install -D -m 0644 $(B)/60-coresink.conf $(DESTDIR)$(DATADIR)/60-coresink.conf
	install -D -m 0755 scripts/activate.sh $(DESTDIR)$(DATADIR)/activate.sh
	install -D -m 0644 examples/notify.d/webhook $(DESTDIR)$(EXAMPLESDIR)/notify.d/webhook
	install -D -m 0644 examples/notify.d/mail $(DESTDIR)$(EXAMPLESDIR)/notify.d/mail
	install -D -m 0644 examples/collect.d/unit-log $(DESTDIR)$(EXAMPLESDIR)/collect.d/unit-log
	install -D -m 0644 systemd/coresink.tmpfiles $(DESTDIR)$(TMPFILESDIR)/coresink.conf
	install -D -m 0644 systemd/coresink.sysusers $(DESTDIR)$(SYSUSERSDIR)/coresink.conf
	install -D -m 0644 $(B)/coresink.socket $(DESTDIR)$(SYSTEMDUNITDIR)/coresink.socket
	install -D -m 0644 $(B)/coresink.service $(DESTDIR)$(SYSTEMDUNITDIR)/coresink.service
	install -D -m 0644 $(B)/coresink-upload.service $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-upload.service
	install -D -m 0644 systemd/coresink-net.socket $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-net.socket
	install -D -m 0644 $(B)/coresink-net@.service $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-net@.service
	install -D -m 0644 systemd/coresink-upload.timer $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-upload.timer
	install -D -m 0644 systemd/coresink-coredumpd.conf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredumpd.service.d/coresink.conf
	install -D -m 0644 systemd/coresink-coredumpd.conf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredump-register.service.d/coresink.conf
	install -D -m 0644 man/coresink.8 $(DESTDIR)$(MANPREFIX)/man8/coresink.8
	install -D -m 0644 man/coresink.conf.5 $(DESTDIR)$(MANPREFIX)/man5/coresink.conf.5
	install -D -m 0644 man/coresink-bench.1 $(DESTDIR)$(MANPREFIX)/man1/coresink-bench.1
	install -D -m 0644 man/coresinkctl.1 $(DESTDIR)$(MANPREFIX)/man1/coresinkctl.1
	test -e $(DESTDIR)$(SYSCONFDIR)/coresink.conf || \
		install -D -m 0644 conf/coresink.conf $(DESTDIR)$(SYSCONFDIR)/coresink.conf
	if [ -z "$(DESTDIR)" ]; then sh scripts/add-user.sh systemd/coresink.sysusers; fi

# Removes what install put there. An edited config stays; an enabled handler is not pulled from under the kernel.
uninstall:
	@if [ -z "$(DESTDIR)" ] && [ -e $(SYSCTLDIR)/60-coresink.conf ]; then \
		echo "coresink is enabled: run 'make disable' first" >&2; exit 1; fi
	rm -f $(DESTDIR)$(LIBEXECDIR)/coresink $(DESTDIR)$(LIBEXECDIR)/coresink-upload-rclone \
		$(DESTDIR)$(BINDIR)/coresink-bench $(DESTDIR)$(DATADIR)/60-coresink.conf $(DESTDIR)$(DATADIR)/activate.sh \
		$(DESTDIR)$(BINDIR)/coresinkctl $(DESTDIR)$(BASHCOMPDIR)/coresinkctl $(DESTDIR)$(MANPREFIX)/man1/coresinkctl.1 \
		$(DESTDIR)$(TMPFILESDIR)/coresink.conf $(DESTDIR)$(SYSUSERSDIR)/coresink.conf \
		$(DESTDIR)$(MANPREFIX)/man8/coresink.8 \
		$(DESTDIR)$(SYSTEMDUNITDIR)/coresink.socket $(DESTDIR)$(SYSTEMDUNITDIR)/coresink.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/coresink-upload.service $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-upload.timer \
		$(DESTDIR)$(SYSTEMDUNITDIR)/coresink-net.socket $(DESTDIR)$(SYSTEMDUNITDIR)/coresink-net@.service \
		$(DESTDIR)$(MANPREFIX)/man5/coresink.conf.5 $(DESTDIR)$(MANPREFIX)/man1/coresink-bench.1 \
		$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredumpd.service.d/coresink.conf \
		$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredump-register.service.d/coresink.conf \
		$(DESTDIR)$(EXAMPLESDIR)/notify.d/webhook $(DESTDIR)$(EXAMPLESDIR)/notify.d/mail \
		$(DESTDIR)$(EXAMPLESDIR)/collect.d/unit-log
	-rmdir $(DESTDIR)$(EXAMPLESDIR)/notify.d $(DESTDIR)$(EXAMPLESDIR)/collect.d $(DESTDIR)$(EXAMPLESDIR) $(DESTDIR)$(PREFIX)/share/doc/coresink 2>/dev/null
	-rmdir $(DESTDIR)$(DATADIR) $(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredumpd.service.d \
		$(DESTDIR)$(SYSTEMDUNITDIR)/systemd-coredump-register.service.d 2>/dev/null
	if cmp -s conf/coresink.conf $(DESTDIR)$(SYSCONFDIR)/coresink.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/coresink.conf; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/coresink.conf ]; then \
		echo "keeping the edited $(DESTDIR)$(SYSCONFDIR)/coresink.conf"; fi

# Live settings, only on request: the kernel's core handler, now and at boot, and back exactly as it was.
enable:
	sh scripts/activate.sh enable $(DATADIR)/60-coresink.conf $(SYSCTLDIR) $(STATEFILE)

disable:
	sh scripts/activate.sh disable $(DATADIR)/60-coresink.conf $(SYSCTLDIR) $(STATEFILE)

# The Debian package (debian/), built by dpkg-buildpackage from a copy of the tree without build/ and .git, into
# $(B)/deb/coresink_$(VERSION)_ARCH.deb, then checked by lintian: an error fails the build; a warning is shown (make
# check's t-package fails on it: each is fixed or overridden with its reason in debian/coresink.lintian-overrides).
deb: $(B)/.deps-deb
	rm -rf $(B)/deb && mkdir -p $(B)/deb/coresink-$(VERSION)
	tar -c --exclude=./build --exclude=./.git --exclude=./debian/build --exclude='./$(B)' . | \
		tar -x -C $(B)/deb/coresink-$(VERSION)
	cd $(B)/deb/coresink-$(VERSION) && dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || { tail -n 40 ../build.log; exit 1; }
	lintian --fail-on error --info $(B)/deb/coresink_$(VERSION)_*.deb

$(B)/.deps-vm:
	@mkdir -p $(B)
	sh scripts/install-deps.sh --vm
	@touch $@

# The VM tier: Debian 12's, 13's and unstable's own kernels and systemd, booted under qemu with this tree's package
# (tests/vm/run.sh), unstable's last boot recording a short list of the power cuts (each file system and mode once,
# the encrypted path in each mode, the planted bug), replayed here; the tables go to $(B)/vm.md and $(B)/powercut.md.
check-vm: $(B)/.deps-vm $(B)/.deps-test
	$(MAKE) all $(HELPERS)
	$(MAKE) B=$(B)/planted PLANT=-DCORESINK_TEST_PLANT_LINK_BEFORE_SYNC $(B)/planted/coresink
	bash tests/vm/run.sh $(B)

# Power cuts (tests/vm/run.sh --powercut): real crashes stored through a dm-log-writes target on ext4, xfs and btrfs
# each in both modes (check-vm and check-all record a short list of them), in a VM of Debian unstable (this host's
# kernel has no device mapper), each log replayed here at every flush, FUA and mark and checked; and a test build
# that names a core before its data is synced, which the check must catch.
check-powercut: $(B)/.deps-vm $(B)/.deps-test
	$(MAKE) all $(HELPERS)
	$(MAKE) B=$(B)/planted PLANT=-DCORESINK_TEST_PLANT_LINK_BEFORE_SYNC $(B)/planted/coresink
	bash tests/vm/run.sh $(B) --powercut

# systemd-coredumpd against coresink's socket mode on unstable's own kernel (tests/vm/run.sh --bench), under TCG here:
# the tables go to $(B)/vm/out/bench-*.txt, their numbers to docs/benchmark.md.
bench-vm: $(B)/.deps-vm $(B)/.deps-test
	$(MAKE) all
	bash tests/vm/run.sh $(B) --bench

$(B)/.deps-deb:
	@mkdir -p $(B)
	sh scripts/install-deps.sh --deb
	@touch $@

clean:
	rm -rf $(B)

FORCE:

.PHONY: all analyze test-programs bench bench-vm check check-all check-vm check-powercut deb asan-units fuzz fuzz-run fault-sweep install uninstall enable disable clean
