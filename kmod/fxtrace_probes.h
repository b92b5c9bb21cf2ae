/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_probes.h - attaching the scheduler probes
 */
#ifndef FXTRACE_PROBES_H
#define FXTRACE_PROBES_H

#include <linux/compiler_types.h>

struct fxtrace_ring;

int fxtrace_probes_init(void);
int fxtrace_probes_attach(struct fxtrace_ring __percpu *rings);
void fxtrace_probes_detach(struct fxtrace_ring __percpu *rings);

#endif /* FXTRACE_PROBES_H */
