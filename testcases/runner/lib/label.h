/* SPDX-License-Identifier: GPL-2.0 */
/*
 * label.h - switch a process to one of watchlab's abstract labels.
 *
 * The scenarios name labels abstractly (watcher, triggerer, bystander,
 * object); /etc/watchlab/labels (policy/labels) maps each name to an SELinux
 * context and a Smack label.  Which one applies depends on the boot's
 * profile: selinux, smack, or plain (no major LSM: switching is a no-op).
 *
 * Switch the label before dropping uids: under Smack changing one's own
 * label needs CAP_MAC_ADMIN.
 */
#ifndef WL_LABEL_H
#define WL_LABEL_H

#define WL_LABELS_FILE "/etc/watchlab/labels"

/*
 * The label abstract_name stands for in this boot's profile, copied to buf:
 * an SELinux context, a Smack label, or "" in the plain profile.
 * Returns 0, or -1 with errno ENOENT when the name is not in the labels file
 * (EINVAL: the line is malformed; other errors: reading the file), with a
 * diagnostic.
 */
int wl_label_lookup(const char *abstract_name, char *buf, size_t len);

/*
 * Switch the calling process to abstract_name's label now: setcon() under
 * SELinux, /proc/self/attr/smack/current under Smack, nothing (but the name
 * must exist) in plain.  Returns 0, or -1 with errno set and a diagnostic.
 */
int wl_label_enter(const char *abstract_name);

/*
 * Make the calling process's next execve() run with abstract_name's label:
 * setexeccon() under SELinux (an exec transition; the current label is
 * unchanged until then).  Smack has no exec context and keeps a task's
 * label across exec (unless the program has SMACK64EXEC), so under Smack
 * this switches the label now, like wl_label_enter().  Nothing in plain.
 * Returns 0, or -1 with errno set and a diagnostic.
 */
int wl_label_exec(const char *abstract_name);

/*
 * The calling process's current label, read from /proc/self/attr/current
 * (no trailing newline or NUL).  Returns its length, or -1 with errno set
 * (EINVAL in the plain profile: no LSM provides one).
 */
int wl_label_current(char *buf, size_t len);

/*
 * Switch the calling process to the Smack label (not an abstract name) now;
 * needs CAP_MAC_ADMIN.  0 or -1 (diagnosed).
 */
int wl_smack_enter(const char *label);

/* Load the Smack rule "subj obj access" (until reboot); 0 or -1 (diagnosed). */
#define WL_SMACK_LOAD2 "/sys/fs/smackfs/load2"
int wl_smack_rule(const char *subj, const char *obj, const char *access);

#endif /* WL_LABEL_H */
