// SPDX-License-Identifier: GPL-2.0
/*
 * scenario_parse.c - read testcases/scenarios/ *.scn (format in
 * testcases/README.md).  A malformed file is rejected whole with
 * "file:line: reason"; nothing from it is kept.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include "scenario.h"

#define MAX_TOKENS 24
#define LINE_MAX_LEN 512

struct parser {
	const char *path;
	unsigned int line;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	int n = snprintf(p->err, p->errlen, "%s:%u: ", p->path, p->line);
	va_list ap;

	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Names: lower-case letters, digits and '-', starting with a letter. */
static bool valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n >= max || !islower((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

static int parse_uint(struct parser *p, const char *what, const char *s,
		      unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || *out > max)
		return fail(p, "%s: '%s' is not a number up to %lu", what, s, max);
	return 0;
}

static const struct {
	const char *name;
	unsigned int cap;
} cap_names[] = {
	{ "kill", CAP_KILL }, { "sys_admin", CAP_SYS_ADMIN },
	{ "setuid", CAP_SETUID }, { "setgid", CAP_SETGID },
	{ "dac_override", CAP_DAC_OVERRIDE }, { "mac_admin", CAP_MAC_ADMIN },
};

static int parse_caps(struct parser *p, char *list, uint64_t *caps)
{
	for (char *c = strtok(list, ","); c; c = strtok(NULL, ",")) {
		size_t i;

		for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++)
			if (strcmp(cap_names[i].name, c) == 0)
				break;
		if (i == sizeof(cap_names) / sizeof(cap_names[0]))
			return fail(p, "unknown capability '%s'", c);
		*caps |= SCN_CAP(cap_names[i].cap);
	}
	return 0;
}

static int parse_groups(struct parser *p, char *list, struct scn_party *q)
{
	for (char *g = strtok(list, ","); g; g = strtok(NULL, ",")) {
		unsigned long v;

		if (q->ngroups == SCN_MAX_GROUPS)
			return fail(p, "more than %d groups", SCN_MAX_GROUPS);
		if (parse_uint(p, "groups", g, 65535, &v))
			return -1;
		q->groups[q->ngroups++] = v;
	}
	return 0;
}

/* "uid=N euid=N suid=N gid=N groups=A,B label=L caps=C,D userns mntns" or "kernel". */
static int parse_party(struct parser *p, const char *role, char **tok, int ntok,
		       struct scn_party *q, bool kernel_ok)
{
	bool have_uid = false, have_euid = false, have_suid = false, have_gid = false;
	unsigned long v;

	if (q->set)
		return fail(p, "%s given twice", role);
	memset(q, 0, sizeof(*q));
	q->set = true;
	if (ntok == 1 && strcmp(tok[0], "kernel") == 0) {
		if (!kernel_ok)
			return fail(p, "%s cannot be the kernel", role);
		q->kernel = true;
		return 0;
	}
	for (int i = 0; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		char *val = eq ? eq + 1 : NULL;

		if (eq)
			*eq = '\0';
		if (!val && strcmp(tok[i], "userns") == 0) {
			q->userns = true;
		} else if (!val && strcmp(tok[i], "mntns") == 0) {
			q->mntns = true;
		} else if (!val) {
			return fail(p, "%s: '%s' is not KEY=VALUE, userns or mntns", role, tok[i]);
		} else if (strcmp(tok[i], "uid") == 0) {
			if (parse_uint(p, "uid", val, 65535, &v))
				return -1;
			q->uid = v;
			have_uid = true;
		} else if (strcmp(tok[i], "euid") == 0) {
			if (parse_uint(p, "euid", val, 65535, &v))
				return -1;
			q->euid = v;
			have_euid = true;
		} else if (strcmp(tok[i], "suid") == 0) {
			if (parse_uint(p, "suid", val, 65535, &v))
				return -1;
			q->suid = v;
			have_suid = true;
		} else if (strcmp(tok[i], "gid") == 0) {
			if (parse_uint(p, "gid", val, 65535, &v))
				return -1;
			q->gid = v;
			have_gid = true;
		} else if (strcmp(tok[i], "groups") == 0) {
			if (parse_groups(p, val, q))
				return -1;
		} else if (strcmp(tok[i], "label") == 0) {
			if (!valid_name(val, sizeof(q->label)))
				return fail(p, "%s: bad label name '%s'", role, val);
			strcpy(q->label, val);
		} else if (strcmp(tok[i], "caps") == 0) {
			if (parse_caps(p, val, &q->caps))
				return -1;
		} else {
			return fail(p, "%s: unknown attribute '%s'", role, tok[i]);
		}
	}
	if (!have_uid)
		return fail(p, "%s: uid= is required", role);
	if (!have_euid)
		q->euid = q->uid;
	if (!have_suid)
		q->suid = q->euid;
	if (!have_gid)
		q->gid = q->uid;
	return 0;
}

