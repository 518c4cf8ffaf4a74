/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evidence.h - who refused an event: the records the LSMs emit while a
 * scenario runs, read back and matched to the scenario's event.
 *
 * A blocked cell is only evidence when it says where the event stopped:
 *   watch:<who>  the watch was refused (who: watchpol, selinux, smack, or
 *                kernel when no LSM recorded a denial: the kernel's own
 *                permission check, which runs before the LSM hooks)
 *   post:<who>   the event was posted and refused (watchpol, smack)
 *   not-posted   no post of the event reached the LSM hook at all
 * Sources: watchpol's decision log (every watch and post decision it made,
 * including "allow" under model none), and audit records (SELinux AVC and
 * Smack denials), read by becoming the audit daemon for the window.
 */
#ifndef WL_EVIDENCE_H
#define WL_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>

#define WL_EVIDENCE_TEXT 32768

struct wl_evidence {
	/*
	 * Set before wl_evidence_begin(): the window holds no consumer on
	 * watchpol's log (it is read once, at wl_evidence_end(), and closed
	 * again), so watchpol takes its no-consumer path and logs only the
	 * posts it refuses, besides every watch decision.
	 */
	bool quiet;
	int audit;			/* NETLINK_AUDIT socket (we are auditd), or -1 */
	unsigned int fences;		/* audit fence markers sent */
	size_t loglen, auditlen;
	char log[WL_EVIDENCE_TEXT];	/* watchpol decision records, in order */
	char audit_text[WL_EVIDENCE_TEXT / 4];	/* LSM denial records */
};

/*
 * Open the window: forget older watchpol records and register as the audit
 * daemon (a kernel without audit leaves ev->audit at -1).  0 or -1.
 */
int wl_evidence_begin(struct wl_evidence *ev);

/* Add the records emitted since the last call to the window. */
void wl_evidence_take(struct wl_evidence *ev);

/* Close the window: stop being the audit daemon. */
void wl_evidence_end(struct wl_evidence *ev);

/*
 * The audit side alone, for a reader that follows the records (wl policy
 * audit): become the audit daemon without touching watchpol's log (0, or
 * -1; ev->audit stays -1 on a kernel without audit), then add what
 * arrived since the last call to ev->audit_text.  wl_evidence_end() ends it.
 */
int wl_audit_begin(struct wl_evidence *ev);
void wl_audit_take(struct wl_evidence *ev);

/*
 * The parties a record must name to count for a scenario: W, the
 * identities the watch and its posts are judged on (first the party that
 * set the watch, the only one a watch hook's record may name; then the
 * watcher, whose queue a setter used, for posts), by uid and, in a labelled
 * profile, label as the records print it (an SELinux context, a Smack
 * label; "" compares no label); and the watch hook of the object
 * ("watch_key", "watch_mount", "watch_sb", "watch_devices").
 */
#define WL_EVIDENCE_LABEL 80
struct wl_evidence_parties {
	const char *hook;
	unsigned int nw;
	unsigned int w_uid[2];
	char w_label[2][WL_EVIDENCE_LABEL];
};

/*
 * Where a blocked event stopped, as "STEP:WHO", "post:WHO" or "not-posted",
 * written to buf.  @step names what the watcher did before the action
 * ("watch", or "read" for a control row) and @step_err is the errno that
 * refused it (0: it was done); @type is watchpol's name for the watch type
 * ("key", "mount", "sb", "block", "usb") and @subtype the record's subtype.
 * With @w, only records that name W (and, for a refused watch, the object's
 * watch hook) count: a watch is "STEP:kernel" only when no LSM recorded a
 * decision on it, and one watchpol allowed that still failed with no other
 * LSM's denial is a foreign LSM's in a bring-your-own-LSM boot
 * (wl_byo_lsm()), unexplained in any other.  @w NULL counts every record
 * of the step (a C suite's own window, with one watch in it).
 * Returns false (buf explains) when the records contradict "blocked": the
 * event was posted and every LSM allowed it.
 */
bool wl_evidence_blocked(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			 const char *step, int step_err, const char *type, unsigned int subtype,
			 char *buf, size_t len);

/*
 * Who posted the event to W: the t_uid of each of watchpol's post records
 * of @type/@subtype that names W (a uid, or "kernel"), distinct values
 * joined by ',' in buf ("" when there is none).  Returns the number of
 * such records.
 */
unsigned int wl_evidence_posters(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
				 const char *type, unsigned int subtype, char *buf, size_t len);

/*
 * What the model in force said of each post of @type/@subtype to W,
 * enforced or not (the records' "verdict"): the number of allows and of
 * denials.  Under enforce 0 it is the model's shadow beside the LSMs that
 * really decide.
 */
void wl_evidence_verdicts(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			  const char *type, unsigned int subtype, unsigned int *allow,
			  unsigned int *deny);

/*
 * The value of KEY in one line of watchpol's decision log ("seq=7
 * hook=post_notification type=key ..."), copied to out (cut to len).
 * False if the line has no such key (seq, the first, is not looked up).
 */
bool wl_evidence_field(const char *line, const char *key, char *out, size_t len);

/* watchpol's name for a WATCH_TYPE_* value ("other" if unknown). */
const char *wl_evidence_type_name(unsigned int watch_type);

#endif /* WL_EVIDENCE_H */
