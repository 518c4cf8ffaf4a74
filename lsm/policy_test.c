// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - KUnit tests for the policy engine and the decision log ring.
 *
 * Labels go through a fake resolver: "l<N>" is secid N, "alias1" is secid
 * 1 too, anything starting with "bad" is rejected and any other label is
 * unknown (secid 0), as with Smack or no major LSM.
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/init_task.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/lsm.h>
#include <linux/watch_queue.h>
#include <uapi/linux/watch_queue.h>

#include "eval.h"
#include "interop.h"
#include "load.h"
#include "log.h"
#include "policy.h"
#include "policy_parser.h"
#include "watchpol.h"

static int fake_resolve(const char *label, u32 *secid)
{
	*secid = 0;
	if (!strncmp(label, "bad", 3))
		return -EINVAL;
	if (!strcmp(label, "alias1")) {
		*secid = 1;
		return 0;
	}
	if (label[0] == 'l' && !kstrtou32(label + 1, 10, secid))
		return 0;
	*secid = 0;
	return 0;
}

static struct watchpol_policy *parse_ok(struct kunit *test, const char *text)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *p;

	p = watchpol_policy_parse(text, strlen(text), fake_resolve, &err);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(p), "line %u: %s", err.line,
			       err.reason);
	return p;
}

#define BASE_TAIL "enforce 1\nkernel_events allow\n"
#define EMPTY_POLICY "default none\n" BASE_TAIL

struct parse_case {
	const char *name;
	const char *in;
	const char *canonical;
	u32 unresolved;
};

static const struct parse_case parse_valid[] = {
	{ "empty", "", EMPTY_POLICY, 0 },
	{ "comments and blanks", "# c\n\n  \t \x0a   # indented\n",
	  EMPTY_POLICY, 0 },
	{ "settings", "kernel_events deny\nenforce 0\ndefault strict\n",
	  "default strict\nenforce 0\nkernel_events deny\n", 0 },
	{ "no final newline", "default watcher",
	  "default watcher\n" BASE_TAIL, 0 },
	{ "per type models in type order",
	  "model usb none\nmodel key watcher\ndefault schaufler\n",
	  "default schaufler\nmodel key watcher\nmodel usb none\n" BASE_TAIL,
	  0 },
	{ "type set to the default stays explicit",
	  "default strict\nmodel sb strict\n",
	  "default strict\nmodel sb strict\n" BASE_TAIL, 0 },
	{ "rules sorted, duplicates dropped, blanks normalised",
	  "watch l2 l3\npost l2 l1 # comment\npost l1 l2\npost l1 l2\n\tpost\tl10  l1\t\n",
	  EMPTY_POLICY
	  "post l1 l2\npost l10 l1\npost l2 l1\nwatch l2 l3\n", 0 },
	{ "unknown labels kept but inert", "post x y\nwatch l1 z\n",
	  EMPTY_POLICY "post x y\nwatch l1 z\n", 2 },
	{ "labels with punctuation",
	  "post system_u:system_r:a_t:s0 user_u:user_r:b_t:s0-s0:c0.c3\n",
	  EMPTY_POLICY
	  "post system_u:system_r:a_t:s0 user_u:user_r:b_t:s0-s0:c0.c3\n",
	  1 },
	{ "hash inside a label is literal", "post a#b c\n",
	  EMPTY_POLICY "post a#b c\n", 1 },
	{ "end line", "default strict\nend\n",
	  "default strict\n" BASE_TAIL, 0 },
	{ "comments and blanks after end", "end # done\n\n# more\n\t\n",
	  EMPTY_POLICY, 0 },
	{ "post parts, canonical order",
	  "post_label on\npost_dac off\ndefault strict\n",
	  "default strict\n" BASE_TAIL "post_dac off\npost_label on\n", 0 },
	{ "W choice in type order, setter kept explicit, recheck last",
	  "recheck on\nw_creds usb setter\nw_creds key creator\npost_dac off\n",
	  EMPTY_POLICY "post_dac off\nw_creds key creator\nw_creds usb setter\n"
	  "recheck on\n", 0 },
};

static void parse_valid_desc(const struct parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse_valid, parse_valid, parse_valid_desc);

static void watchpol_test_parse_valid(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	struct watchpol_policy *p, *q;

	p = parse_ok(test, c->in);
	KUNIT_EXPECT_EQ(test, p->text_len, strlen(c->canonical));
	KUNIT_EXPECT_STREQ(test, p->text, c->canonical);
	KUNIT_EXPECT_EQ(test, p->unresolved, c->unresolved);

	/* The canonical form parses to itself. */
	q = parse_ok(test, p->text);
	KUNIT_EXPECT_STREQ(test, q->text, p->text);
	watchpol_policy_free(q);
	watchpol_policy_free(p);
}

struct parse_error_case {
	const char *name;
	const char *in;
	size_t len;		/* 0: strlen(in) */
	unsigned int line;
};

static const struct parse_error_case parse_invalid[] = {
	{ "unknown keyword", "bogus\n", 0, 1 },
	{ "keyword case matters", "Default none\n", 0, 1 },
	{ "default missing model", "default\n", 0, 1 },
	{ "default trailing text", "default none extra\n", 0, 1 },
	{ "default unknown model", "\n\ndefault maybe\n", 0, 3 },
	{ "default twice", "default none\n# x\ndefault none\n", 0, 3 },
	{ "model missing model", "model key\n", 0, 1 },
	{ "model unknown type", "model pipe strict\n", 0, 1 },
	{ "model pseudo type", "model devices strict\n", 0, 1 },
	{ "model unknown model", "model key all\n", 0, 1 },
	{ "model type twice", "model key strict\nmodel key none\n", 0, 2 },
	{ "enforce 2", "enforce 2\n", 0, 1 },
	{ "enforce missing value", "enforce\n", 0, 1 },
	{ "enforce twice", "enforce 1\nenforce 1\n", 0, 2 },
	{ "enforce yes", "enforce yes\n", 0, 1 },
	{ "kernel_events bad", "kernel_events maybe\n", 0, 1 },
	{ "kernel_events twice", "kernel_events deny\nkernel_events allow", 0,
	  2 },
	{ "rule one label", "post a\n", 0, 1 },
	{ "rule three labels", "post a b c\n", 0, 1 },
	{ "rule label is a comment", "post a #b\n", 0, 1 },
	{ "rule unresolvable label", "post l1 l2\nwatch l1 bad_t\n", 0, 2 },
	{ "first error wins", "post l1 l2\n# ok\nwatch x\nbogus\n", 0, 3 },
	{ "NUL byte", "default none\n\0\n", 15, 2 },
	{ "carriage return", "default none\r\n", 0, 1 },
	{ "non-ASCII byte", "post \xc3\xa9 b\n", 0, 1 },
	{ "control character", "\n\n\npost a\x01 b\n", 0, 4 },
	{ "bad line after good ones", "default strict\nenforce 0\npost", 0, 3 },
	{ "statement after end", "end\n# ok\ndefault strict\n", 0, 3 },
	{ "end twice", "default none\nend\nend\n", 0, 3 },
	{ "end with an argument", "end now\n", 0, 1 },
	{ "end is a keyword, not a prefix", "ending\n", 0, 1 },
	{ "post_dac twice", "post_dac on\npost_dac on\n", 0, 2 },
	{ "post_label bad value", "post_label yes\n", 0, 1 },
	{ "post_dac missing value", "\npost_dac\n", 0, 2 },
	{ "w_creds type twice", "w_creds key creator\nw_creds key setter\n", 0,
	  2 },
	{ "w_creds unknown type", "w_creds devices creator\n", 0, 1 },
	{ "w_creds bad choice", "w_creds key owner\n", 0, 1 },
	{ "w_creds without type", "w_creds creator\n", 0, 1 },
	{ "w_creds trailing text", "w_creds key creator now\n", 0, 1 },
	{ "recheck twice", "recheck on\nrecheck off\n", 0, 2 },
	{ "recheck bad value", "recheck yes\n", 0, 1 },
};