int scn_party_parse(const char *role, char **tok, int ntok, struct scn_party *q,
		    char *err, size_t errlen)
{
	struct parser p = { .path = "party", .line = 1, .err = err, .errlen = errlen };

	memset(q, 0, sizeof(*q));
	if (parse_party(&p, role, tok, ntok, q, false)) {
		/* No file here: the reason alone, without "party:1: ". */
		size_t skip = strlen("party:1: ");

		memmove(err, err + skip, strlen(err + skip) + 1);
		return -1;
	}
	return 0;
}

static void put_caps(uint64_t caps, char *buf, size_t len)
{
	const char *sep = "";
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]) && n < len; i++)
		if (caps & SCN_CAP(cap_names[i].cap)) {
			n += snprintf(buf + n, len - n, "%s%s", sep, cap_names[i].name);
			sep = ",";
		}
}

void scn_party_format(const struct scn_party *q, char *buf, size_t len)
{
	char caps[128];
	size_t n;

	if (q->kernel) {
		snprintf(buf, len, "kernel");
		return;
	}
	n = snprintf(buf, len, "uid=%u", q->uid);
	if (q->euid != q->uid && n < len)
		n += snprintf(buf + n, len - n, " euid=%u", q->euid);
	if (q->suid != q->euid && n < len)
		n += snprintf(buf + n, len - n, " suid=%u", q->suid);
	if (q->gid != q->uid && n < len)
		n += snprintf(buf + n, len - n, " gid=%u", q->gid);
	for (size_t i = 0; i < q->ngroups && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%u", i ? "," : " groups=", q->groups[i]);
	if (q->label[0] && n < len)
		n += snprintf(buf + n, len - n, " label=%s", q->label);
	put_caps(q->caps, caps, sizeof(caps));
	if (caps[0] && n < len)
		n += snprintf(buf + n, len - n, " caps=%s", caps);
	if (q->userns && n < len)
		n += snprintf(buf + n, len - n, " userns");
	if (q->mntns && n < len)
		snprintf(buf + n, len - n, " mntns");
}

/* "STEP:WHO[+WHO]" after "blocked@". */
static int parse_where(struct parser *p, const char *w)
{
	static const char *const steps[] = { "watch:", "post:", "read:" };
	static const char *const lsms[] = { "watchpol", "selinux", "smack", "kernel" };
	char who[SCN_WHERE_MAX], *tok, *save;
	size_t i, n = 0;

	for (i = 0; i < 3; i++)
		if (strncmp(w, steps[i], strlen(steps[i])) == 0)
			break;
	if (i == 3 || strlen(w) >= SCN_WHERE_MAX)
		return fail(p, "blocked@%s: want blocked@watch|post|read:WHO[+WHO]", w);
	snprintf(who, sizeof(who), "%s", w + strlen(steps[i]));
	for (tok = strtok_r(who, "+", &save); tok; tok = strtok_r(NULL, "+", &save), n++) {
		size_t j;

		for (j = 0; j < 4 && strcmp(tok, lsms[j]); j++)
			;
		if (j == 4)
			return fail(p, "blocked@%s: '%s' is not watchpol, selinux, smack or kernel",
				    w, tok);
	}
	if (n < 1 || n > 2)
		return fail(p, "blocked@%s: one refuser, or two joined by '+'", w);
	return 0;
}

static int parse_result(struct parser *p, const char *s, enum scn_result *r)
{
	if (strncmp(s, "blocked@", 8) == 0) {
		*r = SCN_BLOCKED;
		return parse_where(p, s + 8);
	}
	if (strcmp(s, "delivered") == 0)
		*r = SCN_DELIVERED;
	else if (strcmp(s, "blocked") == 0)
		*r = SCN_BLOCKED;
	else if (strcmp(s, "not-posted") == 0)
		*r = SCN_NOT_POSTED;
	else if (strcmp(s, "not-available") == 0)
		*r = SCN_NOT_AVAILABLE;
	else
		return fail(p, "result '%s' is not delivered, blocked, not-posted or not-available",
			    s);
	return 0;
}

static const struct {
	const char *name;
	unsigned int bit;
} variant_names[] = {
	{ "pipe", SCN_V_PIPE }, { "ring", SCN_V_RING },
	{ "fput-on", SCN_V_FPUT_ON }, { "fput-off", SCN_V_FPUT_OFF },
};

/* SELECTOR: [PROFILE/]MODEL or PROFILE, either part "*", then ":VARIANT". */
static int parse_selector(struct parser *p, char *sel, struct scn_expect *e)
{
	char *colon = strchr(sel, ':'), *slash;

	strcpy(e->profile, "*");
	strcpy(e->model, "*");
	e->variant = 0;
	if (colon) {
		size_t i;

		*colon = '\0';
		for (i = 0; i < sizeof(variant_names) / sizeof(variant_names[0]); i++)
			if (strcmp(variant_names[i].name, colon + 1) == 0)
				break;
		if (i == sizeof(variant_names) / sizeof(variant_names[0]))
			return fail(p, "unknown variant ':%s'", colon + 1);
		e->variant = variant_names[i].bit;
	}
	slash = strchr(sel, '/');
	if (slash) {
		*slash = '\0';
		if (strcmp(sel, "*") && !in_list(scn_profiles, sel))
			return fail(p, "unknown profile '%s'", sel);
		if (strcmp(slash + 1, "*") && !in_list(scn_models, slash + 1))
			return fail(p, "unknown model '%s'", slash + 1);
		snprintf(e->profile, sizeof(e->profile), "%s", sel);
		snprintf(e->model, sizeof(e->model), "%s", slash + 1);
	} else if (in_list(scn_profiles, sel)) {
		snprintf(e->profile, sizeof(e->profile), "%s", sel);
	} else if (in_list(scn_models, sel)) {
		snprintf(e->model, sizeof(e->model), "%s", sel);
	} else if (strcmp(sel, "*") != 0) {
		return fail(p, "'%s' is not a profile, a model, PROFILE/MODEL or *", sel);
	}
	return 0;
}

static int parse_expect(struct parser *p, char **tok, int ntok, struct scenario *s)
{
	enum scn_result r = SCN_UNSET;

	if (ntok != 2)
		return fail(p, "expect: want 'expect SELECTOR[,SELECTOR...] "
			    "delivered|blocked[@STEP:WHO]|not-posted|not-available'");
	if (parse_result(p, tok[1], &r))
		return -1;
	for (char *sel = strtok(tok[0], ","); sel; sel = strtok(NULL, ",")) {
		struct scn_expect *e;

		if (s->nexpect == SCN_MAX_EXPECT)
			return fail(p, "more than %d expectations", SCN_MAX_EXPECT);
		e = &s->expect[s->nexpect];
		if (parse_selector(p, sel, e))
			return -1;
		e->result = r;
		snprintf(e->where, sizeof(e->where), "%s",
			 strncmp(tok[1], "blocked@", 8) ? "" : tok[1] + 8);
		s->nexpect++;
	}
	return 0;
}

static int parse_source(struct parser *p, const char *name, struct scenario *s)
{
	for (int i = 0; i < SCN_NR_SOURCES; i++)
		if (strcmp(scn_source_name(i), name) == 0) {
			s->source = i;
			return 0;
		}
	return fail(p, "unknown source '%s'", name);
}

static const char *const objects[SCN_NR_SOURCES][5] = {
	[SCN_KEY] = { "key", "keyring", NULL },
	[SCN_MOUNT] = { "mount", "fsmount", NULL },
	[SCN_SB] = { "sb", "sb-quota", "sb-ext4", "sb-ext4-bad-dir", NULL },
	[SCN_BLOCK] = { "devices", NULL },
	[SCN_USB] = { "devices", NULL },
};

static int parse_object(struct parser *p, char **tok, int ntok, struct scenario *s)
{
	unsigned long v;

	if (ntok < 1 || ntok > 2)
		return fail(p, "object: want 'object KIND [OPTION]'");
	snprintf(s->object, sizeof(s->object), "%s", tok[0]);
	if (ntok == 2) {
		if (strncmp(tok[1], "perm=", 5) == 0) {
			if (parse_uint(p, "perm", tok[1] + 5, 0xffffffffUL, &v))
				return -1;
			s->perm = v;
		} else if (strcmp(tok[1], "shared") == 0) {
			snprintf(s->object_opt, sizeof(s->object_opt), "%s", tok[1]);
		} else {
			return fail(p, "object: unknown option '%s'", tok[1]);
		}
	}
	return 0;
}

static int parse_choice(struct parser *p, const char *what, const char *v,
			unsigned int a, unsigned int b, unsigned int *bits)
{
	const char *an = a & SCN_V_TRANSPORTS ? "pipe" : "on";
	const char *bn = b & SCN_V_TRANSPORTS ? "ring" : "off";

	if (strcmp(v, an) == 0)
		*bits |= a;
	else if (strcmp(v, bn) == 0)
		*bits |= b;
	else if (strcmp(v, "both") == 0)
		*bits |= a | b;
	else
		return fail(p, "%s: '%s' is not %s, %s or both", what, v, an, bn);
	return 0;
}

static int tokenize(char *line, char **tok)
{
	int n = 0;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
		if (n == MAX_TOKENS)
			return -1;
		tok[n++] = t;
	}
	return n;
}

