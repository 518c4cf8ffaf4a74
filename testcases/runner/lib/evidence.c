// SPDX-License-Identifier: GPL-2.0
/*
 * evidence.c - who refused an event (see evidence.h).
 *
 * Audit: the window registers its process as the audit daemon
 * (AUDIT_SET pid), so the kernel unicasts every record to it instead of
 * printing it (rate-limited) on the console.  Audit stays disabled: LSM
 * denials are logged all the same, and no task gets a syscall audit
 * context.  kauditd sends records in order, so a user record of our own
 * (AUDIT_USER_AVC, the one user type accepted while audit is disabled)
 * is a fence: once it comes back, every record emitted before it is here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/watch_queue.h>

#include "evidence.h"
#include "watchpol_util.h"
#include "wl.h"

#define AUDIT_FENCE_TEXT "watchlab-evidence-fence="
#define AUDIT_WAIT_MS 2000
#define AUDIT_MSG_MAX 8970	/* libaudit's MAX_AUDIT_MESSAGE_LENGTH */

struct audit_msg {
	struct nlmsghdr nh;
	char data[AUDIT_MSG_MAX];
};

static int audit_send(int fd, unsigned int type, unsigned int seq,
		      const void *data, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct audit_msg m;

	memset(&m, 0, sizeof(m));
	m.nh.nlmsg_len = NLMSG_LENGTH(len);
	m.nh.nlmsg_type = type;
	m.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.nh.nlmsg_seq = seq;
	memcpy(NLMSG_DATA(&m.nh), data, len);
	if (sendto(fd, &m, m.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/*
 * Keep an LSM denial record (SELinux AVC or Smack) or a watchpol record in
 * the window.
 */
static void keep_record(struct wl_evidence *ev, const char *text, size_t len)
{
	size_t room = sizeof(ev->audit_text) - 1 - ev->auditlen;

	if ((!memmem(text, len, "denied", 6) && !memmem(text, len, "lsm=watchpol", 12)) ||
	    len + 1 > room)
		return;
	memcpy(ev->audit_text + ev->auditlen, text, len);
	ev->auditlen += len;
	ev->audit_text[ev->auditlen++] = '\n';
	ev->audit_text[ev->auditlen] = '\0';
}

/*
 * Read records until the ack of @seq (ack) or our fence @seq came back
 * (!ack), keeping denials on the way.  0, or a negative errno.
 */
static int audit_read_until(struct wl_evidence *ev, unsigned int seq, bool ack)
{
	char fence[64];
	struct audit_msg m;

	snprintf(fence, sizeof(fence), AUDIT_FENCE_TEXT "%u'", seq);
	for (;;) {
		struct pollfd p = { .fd = ev->audit, .events = POLLIN };
		struct nlmsghdr *nh = &m.nh;
		unsigned int len;
		ssize_t n;

		if (poll(&p, 1, AUDIT_WAIT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(ev->audit, &m, sizeof(m) - 1, 0);
		if (n < 0)
			return -errno;
		if (n > NLMSG_HDRLEN && nh->nlmsg_type != NLMSG_ERROR) {
			/*
			 * A record from kauditd: one per datagram, and its
			 * nlmsg_len leaves out the header (as auditd expects),
			 * so the datagram's length says how long the text is.
			 */
			const char *text = NLMSG_DATA(nh);
			size_t tlen = strnlen(text, n - NLMSG_HDRLEN);

			if (!ack && nh->nlmsg_type == AUDIT_USER_AVC &&
			    memmem(text, tlen, fence, strlen(fence)))
				return 0;
			/*
			 * LSM denials, and watchpol's own policy changes
			 * (lsm=watchpol in a MAC_POLICY_LOAD, MAC_STATUS or
			 * MAC_CONFIG_CHANGE record; suite_audit reads them).
			 * Only SELinux's and Smack's denial texts name who
			 * refused a cell; other records in the window are not
			 * read as refusals.
			 */
			if (nh->nlmsg_type == AUDIT_AVC ||
			    ((nh->nlmsg_type == AUDIT_MAC_POLICY_LOAD ||
			      nh->nlmsg_type == AUDIT_MAC_STATUS ||
			      nh->nlmsg_type == AUDIT_MAC_CONFIG_CHANGE) &&
			     memmem(text, tlen, "lsm=watchpol", 12)))
				keep_record(ev, text, tlen);
			continue;
		}
		for (len = n; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (ack && nh->nlmsg_seq == seq)
					return e->error;
				if (!ack && nh->nlmsg_seq == seq && e->error)
					return e->error;
			}
		}
	}
}

static int audit_set_pid(struct wl_evidence *ev, pid_t pid)
{
	struct audit_status s;
	int err;

	memset(&s, 0, sizeof(s));
	s.mask = AUDIT_STATUS_PID | (pid ? AUDIT_STATUS_BACKLOG_LIMIT : 0);
	s.pid = pid;
	s.backlog_limit = 8192;
	err = audit_send(ev->audit, AUDIT_SET, ++ev->fences, &s, sizeof(s));
	return err ? err : audit_read_until(ev, ev->fences, true);
}

static void take_audit(struct wl_evidence *ev)
{
	char text[64];
	int len, err;

	if (ev->audit < 0)
		return;
	len = snprintf(text, sizeof(text), AUDIT_FENCE_TEXT "%u", ++ev->fences);
	err = audit_send(ev->audit, AUDIT_USER_AVC, ev->fences, text, len + 1);
	if (!err)
		err = audit_read_until(ev, ev->fences, false);
	if (err) {
		wl_diag("evidence: audit fence: %s; no audit records from here on",
			strerror(-err));
		close(ev->audit);
		ev->audit = -1;
	}
}

/*
 * Append watchpol's new decision records (reading consumes them), keeping
 * the newest whole lines when they outgrow the window: the event is near
 * the end.
 */
static void take_log(struct wl_evidence *ev)
{
	char *text = wp_drain_log();
	size_t n, room;
	const char *from;

	if (!text)
		return;
	n = strlen(text);
	from = text;
	if (n >= sizeof(ev->log) / 2) {
		from = strchr(text + n - sizeof(ev->log) / 2, '\n');
		from = from ? from + 1 : text + n;
		n = strlen(from);
	}
	room = sizeof(ev->log) - 1 - ev->loglen;
	if (n > room) {
		const char *cut = strchr(ev->log + n - room, '\n');
		size_t keep = cut ? ev->loglen - (cut + 1 - ev->log) : 0;

		memmove(ev->log, ev->log + ev->loglen - keep, keep);
		ev->loglen = keep;
	}
	memcpy(ev->log + ev->loglen, from, n);
	ev->loglen += n;
	ev->log[ev->loglen] = '\0';
	free(text);
}

int wl_audit_begin(struct wl_evidence *ev)
{
	int err;

	ev->fences = 0;
	ev->loglen = ev->auditlen = 0;
	ev->log[0] = ev->audit_text[0] = '\0';
	ev->audit = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (ev->audit < 0 && errno != EPROTONOSUPPORT) {
		wl_diag("evidence: audit socket: %s", strerror(errno));
		return -1;
	}
	if (ev->audit >= 0) {
		err = audit_set_pid(ev, getpid());
		if (err) {
			wl_diag("evidence: become the audit daemon: %s", strerror(-err));
			close(ev->audit);
			ev->audit = -1;
			return -1;
		}
	}
	return 0;
}

void wl_audit_take(struct wl_evidence *ev)
{
	take_audit(ev);
}

int wl_evidence_begin(struct wl_evidence *ev)
{
	if (wl_audit_begin(ev))
		return -1;
	/* What came before the window is not this scenario's. */
	take_log(ev);
	take_audit(ev);
	ev->loglen = ev->auditlen = 0;
	ev->log[0] = ev->audit_text[0] = '\0';
	if (ev->quiet)
		wp_log_detach();
	return 0;
}

void wl_evidence_take(struct wl_evidence *ev)
{
	if (!ev->quiet)
		take_log(ev);
	take_audit(ev);
}

void wl_evidence_end(struct wl_evidence *ev)
{
	if (ev->quiet) {
		/* What watchpol logged with nobody reading: read once, detach. */
		take_log(ev);
		wp_log_detach();
	}
	if (ev->audit < 0)
		return;
	audit_set_pid(ev, 0);
	close(ev->audit);
	ev->audit = -1;
}

const char *wl_evidence_type_name(unsigned int watch_type)
{
	switch (watch_type) {
	case WATCH_TYPE_KEY_NOTIFY:
		return "key";
	case WATCH_TYPE_MOUNT_NOTIFY:
		return "mount";
	case WATCH_TYPE_SB_NOTIFY:
		return "sb";
	case WATCH_TYPE_BLOCK_NOTIFY:
		return "block";
	case WATCH_TYPE_USB_NOTIFY:
		return "usb";
	}
	return "other";
}

bool wl_evidence_field(const char *line, const char *key, char *out, size_t len)
{
	char pat[32];
	const char *p;
	size_t n;

	/* Every key but the first (seq=) follows a blank. */
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	n = strcspn(p, " \n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

/* Copy the line at *p to out (cut to len) and move *p past it; false at the end. */
static bool next_line(const char **p, char *out, size_t len)
{
	size_t n = strcspn(*p, "\n");

	if (!**p)
		return false;
	snprintf(out, len, "%.*s", (int)n, *p);
	*p += n + ((*p)[n] == '\n');
	return true;
}

struct log_tally {
	unsigned int allowed, refused;
};

/*
 * Whether a decision line names one of W's identities: for a watch, the
 * one that set it (the first); for a post, any.
 */
static bool names_w(const char *l, const struct wl_evidence_parties *w, bool post)
{
	char uid[16], label[WL_EVIDENCE_LABEL];

	if (!w)
		return true;
	if (!wl_evidence_field(l, "w_uid", uid, sizeof(uid)) ||
	    !wl_evidence_field(l, "w_label", label, sizeof(label)))
		return false;
	for (unsigned int i = 0; i < (post ? w->nw : 1); i++)
		if (strtoul(uid, NULL, 10) == w->w_uid[i] &&
		    (!w->w_label[i][0] || strcmp(label, w->w_label[i]) == 0))
			return true;
	return false;
}

/*
 * Count watchpol's decisions on W's watch (hook @hook, or any watch hook
 * without @w) or, for posts, on posts of @type/@subtype to W, by the
 * record's field @key: "result" (what was done) or "verdict" (what the
 * model in force said, done or not).
 */
static struct log_tally tally_by(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
				 bool post, const char *type, unsigned int subtype, const char *key)
{
	struct log_tally t = { 0 };
	char sub[12];

	snprintf(sub, sizeof(sub), "%u", subtype);
	for (const char *p = ev->log; ; ) {
		char l[1024], hook[32], ty[16], st[12], result[8];

		if (!next_line(&p, l, sizeof(l)))
			break;
		if (!wl_evidence_field(l, "hook", hook, sizeof(hook)) ||
		    !wl_evidence_field(l, key, result, sizeof(result)))
			continue;
		if (post != (strcmp(hook, "post_notification") == 0))
			continue;
		if (!post && w && strcmp(hook, w->hook))
			continue;
		if (post && (!wl_evidence_field(l, "type", ty, sizeof(ty)) || strcmp(ty, type) ||
			     !wl_evidence_field(l, "subtype", st, sizeof(st)) || strcmp(st, sub)))
			continue;
		if (!names_w(l, w, post))
			continue;
		if (strcmp(result, "deny") == 0)
			t.refused++;
		else
			t.allowed++;
	}
	return t;
}

static struct log_tally tally(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			      bool post, const char *type, unsigned int subtype)
{
	return tally_by(ev, w, post, type, subtype, "result");
}

void wl_evidence_verdicts(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			  const char *type, unsigned int subtype, unsigned int *allow,
			  unsigned int *deny)
{
	struct log_tally t = tally_by(ev, w, true, type, subtype, "verdict");

	*allow = t.allowed;
	*deny = t.refused;
}

unsigned int wl_evidence_posters(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
				 const char *type, unsigned int subtype, char *buf, size_t len)
{
	unsigned int n = 0;
	char sub[12];

	buf[0] = '\0';
	snprintf(sub, sizeof(sub), "%u", subtype);
	for (const char *p = ev->log; ; ) {
		char l[1024], hook[32], ty[16], st[12], t_uid[16], item[20], have[256];

		if (!next_line(&p, l, sizeof(l)))
			break;
		if (!wl_evidence_field(l, "hook", hook, sizeof(hook)) ||
		    strcmp(hook, "post_notification") ||
		    !wl_evidence_field(l, "type", ty, sizeof(ty)) || strcmp(ty, type) ||
		    !wl_evidence_field(l, "subtype", st, sizeof(st)) || strcmp(st, sub) ||
		    !wl_evidence_field(l, "t_uid", t_uid, sizeof(t_uid)) || !names_w(l, w, true))
			continue;
		n++;
		snprintf(have, sizeof(have), ",%s,", buf);
		snprintf(item, sizeof(item), ",%s,", t_uid);
		if (!strstr(have, item))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
				 t_uid);
	}
	return n;
}

/*
 * Whether an audit line names W where it should: SELinux's denial of W's
 * watch or read has W as scontext; Smack's has W as the subject of a
 * watch or read, the object of a post (T writes to W).
 */
static bool audit_names_w(const char *l, const struct wl_evidence_parties *w, bool post,
			  bool smack)
{
	char pat[WL_EVIDENCE_LABEL + 16];

	if (!w)
		return true;
	for (unsigned int i = 0; i < (post ? w->nw : 1); i++) {
		if (!w->w_label[i][0])
			return true;	/* an unlabelled profile has no such records */
		if (smack)
			snprintf(pat, sizeof(pat), " %s=\"%s\"", post ? "object" : "subject",
				 w->w_label[i]);
		else
			snprintf(pat, sizeof(pat), " scontext=%s ", w->w_label[i]);
		if (strstr(l, pat))
			return true;
	}
	return false;
}

/* Which major LSM recorded a denial of W's watch or read, or of a post to W. */
static const char *lsm_denial(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			      bool post)
{
	for (const char *p = ev->audit_text; ; ) {
		char l[1024];

		if (!next_line(&p, l, sizeof(l)))
			break;
		if (strstr(l, "lsm=SMACK") && strstr(l, "action=denied")) {
			if (post == (strstr(l, "fn=smack_post_notification") != NULL) &&
			    audit_names_w(l, w, post, true))
				return "smack";
		} else if (!post && strstr(l, "avc:  denied") && audit_names_w(l, w, post, false)) {
			return "selinux";
		}
	}
	return NULL;
}

bool wl_evidence_blocked(const struct wl_evidence *ev, const struct wl_evidence_parties *w,
			 const char *step, int step_err, const char *type, unsigned int subtype,
			 char *buf, size_t len)
{
	struct log_tally t;
	const char *who;

	if (step_err) {
		t = tally(ev, w, false, NULL, 0);
		who = t.refused ? "watchpol" : lsm_denial(ev, w, false);
		if (who || (!t.allowed && !t.refused)) {
			/*
			 * No LSM recorded a decision on this watch: the kernel's
			 * own check refused it before the hooks ran.
			 */
			snprintf(buf, len, "%s:%s", step, who ? who : "kernel");
			return true;
		}
		/*
		 * watchpol allowed this watch and no other LSM recorded a
		 * denial.  A foreign LSM keeps no record the lab can read, but
		 * it runs after watchpol: the refusal is its own.
		 */
		if (wl_byo_lsm()) {
			snprintf(buf, len, "%s:%s", step, wl_byo_lsm());
			return true;
		}
		snprintf(buf, len, "unexplained: the %s was refused (%s) after watchpol "
			 "allowed it, and no LSM recorded a denial", step, strerror(step_err));
		return false;
	}
	t = tally(ev, w, true, type, subtype);
	if (t.refused) {
		snprintf(buf, len, "post:watchpol");
		return true;
	}
	who = lsm_denial(ev, w, true);
	if (who) {
		snprintf(buf, len, "post:%s", who);
		return true;
	}
	if (!t.allowed) {
		snprintf(buf, len, "not-posted");
		return true;
	}
	/* Posted, allowed by watchpol, not delivered: the next hook refused it. */
	if (wl_byo_lsm()) {
		snprintf(buf, len, "post:%s", wl_byo_lsm());
		return true;
	}
	snprintf(buf, len, "unexplained: %u post(s) of %s/%u allowed by every LSM, none delivered",
		 t.allowed, type, subtype);
	return false;
}