static void parse_invalid_desc(const struct parse_error_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse_invalid, parse_invalid, parse_invalid_desc);

static void watchpol_test_parse_invalid(struct kunit *test)
{
	const struct parse_error_case *c = test->param_value;
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	size_t len = c->len ? c->len : strlen(c->in);

	p = watchpol_policy_parse(c->in, len, fake_resolve, &err);
	KUNIT_ASSERT_TRUE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, PTR_ERR(p), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.line, c->line);
	KUNIT_EXPECT_NOT_NULL(test, err.reason);
}

static void watchpol_test_parse_limits(struct kunit *test)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	size_t size = WATCHPOL_MAX_POLICY, pos = 0;
	char *buf;
	int i;

	buf = kunit_kzalloc(test, WATCHPOL_MAX_POLICY + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Longest label accepted, one more byte rejected. */
	memcpy(buf, "post ", 5);
	memset(buf + 5, 'x', WATCHPOL_MAX_LABEL);
	memcpy(buf + 5 + WATCHPOL_MAX_LABEL, " y\n", 3);
	p = watchpol_policy_parse(buf, 8 + WATCHPOL_MAX_LABEL, fake_resolve,
				  &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	watchpol_policy_free(p);
	memcpy(buf + 5 + WATCHPOL_MAX_LABEL, "x y\n", 4);
	p = watchpol_policy_parse(buf, 9 + WATCHPOL_MAX_LABEL, fake_resolve,
				  &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR(p), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.line, 1U);

	/* WATCHPOL_MAX_RULES rules pass; the next one names its line. */
	KUNIT_ASSERT_LE(test, size, (size_t)WATCHPOL_MAX_POLICY);
	for (i = 0; i < WATCHPOL_MAX_RULES; i++)
		pos += scnprintf(buf + pos, size - pos, "post l%d l1\n", i + 2);
	p = watchpol_policy_parse(buf, pos, fake_resolve, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_EQ(test, p->post.nr, (u32)WATCHPOL_MAX_RULES);
	/* The hash table finds every pair, and none reversed. */
	for (i = 0; i < WATCHPOL_MAX_RULES; i++) {
		if (!watchpol_rule_ok(&p->post, i + 2, 1) ||
		    watchpol_rule_ok(&p->post, 1, i + 2)) {
			KUNIT_FAIL(test, "rule l%d l1 looked up wrong", i + 2);
			break;
		}
	}
	watchpol_policy_free(p);
	pos += scnprintf(buf + pos, size - pos, "watch l1 l2\n");
	p = watchpol_policy_parse(buf, pos, fake_resolve, &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR(p), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.line, WATCHPOL_MAX_RULES + 1U);

	/* Oversized input. */
	memset(buf, '#', WATCHPOL_MAX_POLICY + 1);
	p = watchpol_policy_parse(buf, WATCHPOL_MAX_POLICY + 1, fake_resolve,
				  &err);
	KUNIT_EXPECT_EQ(test, PTR_ERR(p), -EFBIG);
	p = watchpol_policy_parse(buf, WATCHPOL_MAX_POLICY, fake_resolve,
				  &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	watchpol_policy_free(p);
}

/*
 * A policy accepted at the size limit reads back (canonical text and the
 * end line) within the limit, so that it can be written back and parsed
 * again when labels are resolved again; one whose canonical form would
 * not fit is refused.  Rules alone: the canonical form adds the default,
 * enforce and kernel_events lines.
 */
static size_t rules_text(char *buf, size_t size, int n)
{
	size_t pos = 0;
	int i;

	for (i = 0; i < n; i++)
		pos += scnprintf(buf + pos, size - pos, "post l%020d l1\n",
				 i + 2);
	return pos;
}

static void watchpol_test_canonical_limit(struct kunit *test)
{
	size_t max = WATCHPOL_MAX_POLICY, len, fill;
	struct watchpol_parse_error err;
	struct watchpol_policy *p, *q;
	char *buf;

	buf = kunit_kzalloc(test, max + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/* Exactly the limit, its canonical form over it: refused. */
	len = rules_text(buf, max + 1, max / 30);
	fill = max - len;
	KUNIT_ASSERT_GT(test, fill, (size_t)1);
	memset(buf + len, '#', fill - 1);
	buf[max - 1] = '\n';
	p = watchpol_policy_parse(buf, max, fake_resolve, &err);
	KUNIT_EXPECT_TRUE(test, IS_ERR(p));
	if (!IS_ERR(p)) {
		KUNIT_FAIL(test, "canonical text %zu bytes, limit %zu",
			   p->text_len, max);
		watchpol_policy_free(p);
	} else {
		KUNIT_EXPECT_EQ(test, PTR_ERR(p), -EFBIG);
		KUNIT_EXPECT_NOT_NULL(test, err.reason);
	}

	/* Two rules fewer: it fits, reads back and parses again. */
	len = rules_text(buf, max + 1, max / 30 - 2);
	p = watchpol_policy_parse(buf, len, fake_resolve, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_LE(test, p->text_len + strlen("end\n"), max);
	memcpy(buf, p->text, p->text_len);
	memcpy(buf + p->text_len, "end\n", 4);
	q = watchpol_policy_parse(buf, p->text_len + 4, fake_resolve, &err);
	KUNIT_EXPECT_FALSE(test, IS_ERR(q));
	if (!IS_ERR(q)) {
		KUNIT_EXPECT_EQ(test, q->text_len, p->text_len);
		watchpol_policy_free(q);
	}
	watchpol_policy_free(p);
}

/*
 * Three pairs whose keys start their probe at one slot: the second and
 * third are found past it, and a fourth with that slot, not in the table,
 * is not (the probe stops at the empty slot, not at the first).
 */
static void watchpol_test_rule_collisions(struct kunit *test)
{
	struct watchpol_ruleset probe = { .mask = 7 };
	struct watchpol_policy *p;
	u32 obj[4], slot, o;
	char text[96];
	int n = 0;

	slot = watchpol_rule_slot(&probe, watchpol_rule_key(1, 2));
	for (o = 2; n < 4 && o < 100000; o++)
		if (watchpol_rule_slot(&probe, watchpol_rule_key(1, o)) == slot)
			obj[n++] = o;
	KUNIT_ASSERT_EQ(test, n, 4);
	scnprintf(text, sizeof(text), "post l1 l%u\npost l1 l%u\npost l1 l%u\n",
		  obj[0], obj[1], obj[2]);
	p = parse_ok(test, text);
	/* 3 rules: 8 slots, the mask the pairs were chosen for. */
	KUNIT_ASSERT_EQ(test, p->post.mask, 7U);
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 1, obj[0]));
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 1, obj[1]));
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 1, obj[2]));
	KUNIT_EXPECT_FALSE(test, watchpol_rule_ok(&p->post, 1, obj[3]));
	watchpol_policy_free(p);
}