/* The rest of a "KEYWORD TEXT" line, which must not be empty, into dst. */
static int line_text(struct parser *p, char *raw, const char *kw, char *dst, size_t len,
		     const char *hint)
{
	char *text = strstr(raw, kw) + strlen(kw);

	text += strspn(text, " \t");
	text[strcspn(text, "\r\n")] = '\0';
	if (!*text)
		return fail(p, "%s: empty%s", kw, hint);
	snprintf(dst, len, "%s", text);
	return 0;
}

/* One line inside "scenario ... end". */
static int parse_field(struct parser *p, char **tok, int ntok, struct scenario *s,
		       char *raw)
{
	const char *kw = tok[0];
	int rest = ntok - 1;

	if (strcmp(kw, "doc") == 0)
		return line_text(p, raw, kw, s->doc, sizeof(s->doc), "");
	if (strcmp(kw, "property") == 0)
		return line_text(p, raw, kw, s->property, sizeof(s->property),
				 " (say what the kernel decides)");
	if (strcmp(kw, "threat") == 0) {
		if (rest != 1 || !scn_threat_known(tok[1]))
			return fail(p, "threat: want one of %s", SCN_THREATS);
		snprintf(s->threat, sizeof(s->threat), "%s", tok[1]);
		return 0;
	}
	if (strcmp(kw, "source") == 0)
		return rest == 1 ? parse_source(p, tok[1], s) : fail(p, "source: one name");
	if (strcmp(kw, "object") == 0)
		return parse_object(p, tok + 1, rest, s);
	if (strcmp(kw, "owner") == 0)
		return parse_party(p, "owner", tok + 1, rest, &s->owner, false);
	if (strcmp(kw, "watcher") == 0)
		return parse_party(p, "watcher", tok + 1, rest, &s->watcher, false);
	if (strcmp(kw, "setter") == 0)
		return parse_party(p, "setter", tok + 1, rest, &s->setter, false);
	if (strcmp(kw, "trigger") == 0)
		return parse_party(p, "trigger", tok + 1, rest, &s->trigger, true);
	if (strcmp(kw, "action") == 0) {
		if (rest != 1)
			return fail(p, "action: one name");
		s->action = scn_find_action(s->source, tok[1]);
		if (!s->action)
			return fail(p, "no action '%s' for source %s (is 'source' first?)",
				    tok[1], scn_source_name(s->source));
		s->ev_subtype = s->action->subtype;
		return 0;
	}
	if (strcmp(kw, "event") == 0) {
		int st = rest == 1 ? scn_subtype(s->source, tok[1]) : -1;

		if (st < 0)
			return fail(p, "event: '%s' is not a %s subtype", rest ? tok[1] : "",
				    scn_source_name(s->source));
		s->ev_subtype = st;
		return 0;
	}
	if (strcmp(kw, "transport") == 0)
		return rest == 1 ? parse_choice(p, "transport", tok[1], SCN_V_PIPE,
						SCN_V_RING, &s->variants)
				 : fail(p, "transport: pipe, ring or both");
	if (strcmp(kw, "fput") == 0)
		return rest == 1 ? parse_choice(p, "fput", tok[1], SCN_V_FPUT_ON,
						SCN_V_FPUT_OFF, &s->variants)
				 : fail(p, "fput: on, off or both");
	if (strcmp(kw, "observe") == 0) {
		static const char *const how[] = {
			[SCN_OBSERVE_WATCH] = "watch",
			[SCN_OBSERVE_READ] = "read",
			[SCN_OBSERVE_COUNT] = "count",
		};

		for (size_t i = 0; rest == 1 && i < sizeof(how) / sizeof(how[0]); i++)
			if (strcmp(tok[1], how[i]) == 0) {
				s->observe = i;
				return 0;
			}
		return fail(p, "observe: want watch, read or count");
	}
	if (strcmp(kw, "posted-as") == 0) {
		static const char *const who[] = {
			[SCN_POSTED_TRIGGER] = "trigger",
			[SCN_POSTED_OWNER] = "owner",
			[SCN_POSTED_KERNEL] = "kernel",
		};

		for (size_t i = 1; rest == 1 && i < sizeof(who) / sizeof(who[0]); i++)
			if (strcmp(tok[1], who[i]) == 0) {
				s->posted_as = i;
				return 0;
			}
		return fail(p, "posted-as: want trigger, owner or kernel");
	}
	if (strcmp(kw, "kernel-events") == 0) {
		if (rest != 1 || (strcmp(tok[1], "allow") && strcmp(tok[1], "deny")))
			return fail(p, "kernel-events: want allow or deny");
		snprintf(s->kernel_events, sizeof(s->kernel_events), "%s", tok[1]);
		return 0;
	}
	if (strcmp(kw, "watch-via") == 0) {
		if (rest != 1 || strcmp(tok[1], "trigger"))
			return fail(p, "watch-via: want trigger");
		s->watch_via_trigger = true;
		return 0;
	}
	if (strcmp(kw, "perm-drop") == 0 && rest == 0) {
		s->perm_drop = true;
		return 0;
	}
	if (strcmp(kw, "expect") == 0)
		return parse_expect(p, tok + 1, rest, s);
	return fail(p, "unknown keyword '%s'", kw);
}

