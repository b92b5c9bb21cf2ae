# SPDX-License-Identifier: GPL-2.0
#
# fxtrace top-level Makefile: user targets. Kbuild object lists are in Kbuild
# and kmod/Kbuild.
#
#   make                 module for the running kernel + userspace tools
#   make KDIR=<dir>      module for another kernel build tree
#   make programs        the userspace programs alone (fxt-collect, fxt-dump,
#                        fxt-sched, fxt2json), no kernel headers needed: to
#                        read a trace made elsewhere; BUILDDIR=<dir> builds
#                        them there, and make install then takes them there
#   make check           every test (host unit tests, VM tests, Perfetto)
#   make install         fxt-collect, fxt-dump, fxt-sched, fxt2json, their
#                        man pages, the uapi header, and kmod/fxtrace.ko if
#                        built (+ depmod); PREFIX=/usr/local, DESTDIR=
#   make uninstall       remove what make install installed
#   make dkms            module sources + dkms.conf to /usr/src/fxtrace-VERSION;
#                        without DESTDIR, also dkms add/build/install for the
#                        running kernel (or DKMS_KERNEL=<release>); DKMS then
#                        rebuilds it for every kernel installed later
#   make dkms-remove     dkms remove + delete /usr/src/fxtrace-VERSION
#   make clean           remove build products
#   make help            this list

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILDDIR ?=
W ?= 1

# The one place the version is written: dkms.conf and the installed man
# pages get it from here.
VERSION := $(strip $(file <$(CURDIR)/VERSION))

# Installation (GNU conventions; DESTDIR is a staging root for packagers).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
INSTALL ?= install
DEPMOD ?= depmod
DKMS ?= dkms

# Where make programs puts them: collector/ and tools/, or BUILDDIR (an
# absolute path for the sub-makes, which would each resolve a relative one
# in their own directory).
PROGRAM_NAMES := fxt-collect fxt-dump fxt-sched fxt2json
PROGRAMS := $(if $(BUILDDIR),$(addprefix $(abspath $(BUILDDIR))/,$(PROGRAM_NAMES)),\
	collector/fxt-collect collector/fxt-dump tools/fxt-sched tools/fxt2json)
SUB_BUILDDIR := $(if $(BUILDDIR),BUILDDIR="$(abspath $(BUILDDIR))")
MANPAGES := collector/fxt-collect.1 collector/fxt-dump.1 tools/fxt-sched.1 \
	    tools/fxt2json.1
KO := kmod/fxtrace.ko
# The release the module was built for (its vermagic), not the running one:
# after `make KDIR=...` it must land where that kernel looks for it.
KRELEASE ?= $(or $(firstword $(shell PATH="$$PATH:/sbin:/usr/sbin" \
	modinfo -F vermagic $(KO) 2>/dev/null)),$(shell uname -r))
MODDIR = $(DESTDIR)/lib/modules/$(KRELEASE)/extra

# What DKMS needs to build the module, and nothing generated (*.mod.c).
# DKMS_SOURCE_TREE and DKMS (the command, with options) can point both at
# private trees, as scripts/test-install.sh does.
DKMS_SOURCE_TREE ?= /usr/src
# The kernel `make dkms` builds for: the running one unless set.
DKMS_KERNEL ?=
DKMS_SRC = $(DESTDIR)$(DKMS_SOURCE_TREE)/fxtrace-$(VERSION)
DKMS_FILES = Makefile Kbuild VERSION kmod/Kbuild uapi/linux/fxtrace.h \
	$(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h)
# True when this fxtrace version is registered with the system's dkms.
DKMS_REGISTERED = [ -z "$(DESTDIR)" ] && command -v $(firstword $(DKMS)) >/dev/null && \
	[ -n "$$($(DKMS) status -m fxtrace -v $(VERSION) 2>/dev/null)" ]

.PHONY: all modules modules-clean userspace programs vm-userspace check \
	check-host check-vm kernel-style install install-programs install-man \
	install-headers install-module uninstall dkms dkms-remove clean help

all: modules userspace

modules:
	@test -d "$(KDIR)" || { \
	  echo "error: no kernel build tree at $(KDIR)"; \
	  echo "  install linux-headers-$$(uname -r), or pass KDIR=/lib/modules/<release>/build"; \
	  echo "  (scripts/fetch-kernel.sh fetches Debian's for the VM tests)"; \
	  echo "  The programs alone, to read traces, need none: make programs"; \
	  exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" W=$(W) modules

# Only the module's build products: also works in the DKMS copy of the
# sources, which has no collector/ or tools/ (dkms.conf's CLEAN).
# kbuild's clean deletes every *.[aios], *.ko, .*.cmd ... below its M=
# directory, at any depth: given M=$(CURDIR) it also took the fetched
# kernels' modules in .cache/ and the VM builds in build/. So kbuild cleans
# kmod/, where the objects are, and the files the M=$(CURDIR) build writes
# at the top go by name. Without KDIR, kbuild cannot run: kmod/'s outputs
# go by name too (a module built with another KDIR must not survive).
MODULE_OUTPUTS := kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd \
	kmod/modules.order kmod/Module.symvers Module.symvers modules.order \
	.*.cmd .module-common.o
modules-clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)/kmod" clean; fi
	rm -f $(MODULE_OUTPUTS)

userspace:
	$(MAKE) -C collector
	$(MAKE) -C tools
	$(MAKE) -C selftests