/* Which policies make the post hook evaluate anything (p->posts). */
static void watchpol_test_posts(struct kunit *test)
{
	static const struct {
		const char *text;
		bool posts;
	} cases[] = {
		{ "", false },
		{ "default none\n", false },
		{ "default watcher\npost l1 l2\n", false },
		{ "default schaufler\n", true },
		{ "default strict\n", true },
		{ "default none\nmodel usb strict\n", true },
		/* "other" types, such as devices, take the default. */
		{ "default strict\nmodel key none\nmodel mount none\n"
		  "model sb none\nmodel block none\nmodel usb none\n", true },
		{ "default none\nmodel key watcher\nmodel mount none\n", false },
	};
	struct watchpol_policy *p;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		p = parse_ok(test, cases[i].text);
		KUNIT_EXPECT_EQ_MSG(test, p->posts, cases[i].posts, "%s",
				    cases[i].text);
		watchpol_policy_free(p);
	}
}

static void watchpol_test_rulesets(struct kunit *test)
{
	struct watchpol_policy *p;

	p = parse_ok(test, "post l1 l2\npost alias1 l2\npost l3 l1\npost x l1\nwatch l2 l3\n");
	/* alias1 and l1 are one secid: one pair; x is unknown: inert. */
	KUNIT_EXPECT_EQ(test, p->post.nr, 2U);
	KUNIT_EXPECT_EQ(test, p->watch.nr, 1U);
	KUNIT_EXPECT_EQ(test, p->unresolved, 1U);
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 1, 2));
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 3, 1));
	KUNIT_EXPECT_FALSE(test, watchpol_rule_ok(&p->post, 2, 1));
	KUNIT_EXPECT_FALSE(test, watchpol_rule_ok(&p->post, 2, 3));
	/* Same label, or a side without a label, always passes. */
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 7, 7));
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 0, 7));
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->post, 7, 0));
	/* Post and watch rules are separate. */
	KUNIT_EXPECT_TRUE(test, watchpol_rule_ok(&p->watch, 2, 3));
	KUNIT_EXPECT_FALSE(test, watchpol_rule_ok(&p->watch, 1, 2));
	watchpol_policy_free(p);
}

static void watchpol_test_models(struct kunit *test)
{
	struct watchpol_policy *p;

	p = parse_ok(test, "default watcher\nmodel usb strict\nmodel key none\n");
	KUNIT_EXPECT_EQ(test, watchpol_model_for(p, WATCHPOL_TYPE_KEY),
			WATCHPOL_MODEL_NONE);
	KUNIT_EXPECT_EQ(test, watchpol_model_for(p, WATCHPOL_TYPE_MOUNT),
			WATCHPOL_MODEL_WATCHER);
	KUNIT_EXPECT_EQ(test, watchpol_model_for(p, WATCHPOL_TYPE_USB),
			WATCHPOL_MODEL_STRICT);
	KUNIT_EXPECT_EQ(test, watchpol_model_for(p, WATCHPOL_TYPE_DEVICES),
			WATCHPOL_MODEL_WATCHER);
	KUNIT_EXPECT_EQ(test, watchpol_model_for(p, WATCHPOL_TYPE_OTHER),
			WATCHPOL_MODEL_WATCHER);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(WATCH_TYPE_KEY_NOTIFY),
			WATCHPOL_TYPE_KEY);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(2), WATCHPOL_TYPE_MOUNT);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(3), WATCHPOL_TYPE_SB);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(4), WATCHPOL_TYPE_BLOCK);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(5), WATCHPOL_TYPE_USB);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(WATCH_TYPE_META),
			WATCHPOL_TYPE_OTHER);
	KUNIT_EXPECT_EQ(test, watchpol_record_type(6), WATCHPOL_TYPE_OTHER);
	watchpol_policy_free(p);
}

#define SUBJ(u, e, s, sid) { KUIDT_INIT(u), KUIDT_INIT(e), KUIDT_INIT(s), sid, false }
#define KERNEL_L(sid) { KUIDT_INIT(0), KUIDT_INIT(0), KUIDT_INIT(0), sid, true }
#define KERNEL KERNEL_L(0)
#define DENY_S (WATCHPOL_DENY(WATCHPOL_MODEL_SCHAUFLER) | \
		WATCHPOL_DENY(WATCHPOL_MODEL_STRICT))
#define DENY_W (WATCHPOL_DENY(WATCHPOL_MODEL_WATCHER) | \
		WATCHPOL_DENY(WATCHPOL_MODEL_STRICT))

struct post_case {
	const char *name;
	const char *policy;
	struct watchpol_subj t, w;
	bool cap_kill;
	unsigned int wtype;
	u8 denials;
};

