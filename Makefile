# SPDX-License-Identifier: GPL-2.0
#
# fxtrace top-level Makefile: user targets. Kbuild object lists are in Kbuild
# and kmod/Kbuild.
#
#   make                 module for the running kernel + userspace tools
#   make KDIR=<dir>      module for another kernel build tree
#   make check           every test (host unit tests, VM tests, Perfetto)
#   make help            this list, with more targets

KDIR ?= /lib/modules/$(shell uname -r)/build
BUILDDIR ?=
W ?= 1

.PHONY: all modules userspace vm-userspace check check-host check-vm \
	checkpatch clean help

all: modules userspace

modules:
	@test -d "$(KDIR)" || { \
	  echo "error: no kernel build tree at $(KDIR)"; \
	  echo "  install linux-headers-$$(uname -r), or pass KDIR=/lib/modules/<release>/build"; \
	  echo "  (scripts/fetch-kernel.sh fetches Debian's for the VM tests)"; \
	  exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" W=$(W) modules

userspace:
	$(MAKE) -C collector
	$(MAKE) -C tools
	$(MAKE) -C selftests

# Static binaries for the VM's busybox initramfs (no libc in there).
vm-userspace:
	@test -n "$(BUILDDIR)" || { echo "error: vm-userspace needs BUILDDIR=<dir>"; exit 1; }
	$(MAKE) -C collector BUILDDIR="$(abspath $(BUILDDIR))" LDFLAGS=-static
	$(MAKE) -C selftests BUILDDIR="$(abspath $(BUILDDIR))" \
		LIBFXT_DIR="$(abspath $(BUILDDIR))" LDFLAGS=-static

# The README's test command; these targets are shortcuts into it.
check:
	scripts/run-tests.sh --no-deps

check-host:
	scripts/run-tests.sh --no-deps --host-only

check-vm:
	scripts/run-tests.sh --no-deps --vm-only

checkpatch:
	scripts/checkpatch.sh

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean; fi
	$(MAKE) -C collector clean
	$(MAKE) -C tools clean
	$(MAKE) -C selftests clean

help:
	@sed -n '3,10p' Makefile | sed 's/^# \{0,1\}//'