static bool valid_object(const struct scenario *s)
{
	for (const char *const *o = objects[s->source]; *o; o++)
		if (strcmp(*o, s->object) == 0)
			return true;
	return false;
}

/*
 * A property row states what the kernel decides before any LSM hook runs:
 * one expectation for every cell, not-posted or refused by the kernel.
 */
static bool property_expectation(const struct scenario *s)
{
	const struct scn_expect *e = &s->expect[0];
	const char *who = strchr(e->where, ':');

	if (s->nexpect != 1 || strcmp(e->profile, "*") || strcmp(e->model, "*") || e->variant)
		return false;
	if (e->result == SCN_NOT_POSTED)
		return !e->where[0];
	return e->result == SCN_BLOCKED && who && !strcmp(who + 1, "kernel");
}

/* Everything a complete scenario needs, and an expectation for every cell. */
static int finish(struct parser *p, struct scn_set *set, struct scenario *s)
{
	unsigned int vars[8];
	size_t nv;

	p->line = s->line;	/* what is missing or clashes: name the scenario's line */
	if (!s->action)
		return fail(p, "scenario %s: no action", s->name);
	if (!s->watcher.set || !s->trigger.set)
		return fail(p, "scenario %s: watcher and trigger are required", s->name);
	if (!s->threat[0])
		return fail(p, "scenario %s: no threat (one of %s)", s->name, SCN_THREATS);
	if (!valid_object(s))
		return fail(p, "scenario %s: object '%s' is not one of source %s's",
			    s->name, s->object, scn_source_name(s->source));
	if (s->trigger.kernel != s->action->upcall)
		return fail(p, "scenario %s: 'trigger kernel' goes with action instantiate, "
			    "and only with it", s->name);
	if (s->source == SCN_KEY && !s->owner.set)
		return fail(p, "scenario %s: a key object needs an owner", s->name);
	if (s->observe == SCN_OBSERVE_READ && (s->source != SCN_KEY || s->setter.set ||
				strcmp(s->action->name, "update")))
		return fail(p, "scenario %s: 'observe read' goes with source key, action "
			    "update and no setter", s->name);
	if (s->observe == SCN_OBSERVE_COUNT &&
	    (s->setter.set || s->owner.set || s->watch_via_trigger ||
	     !((s->source == SCN_MOUNT && !strcmp(s->object, "mount") &&
		(!strcmp(s->action->name, "remount-ro") ||
		 !strcmp(s->action->name, "setattr"))) ||
	       (s->source == SCN_SB && strncmp(s->object, "sb", 2) == 0))))
		return fail(p, "scenario %s: 'observe count' goes with a mount object and "
			    "action remount-ro or setattr, or an sb object; no owner, "
			    "setter or watch-via", s->name);
	if (s->watch_via_trigger &&
	    (!s->trigger.mntns || s->setter.set || s->owner.set ||
	     (strcmp(s->object, "mount") && strcmp(s->object, "sb"))))
		return fail(p, "scenario %s: 'watch-via trigger' needs a trigger with mntns, "
			    "object mount or sb, and no owner or setter", s->name);
	if (s->property[0] && !property_expectation(s))
		return fail(p, "scenario %s: a property row has one expectation, 'expect * "
			    "not-posted' or 'expect * blocked@STEP:kernel': the kernel decides "
			    "it, whatever the model or LSM", s->name);
	if (!s->perm)
		s->perm = 0x3f3f3f3f;
	if (!(s->variants & SCN_V_TRANSPORTS))
		s->variants |= SCN_V_PIPE;
	if (s->action->destruction && !(s->variants & SCN_V_FPUT))
		s->variants |= SCN_V_FPUT;
	if (!s->action->destruction && (s->variants & SCN_V_FPUT))
		return fail(p, "scenario %s: fput applies to destruction actions only", s->name);
	nv = scn_variant_list(s, vars, 8);
	for (const char *const *pr = scn_profiles; *pr; pr++)
		for (const char *const *m = scn_models; *m; m++)
			for (size_t i = 0; i < nv && scn_model_in_profile(*m, *pr) &&
			     !(s->property[0] && scn_model_mainline(*m)); i++)
				if (scn_expected(s, *pr, *m, vars[i]) == SCN_UNSET)
					return fail(p, "scenario %s: no expectation for %s/%s%s",
						    s->name, *pr, *m,
						    nv > 1 ? " in one of its variants" : "");
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i].name, s->name) == 0)
			return fail(p, "scenario %s: name already used at %s:%u", s->name,
				    set->v[i].file, set->v[i].line);
	return 0;
}