static const struct post_case post_cases[] = {
	/* DAC: kill_ok_by_cred() with T as sender and W as target. */
	{ "same uid", "", SUBJ(1000, 1000, 1000, 0),
	  SUBJ(1000, 1000, 1000, 0), false, 1, 0 },
	{ "T euid = W suid", "", SUBJ(1001, 1000, 1001, 0),
	  SUBJ(2000, 2000, 1000, 0), false, 1, 0 },
	{ "T euid = W uid", "", SUBJ(1001, 1000, 1001, 0),
	  SUBJ(1000, 2000, 2000, 0), false, 1, 0 },
	{ "T uid = W suid", "", SUBJ(1000, 1001, 1001, 0),
	  SUBJ(2000, 2000, 1000, 0), false, 1, 0 },
	{ "T uid = W uid", "", SUBJ(1000, 1001, 1001, 0),
	  SUBJ(1000, 2000, 2000, 0), false, 1, 0 },
	{ "other user", "", SUBJ(1001, 1001, 1001, 0),
	  SUBJ(1000, 1000, 1000, 0), false, 1, DENY_S },
	{ "W euid does not count", "", SUBJ(1001, 1001, 1001, 0),
	  SUBJ(1000, 1001, 1000, 0), false, 1, DENY_S },
	{ "T suid does not count", "", SUBJ(1001, 1001, 1000, 0),
	  SUBJ(1000, 1000, 1000, 0), false, 1, DENY_S },
	{ "other user with CAP_KILL", "", SUBJ(1001, 1001, 1001, 0),
	  SUBJ(1000, 1000, 1000, 0), true, 1, 0 },
	{ "root without CAP_KILL to user", "", SUBJ(0, 0, 0, 0),
	  SUBJ(1000, 1000, 1000, 0), false, 1, DENY_S },
	{ "any type, same rule", "model key none", SUBJ(1001, 1001, 1001, 0),
	  SUBJ(1000, 1000, 1000, 0), false, 5, DENY_S },
	/* Kernel events. */
	{ "kernel, allowed", "", KERNEL, SUBJ(1000, 1000, 1000, 0), false, 1,
	  0 },
	{ "kernel, denied", "kernel_events deny", KERNEL,
	  SUBJ(1000, 1000, 1000, 5), false, 1, DENY_S },
	{ "kernel, denied even to root", "kernel_events deny", KERNEL,
	  SUBJ(0, 0, 0, 0), false, 4, DENY_S },
	/* META records always pass. */
	{ "meta from other user", "", SUBJ(1001, 1001, 1001, 3),
	  SUBJ(1000, 1000, 1000, 4), false, WATCH_TYPE_META, 0 },
	{ "meta from kernel, kernel_events deny", "kernel_events deny",
	  KERNEL, SUBJ(1000, 1000, 1000, 0), false, WATCH_TYPE_META, 0 },
	/* Labels. */
	{ "labels differ, no rule", "", SUBJ(1000, 1000, 1000, 5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, DENY_S },
	{ "labels differ, rule", "post l5 l6", SUBJ(1000, 1000, 1000, 5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "labels differ, reverse rule only", "post l6 l5",
	  SUBJ(1000, 1000, 1000, 5), SUBJ(1000, 1000, 1000, 6), false, 1,
	  DENY_S },
	{ "labels differ, watch rule does not count", "watch l5 l6",
	  SUBJ(1000, 1000, 1000, 5), SUBJ(1000, 1000, 1000, 6), false, 1,
	  DENY_S },
	{ "same label", "", SUBJ(1000, 1000, 1000, 5),
	  SUBJ(1000, 1000, 1000, 5), false, 1, 0 },
	{ "T unlabelled", "", SUBJ(1000, 1000, 1000, 0),
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "W unlabelled", "", SUBJ(1000, 1000, 1000, 5),
	  SUBJ(1000, 1000, 1000, 0), false, 1, 0 },
	{ "rule but DAC fails", "post l5 l6", SUBJ(1001, 1001, 1001, 5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, DENY_S },
	{ "rule and CAP_KILL", "post l5 l6", SUBJ(1001, 1001, 1001, 5),
	  SUBJ(1000, 1000, 1000, 6), true, 1, 0 },
	{ "CAP_KILL does not bypass labels", "", SUBJ(0, 0, 0, 5),
	  SUBJ(1000, 1000, 1000, 6), true, 1, DENY_S },
	{ "rule via alias", "post alias1 l2", SUBJ(7, 7, 7, 1),
	  SUBJ(7, 7, 7, 2), false, 1, 0 },
	/* The kernel is judged by its own label (Smack's rule). */
	{ "kernel unlabelled, labelled W", "", KERNEL,
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "kernel's label, no rule", "", KERNEL_L(5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, DENY_S },
	{ "kernel's label, rule", "post l5 l6", KERNEL_L(5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "kernel's label, rule, kernel_events deny",
	  "post l5 l6\nkernel_events deny", KERNEL_L(5),
	  SUBJ(1000, 1000, 1000, 6), false, 1, DENY_S },
	{ "kernel's label is W's", "", KERNEL_L(6),
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	/* The DAC part and the label part switch separately. */
	{ "post_dac off: other user passes", "post_dac off",
	  SUBJ(1001, 1001, 1001, 0), SUBJ(1000, 1000, 1000, 0), false, 1, 0 },
	{ "post_dac off: labels still apply", "post_dac off",
	  SUBJ(1001, 1001, 1001, 5), SUBJ(1000, 1000, 1000, 6), false, 1,
	  DENY_S },
	{ "post_dac off: kernel_events not consulted",
	  "post_dac off\nkernel_events deny", KERNEL,
	  SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "post_dac off: the kernel's label still needs a rule",
	  "post_dac off", KERNEL_L(5), SUBJ(1000, 1000, 1000, 6), false, 1,
	  DENY_S },
	{ "post_label off: labels ignored", "post_label off",
	  SUBJ(1000, 1000, 1000, 5), SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
	{ "post_label off: DAC still applies", "post_label off",
	  SUBJ(1001, 1001, 1001, 5), SUBJ(1000, 1000, 1000, 5), false, 1,
	  DENY_S },
	{ "both off", "post_label off\npost_dac off\nkernel_events deny",
	  KERNEL_L(5), SUBJ(1000, 1000, 1000, 6), false, 1, 0 },
};

static void post_desc(const struct post_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(post, post_cases, post_desc);

static void watchpol_test_post(struct kunit *test)
{
	const struct post_case *c = test->param_value;
	struct watchpol_post_facts f = {
		.t = &c->t, .w = &c->w, .t_cap_kill = c->cap_kill,
	};
	struct watchpol_policy *p = parse_ok(test, c->policy);

	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, c->wtype, &f),
			c->denials);
	watchpol_policy_free(p);
}

/*
 * The post verdict's two front ends on the same inputs (12-07 review M1):
 * every row of post_cases that a cred can carry (not META, which passes
 * before either, nor a labelled kernel, whose label is init_cred's), with
 * the model in force checking posts.  The full evaluation gives the row's
 * denials; the fast path, once the full one has kept the creds' facts,
 * allows exactly what the full one allows for the model in force (only a
 * subset while CAP_KILL answers cannot be kept).  Each row runs twice:
 * with W the watch's setter, and with "w_creds <type> creator", where the
 * setter is T and the queue's creator is W (queue-passed-to-setter): a
 * fast path that took the setter there would let T's posts through.
 */
static bool post_front_end_case(const struct post_case *c)
{
	return c->wtype != WATCH_TYPE_META && !(c->t.kernel && c->t.sid);
}

static const void *post_front_end_gen_params(const void *prev, char *desc)
{
	const struct post_case *c = prev ? (const struct post_case *)prev + 1 :
					   post_cases;

	for (; c < post_cases + ARRAY_SIZE(post_cases); c++) {
		if (post_front_end_case(c)) {
			post_desc(c, desc);
			return c;
		}
	}
	return NULL;
}

/* A cred with @s's uids and secid (kept, as cred_sid() keeps it). */
static struct cred *post_test_cred(struct kunit *test,
				   const struct watchpol_subj *s, bool cap_kill)
{
	struct cred *cred;

	if (s->kernel)
		return (struct cred *)&init_cred;
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cred->uid = s->uid;
	cred->euid = s->euid;
	cred->suid = s->suid;
	cred->fsuid = s->euid;
	cred->cap_effective = cap_kill ? CAP_FULL_SET : CAP_EMPTY_SET;
	watchpol_test_cred_sid(cred, s->sid);
	return cred;
}

static void post_test_put(struct cred *cred)
{
	if (cred != &init_cred)
		put_cred(cred);
}

static void post_front_ends_agree(struct kunit *test,
				  const struct post_case *c, bool creator)
{
	int type = watchpol_record_type(c->wtype);
	struct cred *t_cred = post_test_cred(test, &c->t, c->cap_kill);
	struct cred *w_cred = post_test_cred(test, &c->w, false);
	struct watch_queue *wqueue = kunit_kzalloc(test, sizeof(*wqueue),
						   GFP_KERNEL);
	struct watch *watch = kunit_kzalloc(test, sizeof(*watch), GFP_KERNEL);
	struct watchpol_policy *p;
	bool fast, allowed;
	char *text;
	u8 full;

	KUNIT_ASSERT_NOT_NULL(test, wqueue);
	KUNIT_ASSERT_NOT_NULL(test, watch);
	text = kasprintf(GFP_KERNEL, "default strict\n%s\n%s%s%s", c->policy,
			 creator ? "w_creds " : "",
			 creator ? watchpol_type_names[type] : "",
			 creator ? " creator\n" : "");
	KUNIT_ASSERT_NOT_NULL(test, text);
	p = parse_ok(test, text);
	kfree(text);
	/* creator: T set the watch on a queue W created and passed it. */
	wqueue->cred = w_cred;
	RCU_INIT_POINTER(watch->queue, wqueue);
	watch->cred = creator ? t_cred : w_cred;

	full = watchpol_test_post_full(p, watch, t_cred, type);
	KUNIT_EXPECT_EQ_MSG(test, full, c->denials, "%s", creator ? "creator" :
								"setter");
	allowed = !(full & WATCHPOL_DENY(watchpol_model_for(p, type)));
	fast = watchpol_test_post_fast(p, watch, t_cred, type);
	KUNIT_EXPECT_TRUE_MSG(test, !fast || allowed,
			      "the fast path allowed what the full one denies (%s)",
			      creator ? "creator" : "setter");
	if (watchpol_test_cap_kill_kept())
		KUNIT_EXPECT_EQ_MSG(test, fast, allowed,
				    "the front ends disagree with every fact kept (%s)",
				    creator ? "creator" : "setter");
	watchpol_policy_free(p);
	post_test_put(t_cred);
	post_test_put(w_cred);
}

static void watchpol_test_post_front_ends(struct kunit *test)
{
	const struct post_case *c = test->param_value;

	/* Built in but not in lsm=: no cred has watchpol's blob. */
	if (!watchpol_enabled)
		kunit_skip(test, "watchpol is not enabled (lsm=)");
	post_front_ends_agree(test, c, false);
	post_front_ends_agree(test, c, true);
}

/* Secids 7 and 9 are aliases of 3 (one context, three secids), 5 of 4. */
static int fake_canon(u32 secid, u32 *canon)
{
	switch (secid) {
	case 7:
	case 9:
		*canon = 3;
		return 0;
	case 5:
		*canon = 4;
		return 0;
	case 11:
		return -EINVAL;
	}
	*canon = secid;
	return 0;
}

/*
 * A rule names a context; a subject holding any alias of it matches, and
 * two aliases of one context are the same label.  Without the alias table
 * every one of these is denied.
 */
static void watchpol_test_aliases(struct kunit *test)
{
	struct watchpol_policy *p = parse_ok(test,
		"default strict\npost_dac off\npost l3 l4\nwatch l4 l3\n");
	struct watchpol_subj t = { .sid = 7 }, w = { .sid = 5 };
	struct watchpol_post_facts f = { .t = &t, .w = &w };
	struct watchpol_watch_facts wf = { .w = &w, .o_sid = 9,
					   .visible = true };

	KUNIT_EXPECT_NE(test, watchpol_post_denials(p, 2, &f), 0);
	watchpol_policy_canon(p, fake_canon);
	KUNIT_EXPECT_EQ(test, p->canon[7], 3U);
	KUNIT_EXPECT_EQ(test, p->canon[3], 0U);
	KUNIT_EXPECT_EQ(test, p->canon[11], 0U);
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 2, &f), 0);
	KUNIT_EXPECT_EQ(test, watchpol_watch_denials(p, &wf), 0);
	/* Same label through two aliases, no rule needed. */
	t.sid = 9;
	w.sid = 7;
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 2, &f), 0);
	/* The reverse pair still needs its own rule. */
	t.sid = 5;
	KUNIT_EXPECT_NE(test, watchpol_post_denials(p, 2, &f), 0);
	/* Secids past the alias range are taken as they are. */
	t.sid = WATCHPOL_ALIAS_SIDS + 3;
	w.sid = 4;
	KUNIT_EXPECT_NE(test, watchpol_post_denials(p, 2, &f), 0);
	watchpol_policy_free(p);
}

struct watch_case {
	const char *name;
	const char *policy;
	u32 w_sid, o_sid;
	bool visible, system_wide;
	u8 denials;
};

static const struct watch_case watch_cases[] = {
	{ "visible, no labels", "", 0, 0, true, false, 0 },
	{ "not visible", "", 0, 0, false, false, DENY_W },
	{ "not visible, labels match", "", 3, 3, false, false, DENY_W },
	{ "labels differ, no rule", "", 3, 4, true, false, DENY_W },
	{ "labels differ, rule", "watch l3 l4", 3, 4, true, false, 0 },
	{ "labels differ, reverse rule", "watch l4 l3", 3, 4, true, false,
	  DENY_W },
	{ "post rule does not count", "post l3 l4", 3, 4, true, false,
	  DENY_W },
	{ "same label", "", 3, 3, true, false, 0 },
	{ "object unlabelled", "", 3, 0, true, false, 0 },
	{ "devices are system-wide", "", 3, 4, false, true, 0 },
};

static void watch_desc(const struct watch_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(watch, watch_cases, watch_desc);

static void watchpol_test_watch(struct kunit *test)
{
	const struct watch_case *c = test->param_value;
	struct watchpol_subj w = SUBJ(1000, 1000, 1000, c->w_sid);
	struct watchpol_watch_facts f = {
		.w = &w, .o_sid = c->o_sid, .visible = c->visible,
		.system_wide = c->system_wide,
	};
	struct watchpol_policy *p = parse_ok(test, c->policy);

	KUNIT_EXPECT_EQ(test, watchpol_watch_denials(p, &f), c->denials);
	watchpol_policy_free(p);
}

static bool enforced_deny(const struct watchpol_policy *p, unsigned int wtype,
			  const struct watchpol_post_facts *f)
{
	u8 model = watchpol_model_for(p, watchpol_record_type(wtype));

	return watchpol_post_denials(p, wtype, f) & WATCHPOL_DENY(model);
}

/*
 * recheck: a watcher that may no longer observe the object is refused by
 * the models that judge W against O (watcher, strict), on top of what the
 * post check says; without "recheck on" the fact is ignored.
 */
static void watchpol_test_recheck(struct kunit *test)
{
	struct watchpol_subj t = SUBJ(0, 0, 0, 0);
	struct watchpol_subj w = SUBJ(1000, 1000, 1000, 0);
	struct watchpol_subj other = SUBJ(1001, 1001, 1001, 0);
	struct watchpol_post_facts f = {
		.t = &t, .w = &w, .t_cap_kill = true, .w_blind = true,
	};
	struct watchpol_policy *p;

	p = parse_ok(test, "");
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 1, &f), 0);
	watchpol_policy_free(p);

	p = parse_ok(test, "recheck on\n");
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 1, &f),
			WATCHPOL_DENY(WATCHPOL_MODEL_WATCHER) |
			WATCHPOL_DENY(WATCHPOL_MODEL_STRICT));
	/* META records still pass. */
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, WATCH_TYPE_META, &f), 0);
	/* Blind and refused by the DAC part: both verdicts add up. */
	f.t = &other;
	f.t_cap_kill = false;
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 1, &f),
			WATCHPOL_DENY(WATCHPOL_MODEL_WATCHER) | DENY_S);
	/* Not blind: the post check alone. */
	f.w_blind = false;
	KUNIT_EXPECT_EQ(test, watchpol_post_denials(p, 1, &f), DENY_S);
	watchpol_policy_free(p);
}

