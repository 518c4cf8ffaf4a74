/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scenario.h - data-driven scenarios: the in-memory form of the files in
 * testcases/scenarios/ (format: testcases/README.md), the parser, and the
 * expectation lookup.  The parser is plain C with no runner dependencies,
 * so the host builds it too (harness/scenario-lint.c).
 */
#ifndef WL_SCENARIO_H
#define WL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCN_NAME_MAX 48
#define SCN_LABEL_MAX 16
#define SCN_MAX_EXPECT 32
#define SCN_WHERE_MAX 40
#define SCN_MAX_GROUPS 8

enum scn_source { SCN_KEY, SCN_MOUNT, SCN_SB, SCN_BLOCK, SCN_USB, SCN_NR_SOURCES };

/*
 * What a cell observed: the record arrived; it was refused (at watch or at
 * post time, by whom is the cell's evidence); or the event never reached
 * the post hook for the scenario's watch.  Not available: the column's
 * mechanism has no such event at all (the mainline column).
 */
enum scn_result { SCN_UNSET, SCN_DELIVERED, SCN_BLOCKED, SCN_NOT_POSTED, SCN_NOT_AVAILABLE };

/* Variant bits: a scenario runs once per transport and fput setting it names. */
#define SCN_V_PIPE	0x01
#define SCN_V_RING	0x02
#define SCN_V_FPUT_ON	0x04
#define SCN_V_FPUT_OFF	0x08
#define SCN_V_TRANSPORTS (SCN_V_PIPE | SCN_V_RING)
#define SCN_V_FPUT	(SCN_V_FPUT_ON | SCN_V_FPUT_OFF)

/* Capabilities a party keeps across the uid switch (bit = CAP_* number). */
#define SCN_CAP(n) (1ULL << (n))

/* The watcher, the triggerer or the object's owner. */
struct scn_party {
	bool set;		/* the line was given */
	bool kernel;		/* triggerer only: the kernel raises the event */
	uid_t uid, euid, suid;
	gid_t gid;
	size_t ngroups;
	gid_t groups[SCN_MAX_GROUPS];
	char label[SCN_LABEL_MAX];	/* abstract label (policy/labels), "" = the runner's */
	uint64_t caps;		/* kept after the uid switch (PR_SET_KEEPCAPS + capset) */
	bool userns;		/* unshare a user namespace mapping root to uid */
	bool mntns;		/* unshare a mount namespace (root only, or with userns) */
};

/*
 * "expect SELECTOR,... RESULT": the last line that matches a cell wins.
 * RESULT "blocked@STEP:WHO[+WHO]" also names where the event stops
 * (STEP watch, post or read; WHO watchpol, selinux, smack or kernel; a
 * second WHO: that LSM refuses it too, as the row's native cell shows).
 */
struct scn_expect {
	char profile[SCN_LABEL_MAX];	/* "*" or a profile */
	char model[SCN_LABEL_MAX];	/* "*" or a model */
	unsigned int variant;		/* 0: any, else one SCN_V_* bit */
	enum scn_result result;
	char where[SCN_WHERE_MAX];	/* "STEP:WHO[+WHO]" or "" (not named) */
};

struct scn_ctx;

/*
 * One action of a source: the record it posts, how the engine runs it, and
 * its functions (scenario_source.h).  The host's scenario-lint builds with
 * SCN_HOST and gets the data only: its function pointers are NULL.
 */
struct scn_action {
	enum scn_source source;
	const char *name;
	unsigned int type, subtype;	/* the record the action posts */
	bool async;			/* posted after the action returns */
	bool destruction;		/* posted by a last fput(): runs fput on and off */
	bool upcall;			/* the kernel instantiates the owner's key */
	bool hand_off;			/* the owner passes the object's fd on */
	bool looker;			/* ...or keeps it, and the triggerer takes a copy */
	int (*prepare)(struct scn_ctx *c);	/* the fixture's state it starts from */
	int (*act)(struct scn_ctx *c);		/* the triggerer's action */
	void (*restore)(struct scn_ctx *c);	/* undo what prepare or act changed */
};

/* How the watcher party learns of the action (the "observe" keyword). */
enum scn_observe {
	SCN_OBSERVE_WATCH,	/* a watch on a queue: the record arrives or not */
	SCN_OBSERVE_READ,	/* a key's payload, read before and after */
	SCN_OBSERVE_COUNT,	/* statmount()'s notification counter, before and after */
};