static struct scenario *grow(struct scn_set *set)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct scenario *v = realloc(set->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		set->v = v;
		set->cap = cap;
	}
	return &set->v[set->n];
}

static int parse_stream(struct parser *p, FILE *f, struct scn_set *set, const char *file)
{
	char buf[LINE_MAX_LEN + 2], raw[LINE_MAX_LEN + 2], *tok[MAX_TOKENS];
	struct scenario *s = NULL;
	unsigned int start = 0;

	while (fgets(buf, sizeof(buf), f)) {
		int n;

		p->line++;
		if (!strchr(buf, '\n') && !feof(f))
			return fail(p, "line longer than %d characters", LINE_MAX_LEN);
		for (char *c = buf; *c && *c != '\n'; c++)
			if (!isprint((unsigned char)*c) && *c != '\t')
				return fail(p, "control or non-ASCII byte 0x%02x",
					    (unsigned char)*c);
		strcpy(raw, buf);
		n = tokenize(buf, tok);
		if (n < 0)
			return fail(p, "more than %d words", MAX_TOKENS);
		if (n == 0)
			continue;
		if (!s) {
			if (strcmp(tok[0], "scenario") != 0 || n != 2)
				return fail(p, "want 'scenario NAME'");
			if (!valid_name(tok[1], SCN_NAME_MAX))
				return fail(p, "bad scenario name '%s' (a-z, 0-9, '-')", tok[1]);
			s = grow(set);
			if (!s)
				return fail(p, "out of memory");
			memset(s, 0, sizeof(*s));
			strcpy(s->name, tok[1]);
			s->file = file;
			s->line = start = p->line;
			continue;
		}
		if (strcmp(tok[0], "end") == 0 && n == 1) {
			unsigned int end_line = p->line;

			if (finish(p, set, s))
				return -1;
			p->line = end_line;
			set->n++;
			s = NULL;
			continue;
		}
		if (strcmp(tok[0], "scenario") == 0)
			return fail(p, "scenario inside scenario %s (missing 'end')", s->name);
		if (parse_field(p, tok, n, s, raw))
			return -1;
	}
	if (ferror(f))
		return fail(p, "read error");
	if (s) {
		p->line = start;
		return fail(p, "scenario %s has no 'end'", s->name);
	}
	return 0;
}