/* W is the creator only for the types a w_creds line names so. */
static void watchpol_test_w_creds(struct kunit *test)
{
	struct watchpol_policy *p;
	int type;

	p = parse_ok(test, "w_creds key creator\nw_creds sb setter\n");
	for (type = 0; type <= WATCHPOL_TYPE_OTHER; type++)
		KUNIT_EXPECT_EQ(test, watchpol_w_is_creator(p, type),
				type == WATCHPOL_TYPE_KEY);
	watchpol_policy_free(p);
}

/* The model in force for the type picks the enforced verdict. */
static void watchpol_test_per_type(struct kunit *test)
{
	struct watchpol_subj t = SUBJ(1001, 1001, 1001, 0);
	struct watchpol_subj w = SUBJ(1000, 1000, 1000, 0);
	struct watchpol_post_facts f = { .t = &t, .w = &w };
	struct watchpol_policy *p;

	p = parse_ok(test, "default schaufler\nmodel key watcher\nmodel usb strict\n");
	KUNIT_EXPECT_FALSE(test, enforced_deny(p, WATCH_TYPE_KEY_NOTIFY, &f));
	KUNIT_EXPECT_TRUE(test, enforced_deny(p, 5, &f));
	KUNIT_EXPECT_TRUE(test, enforced_deny(p, 2, &f));
	/* Unknown record types follow the default. */
	KUNIT_EXPECT_TRUE(test, enforced_deny(p, 9, &f));
	watchpol_policy_free(p);
}