struct scenario {
	char name[SCN_NAME_MAX];
	const char *file;
	unsigned int line;
	char doc[160];
	char threat[16];	/* the SECURITY.md threat the row is about: SCN_THREATS */
	/*
	 * "property TEXT": the row states a kernel property, decided before
	 * any LSM hook runs (TEXT says which).  No model can change it, so it
	 * runs once per boot (suite_properties), reported as an XFAIL.
	 */
	char property[160];
	enum scn_source source;
	char object[16];	/* key, keyring, mount, sb, sb-quota, sb-ext4, devices */
	char object_opt[16];	/* key perm as text, "shared" for a mount, ... */
	unsigned int perm;	/* key permission mask (0x3f3f3f3f when not given) */
	struct scn_party owner, watcher, trigger;
	struct scn_party setter;	/* sets the watch on the watcher's queue; unset: W */
	const struct scn_action *action;
	unsigned int ev_subtype;	/* the record checked (action's, or "event") */
	bool perm_drop;		/* the owner withdraws the watcher's View after the watch */
	/*
	 * How W learns of the action.  SCN_OBSERVE_READ: W reads O (a key's
	 * payload) before and after the action instead of watching it, the
	 * channel through the object itself, the control for a notification
	 * row.  SCN_OBSERVE_COUNT: W reads O's notification counter with
	 * statmount() (kernel-patches 0022) before and after, the channel the
	 * recovery counters open beside the notifications.
	 */
	enum scn_observe observe;
	/*
	 * "watch-via trigger": W reaches the object through /proc/T/root, in
	 * the mount namespace T made for itself, where T also makes the
	 * object (the action's starting state, or its own tmpfs for an sb):
	 * a daemon hearing what a user does in its own namespaces.
	 */
	bool watch_via_trigger;
	/* "allow"/"deny": the row runs with this kernel_events, whatever the model's */
	char kernel_events[8];
	/*
	 * "posted-as trigger|owner|kernel": whose creds the event's post
	 * carries (the t_uid of watchpol's records of it), checked in every
	 * cell that has a post record of it; SCN_POSTED_UNSET: not checked.
	 */
	enum { SCN_POSTED_UNSET, SCN_POSTED_TRIGGER, SCN_POSTED_OWNER,
	       SCN_POSTED_KERNEL } posted_as;
	unsigned int variants;	/* SCN_V_* */
	size_t nexpect;
	struct scn_expect expect[SCN_MAX_EXPECT];
};

struct scn_set {
	size_t n, cap;
	struct scenario *v;
};

extern const char *const scn_profiles[];	/* NULL-terminated */
extern const char *const scn_models[];		/* NULL-terminated */
/* Whether a model runs in a profile ("profiles=" in policy/watchpol/models). */
bool scn_model_in_profile(const char *model, const char *profile);

/*
 * Parse one scenario file and append its scenarios to set.  Returns 0, or -1
 * with "file:line: reason" in err.  Names must be unique across the set;
 * every profile x model x variant cell must have an expectation.
 */
int scn_parse_file(struct scn_set *set, const char *path, char *err, size_t errlen);

/* Parse every *.scn file in dir, in name order. */
int scn_parse_dir(struct scn_set *set, const char *dir, char *err, size_t errlen);

void scn_set_free(struct scn_set *set);

/*
 * A party given as words ("uid=1001 label=triggerer caps=kill"), as in a
 * scenario's owner/watcher/trigger line (not "kernel"): 0, or -1 with the
 * reason in err.  scn_party_format() writes one back in that form.
 */
int scn_party_parse(const char *role, char **tok, int ntok, struct scn_party *q,
		    char *err, size_t errlen);
void scn_party_format(const struct scn_party *q, char *buf, size_t len);

/* The expected result of one cell. */
enum scn_result scn_expected(const struct scenario *s, const char *profile,
			     const char *model, unsigned int variant);

/*
 * Where the expect line that decides a blocked cell says it stops
 * ("post:watchpol", "watch:kernel", ...), or "" when it does not say:
 * harness/report.py then derives it from the model and the row.
 */
const char *scn_expected_where(const struct scenario *s, const char *profile,
			       const char *model, unsigned int variant);

/* The variants a scenario runs in, one bit set per call: bits of SCN_V_*. */
size_t scn_variant_list(const struct scenario *s, unsigned int *out, size_t max);

/* "name", "name[ring]", "name[fput-off]", "name[ring,fput-on]": a matrix row. */
void scn_row_name(const struct scenario *s, unsigned int variant, char *buf, size_t len);

const char *scn_result_name(enum scn_result r);

/*
 * What a row is about: one of SECURITY.md's threats (observation beyond
 * one's rights, a covert channel, misattribution of who posts), or "use",
 * the events the series exists to deliver.
 */
#define SCN_THREATS "observation covert misattribution use"
bool scn_threat_known(const char *name);

/* The action table (scenario_actions.c) and lookup by source and name. */
const struct scn_action *scn_find_action(enum scn_source src, const char *name);
const char *scn_source_name(enum scn_source src);
/* Subtype by name for a source ("update", "new-mount", ...), or -1. */
int scn_subtype(enum scn_source src, const char *name);
const char *scn_subtype_name(enum scn_source src, unsigned int subtype);

/*
 * The mainline column (a model with "mechanism=mainline" in
 * policy/watchpol/models): what mainline merged instead of the 2019
 * series carries each row's event, and its rules say what to expect
 * (scenario_mainline.c).
 */
enum scn_mechanism {
	SCN_MECH_WATCH_QUEUE,		/* keys: mainline's own watch_queue */
	SCN_MECH_FANOTIFY_MNTNS,	/* a mount-namespace mark: FAN_MNT_ATTACH/DETACH */
	SCN_MECH_FANOTIFY_FS_ERROR,	/* a filesystem mark: FAN_FS_ERROR */
	SCN_MECH_UEVENT,		/* kobject uevents on NETLINK_KOBJECT_UEVENT */
	SCN_MECH_NONE,			/* mainline has no such event: not-available */
};

/* Whether a model's cells observe through mainline's mechanisms. */
bool scn_model_mainline(const char *model);
/* The mechanism mainline carries a row's event by. */
enum scn_mechanism scn_mainline_mechanism(const struct scenario *s);
const char *scn_mechanism_name(enum scn_mechanism m);
/*
 * What mainline's rules expect of a row in a profile, with where a block
 * stops in *where ("" when not blocked), or SCN_UNSET when the rules do
 * not decide it and the row must say ("expect mainline ...").
 */
enum scn_result scn_mainline_rule(const struct scenario *s, const char *profile,
				  unsigned int variant, const char **where);

#endif /* WL_SCENARIO_H */