int scn_parse_file(struct scn_set *set, const char *path, char *err, size_t errlen)
{
	struct parser p = { .path = path, .err = err, .errlen = errlen };
	size_t before = set->n;
	char *file = strdup(path);
	FILE *f;
	int r;

	if (!file)
		return fail(&p, "out of memory");
	f = fopen(path, "re");
	if (!f) {
		free(file);
		return fail(&p, "%s", strerror(errno));
	}
	r = parse_stream(&p, f, set, file);
	fclose(f);
	if (r) {
		set->n = before;	/* a malformed file adds nothing */
		free(file);
	}
	return r;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_scn(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".scn") == 0;
}

int scn_parse_dir(struct scn_set *set, const char *dir, char *err, size_t errlen)
{
	struct dirent **list;
	int n = scandir(dir, &list, is_scn, by_name), r = 0;

	if (n < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(err, errlen, "%s: no *.scn files", dir);
		r = -1;
	}
	for (int i = 0; i < n; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		if (!r)
			r = scn_parse_file(set, path, err, errlen);
		free(list[i]);
	}
	free(list);
	return r;
}

void scn_set_free(struct scn_set *set)
{
	/* file names are shared by the scenarios of one file: free each once */
	for (size_t i = 0; i < set->n; i++)
		if (i == 0 || set->v[i].file != set->v[i - 1].file)
			free((char *)set->v[i].file);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

size_t scn_variant_list(const struct scenario *s, unsigned int *out, size_t max)
{
	static const unsigned int tr[] = { SCN_V_PIPE, SCN_V_RING };
	static const unsigned int fp[] = { SCN_V_FPUT_ON, SCN_V_FPUT_OFF };
	size_t n = 0;

	for (size_t t = 0; t < 2; t++) {
		if (!(s->variants & tr[t]))
			continue;
		if (!(s->variants & SCN_V_FPUT)) {
			if (n < max)
				out[n++] = tr[t];
			continue;
		}
		for (size_t f = 0; f < 2; f++)
			if ((s->variants & fp[f]) && n < max)
				out[n++] = tr[t] | fp[f];
	}
	return n;
}

void scn_row_name(const struct scenario *s, unsigned int variant, char *buf, size_t len)
{
	const char *tr = variant & SCN_V_RING ? "ring" : NULL;
	const char *fp = variant & SCN_V_FPUT_ON ? "fput-on" :
			 variant & SCN_V_FPUT_OFF ? "fput-off" : NULL;

	if (!tr && !fp)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s[%s%s%s]", s->name, tr ? tr : "",
			 tr && fp ? "," : "", fp ? fp : "");
}

bool scn_threat_known(const char *name)
{
	static const char threats[] = SCN_THREATS;
	const char *p = strstr(threats, name);
	size_t n = strlen(name);

	/* a whole word of the list: a blank or an end on either side */
	return n && p && (p == threats || p[-1] == ' ') && (p[n] == ' ' || !p[n]);
}

const char *scn_result_name(enum scn_result r)
{
	switch (r) {
	case SCN_DELIVERED:
		return "delivered";
	case SCN_BLOCKED:
		return "blocked";
	case SCN_NOT_POSTED:
		return "not-posted";
	case SCN_NOT_AVAILABLE:
		return "not-available";
	default:
		return "unset";
	}
}