static void watchpol_test_log_ring(struct kunit *test)
{
	struct watchpol_log_slot *slots;
	struct watchpol_decision d = {}, out;
	struct watchpol_log *log;
	int i;

	/* Four slots and a guard after them, which the log never touches. */
	slots = kunit_kcalloc(test, 5, sizeof(*slots), GFP_KERNEL);
	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	KUNIT_ASSERT_NOT_NULL(test, log);
	slots[4].seq = ULONG_MAX;
	watchpol_log_init(log, slots, 4);
	KUNIT_EXPECT_EQ(test, slots[4].seq, ULONG_MAX);

	mutex_lock(&log->read_lock);
	KUNIT_EXPECT_FALSE(test, watchpol_log_peek(log, &out));
	for (i = 0; i < 4; i++) {
		d.seq = i + 1;
		KUNIT_EXPECT_TRUE(test, watchpol_log_put(log, &d));
	}
	/* Full: the newest records stay, the oldest are overwritten. */
	for (i = 4; i < 6; i++) {
		d.seq = i + 1;
		KUNIT_EXPECT_TRUE(test, watchpol_log_put(log, &d));
	}
	KUNIT_EXPECT_EQ(test, atomic_long_read(&log->recorded), 6L);
	KUNIT_EXPECT_EQ(test, watchpol_log_dropped(log), 2UL);

	/* Peeking does not consume; the oldest left is record 3. */
	KUNIT_ASSERT_TRUE(test, watchpol_log_peek(log, &out));
	KUNIT_EXPECT_EQ(test, out.seq, 3ULL);
	KUNIT_ASSERT_TRUE(test, watchpol_log_peek(log, &out));
	KUNIT_EXPECT_EQ(test, out.seq, 3ULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&log->dropped), 2L);
	watchpol_log_consume(log);
	d.seq = 7;
	KUNIT_EXPECT_TRUE(test, watchpol_log_put(log, &d));

	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_TRUE(test, watchpol_log_peek(log, &out));
		KUNIT_EXPECT_EQ(test, out.seq, i + 4ULL);
		watchpol_log_consume(log);
	}
	KUNIT_EXPECT_FALSE(test, watchpol_log_peek(log, &out));
	KUNIT_EXPECT_EQ(test, watchpol_log_dropped(log), 2UL);

	/* A writer that finds its slot still being written drops its own. */
	i = log->mask & atomic_long_read(&log->head);
	slots[i].seq |= 1;
	d.seq = 8;
	KUNIT_EXPECT_FALSE(test, watchpol_log_put(log, &d));
	KUNIT_EXPECT_FALSE(test, watchpol_log_peek(log, &out));
	slots[i].seq &= ~1UL;
	/* Its position is skipped, and counted, once a lap has passed it. */
	for (i = 0; i < 4; i++) {
		d.seq = 9 + i;
		KUNIT_EXPECT_TRUE(test, watchpol_log_put(log, &d));
	}
	KUNIT_ASSERT_TRUE(test, watchpol_log_peek(log, &out));
	KUNIT_EXPECT_EQ(test, out.seq, 9ULL);
	KUNIT_EXPECT_EQ(test, watchpol_log_dropped(log), 3UL);
	for (i = 0; i < 4; i++)
		watchpol_log_consume(log);
	KUNIT_EXPECT_FALSE(test, watchpol_log_peek(log, &out));

	/* Wrap around many times. */
	for (i = 0; i < 100; i++) {
		d.seq = 100 + i;
		KUNIT_EXPECT_TRUE(test, watchpol_log_put(log, &d));
		KUNIT_ASSERT_TRUE(test, watchpol_log_peek(log, &out));
		KUNIT_EXPECT_EQ(test, out.seq, 100ULL + i);
		watchpol_log_consume(log);
	}
	KUNIT_EXPECT_EQ(test, slots[4].seq, ULONG_MAX);
	mutex_unlock(&log->read_lock);
}

