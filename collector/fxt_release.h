/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fxt_release.h - the fxtrace release that --version shows.
 *
 * FXT_RELEASE is the top-level VERSION file, the one place it is written:
 * collector/Makefile and tools/Makefile pass it to the objects that print
 * it (only those are rebuilt when it changes). A build without them (the
 * fuzz targets include fxt_dump.c) gets "unknown", not an error.
 */
#ifndef FXT_RELEASE_H
#define FXT_RELEASE_H

#ifndef FXT_RELEASE
#define FXT_RELEASE	"unknown"
#endif

#endif /* FXT_RELEASE_H */
