/* SPDX-License-Identifier: GPL-2.0 */
/* ktap.h - KTAP output with one write() per line, safe across fork(). */
#ifndef WL_KTAP_H
#define WL_KTAP_H

/* Indentation for the current nesting level (4 spaces per level). */
void ktap_set_depth(unsigned int depth);
void ktap_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