static void watchpol_test_log_format(struct kunit *test)
{
	struct watchpol_decision d = {
		.seq = 42, .w_uid = 1000, .t_uid = 1001,
		.hook = WATCHPOL_HOOK_POST, .type = WATCHPOL_TYPE_KEY,
		.subtype = 3, .denials = DENY_S,
		.model = WATCHPOL_MODEL_STRICT,
		.flags = WATCHPOL_DEC_DENIED,
	};
	char *buf = kunit_kzalloc(test, 512, GFP_KERNEL);
	int n;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	n = watchpol_log_format(&d, buf, 512);
	KUNIT_EXPECT_EQ(test, n, (int)strlen(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "seq=42 hook=post_notification type=key subtype=3 w_uid=1000 w_label=- t_uid=1001 t_label=- o_label=- none=allow watcher=allow schaufler=deny strict=deny model=strict verdict=deny result=allow enforce=0\n");

	/* The W choice and a failed re-check are named when they apply. */
	d.flags |= WATCHPOL_DEC_W_CREATOR | WATCHPOL_DEC_W_BLIND;
	n = watchpol_log_format(&d, buf, 512);
	KUNIT_EXPECT_EQ(test, n, (int)strlen(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "seq=42 hook=post_notification type=key subtype=3 w_uid=1000 w_label=- t_uid=1001 t_label=- o_label=- none=allow watcher=allow schaufler=deny strict=deny model=strict verdict=deny result=allow enforce=0 w=creator recheck=deny\n");
}

/* A policy, its end line, and what it must load as. */
static const char load_text[] =
	"# a comment line long enough to be cut in the middle\n"
	"default strict\n"
	"model key none\n"
	"kernel_events deny\n"
	"post l5 l6\n"
	"end\n";

/*
 * Feed @text to a loader in chunks of @chunk bytes: 1 once complete, 0
 * while not, or the first error (@err says why when it is -EINVAL).
 */
static int feed_err(struct watchpol_load *l, const char *text, size_t len,
		    size_t chunk, struct watchpol_parse_error *err)
{
	size_t pos, n;
	char *dst;
	int ret = 0;

	for (pos = 0; pos < len; pos += n) {
		n = min(chunk, len - pos);
		ret = watchpol_load_reserve(l, n, GFP_KERNEL, &dst);
		if (ret)
			return ret;
		memcpy(dst, text + pos, n);
		ret = watchpol_load_append(l, n, err);
		if (ret < 0)
			return ret;
	}
	return ret;
}

static int feed(struct kunit *test, struct watchpol_load *l, const char *text,
		size_t len, size_t chunk)
{
	struct watchpol_parse_error err = {};

	return feed_err(l, text, len, chunk, &err);
}

/* Any chunk size: complete exactly at the end line, same text as one write. */
static void watchpol_test_load_chunks(struct kunit *test)
{
	static const size_t chunks[] = { 1, 2, 3, 7, 16, 4096, 65536 };
	size_t len = strlen(load_text);
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	int i;

	for (i = 0; i < ARRAY_SIZE(chunks); i++) {
		struct watchpol_load l = {};

		KUNIT_EXPECT_EQ_MSG(test, feed(test, &l, load_text, len,
					       chunks[i]), 1,
				    "chunk %zu", chunks[i]);
		KUNIT_EXPECT_EQ(test, l.state, WATCHPOL_LOAD_COMPLETE);
		KUNIT_EXPECT_EQ(test, l.len, len);
		KUNIT_EXPECT_TRUE(test, l.len == len &&
				  !memcmp(l.buf, load_text, len));
		p = watchpol_policy_parse(l.buf, l.len, fake_resolve, &err);
		KUNIT_EXPECT_FALSE(test, IS_ERR(p));
		if (!IS_ERR(p)) {
			KUNIT_EXPECT_STREQ(test, p->text,
					   "default strict\nmodel key none\nenforce 1\n"
					   "kernel_events deny\npost l5 l6\n");
			watchpol_policy_free(p);
		}
		watchpol_load_finish(&l);
	}
}

/* Every proper prefix, cut anywhere, leaves the loader waiting. */
static void watchpol_test_load_prefixes(struct kunit *test)
{
	size_t len = strlen(load_text), cut;

	for (cut = 0; cut < len; cut++) {
		struct watchpol_load l = {};

		KUNIT_EXPECT_EQ_MSG(test, feed(test, &l, load_text, cut, 5), 0,
				    "cut at %zu", cut);
		KUNIT_EXPECT_EQ(test, l.state, WATCHPOL_LOAD_OPEN);
		watchpol_load_finish(&l);
	}
}

/* Zero-length writes, writes after the end, the size limit, end lines. */
static void watchpol_test_load_states(struct kunit *test)
{
	struct watchpol_parse_error err = {};
	struct watchpol_load l = {};
	char *dst = NULL;
	size_t max = WATCHPOL_MAX_POLICY;

	KUNIT_EXPECT_EQ(test, watchpol_load_reserve(&l, 0, GFP_KERNEL, &dst),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, l.state, WATCHPOL_LOAD_OPEN);
	KUNIT_EXPECT_EQ(test, feed(test, &l, "default none\n", 13, 4), 0);
	KUNIT_EXPECT_EQ(test, watchpol_load_reserve(&l, 0, GFP_KERNEL, &dst),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, l.len, 13U);
	/* Text after the end line in the same write belongs to the text. */
	KUNIT_EXPECT_EQ(test, feed(test, &l, "end\n# x\n", 8, 8), 1);
	KUNIT_EXPECT_EQ(test, l.len, 21U);
	/* And in later writes, until the file is closed. */
	KUNIT_EXPECT_EQ(test, feed(test, &l, "\t\n#y\n", 5, 5), 1);
	KUNIT_EXPECT_EQ(test, l.state, WATCHPOL_LOAD_COMPLETE);
	watchpol_load_finish(&l);
	KUNIT_EXPECT_EQ(test, watchpol_load_reserve(&l, 1, GFP_KERNEL, &dst),
			-EBADFD);

	/* Exactly the limit fits; one byte more abandons the load. */
	l = (struct watchpol_load){};
	KUNIT_EXPECT_EQ(test, watchpol_load_reserve(&l, max, GFP_KERNEL, &dst),
			0);
	memset(dst, '#', max);
	KUNIT_EXPECT_EQ(test, watchpol_load_append(&l, max, &err), 0);
	KUNIT_EXPECT_EQ(test, watchpol_load_reserve(&l, 1, GFP_KERNEL, &dst),
			-EFBIG);
	KUNIT_EXPECT_EQ(test, l.state, WATCHPOL_LOAD_DONE);
	KUNIT_EXPECT_NULL(test, l.buf);
	watchpol_load_finish(&l);

	KUNIT_EXPECT_TRUE(test, watchpol_is_end_line("end", 3));
	KUNIT_EXPECT_TRUE(test, watchpol_is_end_line(" \tend # c", 9));
	KUNIT_EXPECT_TRUE(test, watchpol_is_end_line("end now", 7));
	KUNIT_EXPECT_FALSE(test, watchpol_is_end_line("ending", 6));
	KUNIT_EXPECT_FALSE(test, watchpol_is_end_line("# end", 5));
	KUNIT_EXPECT_FALSE(test, watchpol_is_end_line("post end x", 10));
	KUNIT_EXPECT_FALSE(test, watchpol_is_end_line("en", 2));
}

/*
 * Text after the end line: one rule, whatever the writes.  Each text is
 * cut in two at every byte, then fed a byte and a line at a time; the
 * loader's verdict (and the line it names) must be the same every time,
 * and the one the parser gives the whole text.
 */
static const struct {
	const char *text;
	unsigned int line;	/* 0: loads */
	const char *reason;
} after_end[] = {
	{ "default none\nend\ndefault strict\nkernel_events deny\nend\n", 3,
	  "statement after end" },
	{ "default strict\nend\n\n  # trailing\n\t#\n# x y z\n", 0, NULL },
	{ "default strict\nend # c\n\t\n#\nenforce 0\n", 5,
	  "statement after end" },
	{ "default strict\nend\nend\n", 3, "statement after end" },
	{ "default strict\nend\n# ok\n\x01\n", 4, "invalid character" },
	{ "default strict\nend\n  x", 3, "statement after end" },
};

static void split_verdict(struct kunit *test, int i, size_t cut, size_t chunk)
{
	const char *text = after_end[i].text;
	size_t len = strlen(text);
	struct watchpol_parse_error err = {};
	struct watchpol_load l = {};
	int ret;

	ret = feed_err(&l, text, cut, chunk, &err);
	if (ret >= 0 && cut < len)
		ret = feed_err(&l, text + cut, len - cut, chunk, &err);
	if (!after_end[i].line) {
		KUNIT_EXPECT_EQ_MSG(test, ret, 1, "text %d cut at %zu chunk %zu",
				    i, cut, chunk);
	} else {
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL,
				    "text %d cut at %zu chunk %zu", i, cut,
				    chunk);
		KUNIT_EXPECT_EQ_MSG(test, err.line, after_end[i].line,
				    "text %d cut at %zu chunk %zu", i, cut,
				    chunk);
		KUNIT_EXPECT_STREQ_MSG(test, err.reason ?: "", after_end[i].reason,
				       "text %d cut at %zu chunk %zu", i, cut,
				       chunk);
	}
	watchpol_load_finish(&l);
}

static void watchpol_test_load_after_end(struct kunit *test)
{
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	size_t cut, len;
	int i;

	for (i = 0; i < ARRAY_SIZE(after_end); i++) {
		len = strlen(after_end[i].text);
		/* The parser's verdict on the whole text is the same. */
		p = watchpol_policy_parse(after_end[i].text, len, fake_resolve,
					  &err);
		if (after_end[i].line) {
			KUNIT_EXPECT_TRUE(test, IS_ERR(p));
			KUNIT_EXPECT_EQ(test, err.line, after_end[i].line);
		} else {
			KUNIT_EXPECT_FALSE(test, IS_ERR(p));
		}
		if (!IS_ERR(p))
			watchpol_policy_free(p);
		for (cut = 0; cut <= len; cut++)
			split_verdict(test, i, cut, len);
		split_verdict(test, i, len, 1);
		split_verdict(test, i, len, 7);
	}
}

/* A bad watchpol.model= fails safe to strict, never to none. */
static void watchpol_test_boot_policy(struct kunit *test)
{
	static const struct {
		const char *models;
		bool bad;
		const char *text;
	} cases[] = {
		{ "none", false, "default none\n" BASE_TAIL },
		{ "strict,key:watcher,,usb:none", false,
		  "default strict\nmodel key watcher\nmodel usb none\n" BASE_TAIL },
		{ "stirct", true,
		  "default strict\nenforce 1\nkernel_events deny\n" },
		{ "watcher,key:bogus", true,
		  "default strict\nenforce 1\nkernel_events deny\n" },
		{ "key", true, "default strict\nenforce 1\nkernel_events deny\n" },
		{ "a:b:c", true, "default strict\nenforce 1\nkernel_events deny\n" },
		/* An empty value (an unset template variable) is no model. */
		{ "", true, "default strict\nenforce 1\nkernel_events deny\n" },
		{ ",", true, "default strict\nenforce 1\nkernel_events deny\n" },
	};
	struct watchpol_parse_error err;
	struct watchpol_policy *p;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		p = watchpol_boot_policy(cases[i].models, true, fake_resolve,
					 &err);
		KUNIT_ASSERT_FALSE(test, IS_ERR(p));
		KUNIT_EXPECT_EQ_MSG(test, !!err.reason, cases[i].bad,
				    "%s", cases[i].models);
		KUNIT_EXPECT_STREQ_MSG(test, p->text, cases[i].text, "%s",
				       cases[i].models);
		watchpol_policy_free(p);
	}
	p = watchpol_boot_policy("bogus", false, fake_resolve, &err);
	KUNIT_ASSERT_FALSE(test, IS_ERR(p));
	KUNIT_EXPECT_STREQ(test, p->text,
			   "default strict\nenforce 0\nkernel_events deny\n");
	watchpol_policy_free(p);
}