# Static binaries for the VM's busybox initramfs (no libc in there).
vm-userspace:
	@test -n "$(BUILDDIR)" || { echo "error: vm-userspace needs BUILDDIR=<dir>"; exit 1; }
	$(MAKE) -C collector BUILDDIR="$(abspath $(BUILDDIR))" LDFLAGS=-static
	$(MAKE) -C selftests BUILDDIR="$(abspath $(BUILDDIR))" \
		LIBFXT_DIR="$(abspath $(BUILDDIR))" LDFLAGS=-static all compat32

# The README's test command; these targets are shortcuts into it.
check:
	scripts/run-tests.sh --no-deps

check-host:
	scripts/run-tests.sh --no-deps --host-only

check-vm:
	scripts/run-tests.sh --no-deps --vm-only

kernel-style:
	scripts/kernel-style.sh

bench:: ; bench/run.sh $(BENCH_ARGS)

# The installed programs only (userspace also builds the selftests).
programs:
	$(MAKE) -C collector $(SUB_BUILDDIR)
	$(MAKE) -C tools $(SUB_BUILDDIR)

install: install-programs install-man install-headers
	@if [ -f $(KO) ]; then $(MAKE) --no-print-directory install-module; else \
	  echo "note: $(KO) is not built, so it was not installed:"; \
	  echo "  make modules [KDIR=...] && make install-module, or make dkms"; fi

install-programs: programs
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)"
	$(INSTALL) -m 0755 $(PROGRAMS) "$(DESTDIR)$(BINDIR)/"

# The .TH source field gets the version: "fxtrace" -> "fxtrace $(VERSION)".
install-man:
	@$(if $(VERSION),:,$(error the VERSION file is missing or empty))
	$(INSTALL) -d "$(DESTDIR)$(MANDIR)/man1"
	@for page in $(MANPAGES); do \
	  dest="$(DESTDIR)$(MANDIR)/man1/$${page##*/}"; echo "  MAN     $$dest"; \
	  sed '/^\.TH /s/ "fxtrace" / "fxtrace $(VERSION)" /' "$$page" >"$$dest" && \
	  chmod 0644 "$$dest" || exit 1; done

install-headers:
	$(INSTALL) -d "$(DESTDIR)$(INCLUDEDIR)/linux"
	$(INSTALL) -m 0644 uapi/linux/fxtrace.h "$(DESTDIR)$(INCLUDEDIR)/linux/"

# depmod only for the live system: a staging root is not a module tree.
install-module:
	@test -f $(KO) || { echo "error: $(KO) is not built: make modules [KDIR=...] first"; exit 1; }
	$(INSTALL) -d "$(MODDIR)"
	$(INSTALL) -m 0644 $(KO) "$(MODDIR)/"
	@if [ -z "$(DESTDIR)" ]; then echo "  DEPMOD  $(KRELEASE)"; $(DEPMOD) -a "$(KRELEASE)"; fi

# The module is removed for every release it was installed for: the path
# lib/modules/*/extra/fxtrace.ko is ours whatever KRELEASE was.
uninstall:
	@for f in $(PROGRAM_NAMES); do rm -fv "$(DESTDIR)$(BINDIR)/$$f"; done
	@for f in $(notdir $(MANPAGES)); do rm -fv "$(DESTDIR)$(MANDIR)/man1/$$f"; done
	@rm -fv "$(DESTDIR)$(INCLUDEDIR)/linux/fxtrace.h"
	@for ko in "$(DESTDIR)"/lib/modules/*/extra/fxtrace.ko; do \
	  [ -f "$$ko" ] || continue; rm -fv "$$ko"; \
	  rel=$${ko#"$(DESTDIR)"/lib/modules/}; rel=$${rel%%/*}; \
	  if [ -z "$(DESTDIR)" ]; then echo "  DEPMOD  $$rel"; $(DEPMOD) -a "$$rel"; fi; \
	done

# DKMS source tree; with no DESTDIR also register, build and install it for
# the running kernel or DKMS_KERNEL (dkms needs its headers:
# linux-headers-<release>).
# A version already registered is removed first, so re-running picks up
# changed sources.
dkms:
	@$(if $(VERSION),:,$(error the VERSION file is missing or empty))
	@if $(DKMS_REGISTERED); then $(DKMS) remove -m fxtrace -v $(VERSION) --all; fi
	rm -rf "$(DKMS_SRC)"
	@for f in $(DKMS_FILES); do \
	  $(INSTALL) -D -m 0644 "$$f" "$(DKMS_SRC)/$$f" || exit 1; done
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >"$(DKMS_SRC)/dkms.conf"
	@if [ -n "$(DESTDIR)" ]; then \
	  echo "note: DESTDIR is set, so dkms was not run; on the target:"; \
	  echo "  dkms install -m fxtrace -v $(VERSION)"; \
	elif ! command -v $(firstword $(DKMS)) >/dev/null; then \
	  echo "note: no dkms command (apt-get install dkms), so nothing was registered;"; \
	  echo "  then: dkms install -m fxtrace -v $(VERSION)"; \
	else set -e; \
	  $(DKMS) add -m fxtrace -v $(VERSION); \
	  $(DKMS) build -m fxtrace -v $(VERSION) $(DKMS_KERNEL:%=-k %); \
	  $(DKMS) install -m fxtrace -v $(VERSION) $(DKMS_KERNEL:%=-k %); fi

dkms-remove:
	@$(if $(VERSION),:,$(error the VERSION file is missing or empty))
	@if $(DKMS_REGISTERED); then $(DKMS) remove -m fxtrace -v $(VERSION) --all; fi
	rm -rf "$(DKMS_SRC)"

clean: modules-clean
	$(MAKE) -C collector clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean
	$(MAKE) -C fuzz clean
	$(MAKE) -C bench clean

help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))