/*
 * Which LSMs' capable answers watchpol may cache (interop.c): every LSM ID
 * of 6.12's uapi/linux/lsm.h, each with the fact it was checked against.
 * An LSM wrongly trusted lets a CAP_KILL its policy revoked stay cached in
 * a triggerer's cred; one wrongly distrusted only costs the cache.
 */
static const struct {
	u64 id;
	bool follows;
} lsm_capable_cases[] = {
	{ LSM_ID_CAPABILITY, true },	/* reads the cred */
	{ LSM_ID_SELINUX, true },	/* changes with a policy load */
	{ LSM_ID_SMACK, true },		/* no capable hook */
	{ LSM_ID_TOMOYO, true },	/* no capable hook */
	{ LSM_ID_APPARMOR, false },	/* profile replacement, no notifier */
	{ LSM_ID_YAMA, true },
	{ LSM_ID_LOADPIN, true },
	{ LSM_ID_SAFESETID, false },	/* policy writes, no notifier */
	{ LSM_ID_LOCKDOWN, true },
	{ LSM_ID_BPF, false },		/* programs attach at will */
	{ LSM_ID_LANDLOCK, true },
	{ LSM_ID_IMA, true },
	{ LSM_ID_EVM, true },
	{ LSM_ID_IPE, true },
	{ LSM_ID_WATCHPOL, true },
	{ LSM_ID_UNDEF, false },
	{ 999, false },			/* an LSM of a later kernel */
};

static void watchpol_test_capable_trust(struct kunit *test)
{
	size_t i;
	u64 id;

	for (i = 0; i < ARRAY_SIZE(lsm_capable_cases); i++) {
		id = lsm_capable_cases[i].id;
		KUNIT_EXPECT_EQ_MSG(test,
				    watchpol_lsm_id_capable_follows_policy(id),
				    lsm_capable_cases[i].follows, "LSM ID %llu",
				    id);
	}
}

static struct kunit_case watchpol_test_cases[] = {
	KUNIT_CASE_PARAM(watchpol_test_parse_valid, parse_valid_gen_params),
	KUNIT_CASE_PARAM(watchpol_test_parse_invalid,
			 parse_invalid_gen_params),
	KUNIT_CASE(watchpol_test_parse_limits),
	KUNIT_CASE(watchpol_test_canonical_limit),
	KUNIT_CASE(watchpol_test_rulesets),
	KUNIT_CASE(watchpol_test_rule_collisions),
	KUNIT_CASE(watchpol_test_posts),
	KUNIT_CASE(watchpol_test_models),
	KUNIT_CASE_PARAM(watchpol_test_post, post_gen_params),
	KUNIT_CASE_PARAM(watchpol_test_post_front_ends,
			 post_front_end_gen_params),
	KUNIT_CASE_PARAM(watchpol_test_watch, watch_gen_params),
	KUNIT_CASE(watchpol_test_per_type),
	KUNIT_CASE(watchpol_test_recheck),
	KUNIT_CASE(watchpol_test_w_creds),
	KUNIT_CASE(watchpol_test_aliases),
	KUNIT_CASE(watchpol_test_log_ring),
	KUNIT_CASE(watchpol_test_log_format),
	KUNIT_CASE(watchpol_test_load_chunks),
	KUNIT_CASE(watchpol_test_load_prefixes),
	KUNIT_CASE(watchpol_test_load_states),
	KUNIT_CASE(watchpol_test_load_after_end),
	KUNIT_CASE(watchpol_test_boot_policy),
	KUNIT_CASE(watchpol_test_capable_trust),
	{}
};

static struct kunit_suite watchpol_test_suite = {
	.name = "watchpol",
	.test_cases = watchpol_test_cases,
};

kunit_test_suite(watchpol_test_suite);
