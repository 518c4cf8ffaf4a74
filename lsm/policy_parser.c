// SPDX-License-Identifier: GPL-2.0
/*
 * watchpol - policy parser.
 *
 * A policy is line-oriented text:
 *
 *	default <model>
 *	model <type> <model>
 *	enforce 0|1
 *	kernel_events allow|deny
 *	post_dac on|off
 *	post_label on|off
 *	w_creds <type> setter|creator
 *	recheck on|off
 *	post <triggerer-label> <watcher-label>
 *	watch <watcher-label> <object-label>
 *	end
 *
 * It is parsed whole into a struct watchpol_policy; the first bad line makes
 * the whole text rejected.  Label rules are resolved to secids at load time
 * and stored as hash tables of 64-bit (subject << 32 | object) keys, so a
 * lookup on the notification hot path is O(1) in the number of rules, with
 * no locking, no allocation and no string handling.  The parser also
 * produces the canonical text that watchpol/policy reads back.
 */

#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/string_choices.h>

#include "policy.h"
#include "policy_parser.h"

enum { WATCHPOL_RULE_POST, WATCHPOL_RULE_WATCH };

static const char *const rule_kind_names[] = {
	[WATCHPOL_RULE_POST]	= "post",
	[WATCHPOL_RULE_WATCH]	= "watch",
};

/* A label rule while parsing: the text form plus its resolved secids. */
struct parse_rule {
	struct watchpol_text_rule r;
	u32 ssid, osid;
};

static int lookup_name(const char *const *names, int nr, const char *s)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Split a line in place into at most @max tokens; '#' starts a comment. */
static int tokenise(char *line, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (is_blank(*line))
			line++;
		if (!*line || *line == '#')
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = line;
		while (*line && !is_blank(*line))
			line++;
		if (*line)
			*line++ = '\0';
	}
}

static int cmp_rule(const void *a, const void *b)
{
	const struct parse_rule *x = a, *y = b;
	int r;

	if (x->r.kind != y->r.kind)
		return x->r.kind < y->r.kind ? -1 : 1;
	r = strcmp(x->r.subj, y->r.subj);
	if (r)
		return r;
	return strcmp(x->r.obj, y->r.obj);
}

/*
 * Put the resolved pairs of one kind in an open-addressed table twice
 * their number in size (duplicates, two labels resolving to one secid,
 * are stored once).  Built once per load or re-resolution, never on the
 * hot path.
 */
static int build_ruleset(struct watchpol_ruleset *rs,
			 const struct parse_rule *rules, u32 nr, u8 kind)
{
	u32 i, n = 0, slot;
	u64 key;

	for (i = 0; i < nr; i++)
		if (rules[i].r.kind == kind && rules[i].ssid && rules[i].osid)
			n++;
	rs->nr = 0;
	rs->mask = 0;
	rs->slots = NULL;
	if (!n)
		return 0;
	rs->mask = roundup_pow_of_two(2 * n) - 1;
	rs->slots = kvcalloc(rs->mask + 1, sizeof(*rs->slots), GFP_KERNEL);
	if (!rs->slots)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (rules[i].r.kind != kind || !rules[i].ssid || !rules[i].osid)
			continue;
		key = watchpol_rule_key(rules[i].ssid, rules[i].osid);
		for (slot = watchpol_rule_slot(rs, key); rs->slots[slot];
		     slot = (slot + 1) & rs->mask)
			if (rs->slots[slot] == key)
				break;
		if (!rs->slots[slot]) {
			rs->slots[slot] = key;
			rs->nr++;
		}
	}
	return 0;
}

/* Produce the canonical text: settings in a fixed order, rules sorted. */
static int build_text(struct watchpol_policy *p)
{
	size_t size = 0, pos = 0;
	u32 i;
	int t;

	/* Each line: its words, one space between words, one newline. */
	size += strlen("default") + 2 +
		strlen(watchpol_model_names[p->default_model]);
	for (t = 0; t < WATCHPOL_TYPE__NR; t++)
		if (p->type_set & BIT(t))
			size += strlen("model") + 3 +
				strlen(watchpol_type_names[t]) +
				strlen(watchpol_model_names[p->type_model[t]]);
	size += strlen("enforce 0\n") + strlen("kernel_events allow\n");
	if (p->set_post_dac)
		size += strlen("post_dac off\n");
	if (p->set_post_label)
		size += strlen("post_label off\n");
	for (t = 0; t < WATCHPOL_TYPE__NR; t++)
		if (p->w_set & BIT(t))
			size += strlen("w_creds  creator\n") +
				strlen(watchpol_type_names[t]);
	if (p->set_recheck)
		size += strlen("recheck off\n");
	for (i = 0; i < p->nr_text_rules; i++)
		size += strlen(rule_kind_names[p->text_rules[i].kind]) +
			strlen(p->text_rules[i].subj) +
			strlen(p->text_rules[i].obj) + 3;

	p->text = kvmalloc(size + 1, GFP_KERNEL);
	if (!p->text)
		return -ENOMEM;

	pos += scnprintf(p->text + pos, size + 1 - pos, "default %s\n",
			 watchpol_model_names[p->default_model]);
	for (t = 0; t < WATCHPOL_TYPE__NR; t++)
		if (p->type_set & BIT(t))
			pos += scnprintf(p->text + pos, size + 1 - pos,
					 "model %s %s\n",
					 watchpol_type_names[t],
					 watchpol_model_names[p->type_model[t]]);
	pos += scnprintf(p->text + pos, size + 1 - pos,
			 "enforce %d\nkernel_events %s\n", p->enforce,
			 p->kernel_events ? "allow" : "deny");
	if (p->set_post_dac)
		pos += scnprintf(p->text + pos, size + 1 - pos,
				 "post_dac %s\n", str_on_off(p->post_dac));
	if (p->set_post_label)
		pos += scnprintf(p->text + pos, size + 1 - pos,
				 "post_label %s\n", str_on_off(p->post_label));
	for (t = 0; t < WATCHPOL_TYPE__NR; t++)
		if (p->w_set & BIT(t))
			pos += scnprintf(p->text + pos, size + 1 - pos,
					 "w_creds %s %s\n",
					 watchpol_type_names[t],
					 p->w_creator & BIT(t) ? "creator" :
								 "setter");
	if (p->set_recheck)
		pos += scnprintf(p->text + pos, size + 1 - pos,
				 "recheck %s\n", str_on_off(p->recheck));
	for (i = 0; i < p->nr_text_rules; i++)
		pos += scnprintf(p->text + pos, size + 1 - pos, "%s %s %s\n",
				 rule_kind_names[p->text_rules[i].kind],
				 p->text_rules[i].subj, p->text_rules[i].obj);
	p->text_len = pos;
	return 0;
}

/* Reject control characters and non-ASCII bytes, including NUL. */
static unsigned int bad_char_line(const char *s, size_t len)
{
	unsigned int line = 1;
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '\n')
			line++;
		else if (c != '\t' && (c < 0x20 || c > 0x7e))
			return line;
	}
	return 0;
}

/* "<switch> on|off" (post_dac, post_label, recheck): at most once. */
static const char *parse_switch(char **tok, int n, bool *set, bool *val)
{
	if (n != 2)
		return n < 2 ? "on/off switch: missing value" :
			       "on/off switch: trailing text";
	if (strcmp(tok[1], "on") && strcmp(tok[1], "off"))
		return "on/off switch: expected on or off";
	if (*set)
		return "on/off switch: set twice";
	*set = true;
	*val = !strcmp(tok[1], "on");
	return NULL;
}

static const char *parse_line(struct watchpol_policy *p, char *line,
			      struct parse_rule *rules, u32 max_rules,
			      u32 *nr_rules, watchpol_resolve_t resolve)
{
	char *tok[3];
	int n, m, t, kind;

	n = tokenise(line, tok, ARRAY_SIZE(tok));
	if (!n)
		return NULL;
	if (p->set_end)
		return "statement after end";

	if (!strcmp(tok[0], "end")) {
		if (n != 1)
			return "end: trailing text";
		p->set_end = true;
		return NULL;
	}

	if (!strcmp(tok[0], "default")) {
		if (n != 2)
			return n < 2 ? "default: missing model" :
				       "default: trailing text";
		m = lookup_name(watchpol_model_names, WATCHPOL_MODEL__NR,
				tok[1]);
		if (m < 0)
			return "default: unknown model";
		if (p->set_default)
			return "default: set twice";
		p->set_default = true;
		p->default_model = m;
		return NULL;
	}

	if (!strcmp(tok[0], "model")) {
		if (n != 3)
			return n < 3 ? "model: expected <type> <model>" :
				       "model: trailing text";
		t = lookup_name(watchpol_type_names, WATCHPOL_TYPE__NR, tok[1]);
		if (t < 0)
			return "model: unknown watch type";
		m = lookup_name(watchpol_model_names, WATCHPOL_MODEL__NR,
				tok[2]);
		if (m < 0)
			return "model: unknown model";
		if (p->type_set & BIT(t))
			return "model: type set twice";
		p->type_set |= BIT(t);
		p->type_model[t] = m;
		return NULL;
	}

	if (!strcmp(tok[0], "enforce")) {
		if (n != 2)
			return n < 2 ? "enforce: missing value" :
				       "enforce: trailing text";
		if (strcmp(tok[1], "0") && strcmp(tok[1], "1"))
			return "enforce: expected 0 or 1";
		if (p->set_enforce)
			return "enforce: set twice";
		p->set_enforce = true;
		p->enforce = tok[1][0] == '1';
		return NULL;
	}

	if (!strcmp(tok[0], "kernel_events")) {
		if (n != 2)
			return n < 2 ? "kernel_events: missing value" :
				       "kernel_events: trailing text";
		if (strcmp(tok[1], "allow") && strcmp(tok[1], "deny"))
			return "kernel_events: expected allow or deny";
		if (p->set_kernel_events)
			return "kernel_events: set twice";
		p->set_kernel_events = true;
		p->kernel_events = !strcmp(tok[1], "allow");
		return NULL;
	}

	if (!strcmp(tok[0], "post_dac"))
		return parse_switch(tok, n, &p->set_post_dac, &p->post_dac);
	if (!strcmp(tok[0], "post_label"))
		return parse_switch(tok, n, &p->set_post_label, &p->post_label);
	if (!strcmp(tok[0], "recheck"))
		return parse_switch(tok, n, &p->set_recheck, &p->recheck);

	if (!strcmp(tok[0], "w_creds")) {
		if (n != 3)
			return n < 3 ? "w_creds: expected <type> setter|creator" :
				       "w_creds: trailing text";
		t = lookup_name(watchpol_type_names, WATCHPOL_TYPE__NR, tok[1]);
		if (t < 0)
			return "w_creds: unknown watch type";
		if (strcmp(tok[2], "setter") && strcmp(tok[2], "creator"))
			return "w_creds: expected setter or creator";
		if (p->w_set & BIT(t))
			return "w_creds: type set twice";
		p->w_set |= BIT(t);
		if (!strcmp(tok[2], "creator"))
			p->w_creator |= BIT(t);
		return NULL;
	}

	kind = lookup_name(rule_kind_names, ARRAY_SIZE(rule_kind_names),
			   tok[0]);
	if (kind < 0)
		return "unknown keyword";
	if (n != 3)
		return n < 3 ? "rule: expected two labels" :
			       "rule: trailing text";
	if (strlen(tok[1]) > WATCHPOL_MAX_LABEL ||
	    strlen(tok[2]) > WATCHPOL_MAX_LABEL)
		return "rule: label too long";
	if (*nr_rules >= max_rules)
		return "too many rules";
	rules[*nr_rules].r.kind = kind;
	rules[*nr_rules].r.subj = tok[1];
	rules[*nr_rules].r.obj = tok[2];
	if (resolve(tok[1], &rules[*nr_rules].ssid) ||
	    resolve(tok[2], &rules[*nr_rules].osid))
		return "rule: label not known to the active LSM";
	(*nr_rules)++;
	return NULL;
}

/**
 * watchpol_policy_parse - parse a whole policy
 * @text: the policy text (need not be NUL-terminated)
 * @len: its length in bytes
 * @resolve: maps a label to a secid
 * @err: filled in when the policy is rejected
 *
 * Return: the new policy, ERR_PTR(-EINVAL) with @err set when the text is
 * malformed, or another ERR_PTR on allocation failure.
 */
struct watchpol_policy *watchpol_policy_parse(const char *text, size_t len,
					      watchpol_resolve_t resolve,
					      struct watchpol_parse_error *err)
{
	struct watchpol_policy *p;
	struct parse_rule *rules = NULL;
	u32 max_rules, nr_rules = 0, i, n;
	unsigned int lineno = 0;
	char *s, *line;
	int t, ret = -ENOMEM;

	err->line = 0;
	err->reason = NULL;
	if (len > WATCHPOL_MAX_POLICY) {
		err->reason = "policy too large";
		return ERR_PTR(-EFBIG);
	}
	lineno = bad_char_line(text, len);
	if (lineno) {
		err->line = lineno;
		err->reason = "invalid character";
		return ERR_PTR(-EINVAL);
	}

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->default_model = WATCHPOL_MODEL_NONE;
	p->enforce = true;
	p->kernel_events = true;
	p->post_dac = true;
	p->post_label = true;

	p->input = kvmalloc(len + 1, GFP_KERNEL);
	if (!p->input)
		goto fail;
	memcpy(p->input, text, len);
	p->input[len] = '\0';

	/* Every line holds at most one rule. */
	max_rules = 1;
	for (i = 0; i < len; i++)
		if (text[i] == '\n' && max_rules <= WATCHPOL_MAX_RULES)
			max_rules++;
	max_rules = min_t(u32, max_rules, WATCHPOL_MAX_RULES);
	rules = kvcalloc(max_rules, sizeof(*rules), GFP_KERNEL);
	if (!rules)
		goto fail;

	s = p->input;
	while ((line = strsep(&s, "\n"))) {
		lineno++;
		err->reason = parse_line(p, line, rules, max_rules, &nr_rules,
					 resolve);
		if (err->reason) {
			err->line = lineno;
			ret = -EINVAL;
			goto fail;
		}
	}

	p->posts = watchpol_model_posts(p, p->default_model);
	for (t = 0; t < WATCHPOL_TYPE__NR; t++) {
		if (!(p->type_set & BIT(t)))
			p->type_model[t] = p->default_model;
		p->posts |= watchpol_model_posts(p, p->type_model[t]);
	}

	sort(rules, nr_rules, sizeof(*rules), cmp_rule, NULL);
	for (i = 0, n = 0; i < nr_rules; i++) {
		if (n && !cmp_rule(&rules[n - 1], &rules[i]))
			continue;
		rules[n++] = rules[i];
	}
	nr_rules = n;

	if (build_ruleset(&p->post, rules, nr_rules, WATCHPOL_RULE_POST) ||
	    build_ruleset(&p->watch, rules, nr_rules, WATCHPOL_RULE_WATCH))
		goto fail;

	if (nr_rules) {
		p->text_rules = kvmalloc_array(nr_rules,
					       sizeof(*p->text_rules),
					       GFP_KERNEL);
		if (!p->text_rules)
			goto fail;
	}
	for (i = 0; i < nr_rules; i++) {
		p->text_rules[i] = rules[i].r;
		p->text_rules[i].unresolved = !rules[i].ssid || !rules[i].osid;
		p->unresolved += p->text_rules[i].unresolved;
	}
	p->nr_text_rules = nr_rules;
	kvfree(rules);
	rules = NULL;

	if (build_text(p))
		goto fail;
	/*
	 * The canonical text is what "policy" reads back (to be written
	 * again, with its end line) and what re-resolution parses: it must
	 * fit the size limit a load meets.  Its labels are another matter: a
	 * rule whose label stopped resolving after an LSM policy change stays
	 * in force, unresolved and counted, but a write of it is refused
	 * like any unknown label.
	 */
	if (p->text_len + strlen("end\n") > WATCHPOL_MAX_POLICY) {
		err->reason = "policy too large in canonical form";
		ret = -EFBIG;
		goto fail;
	}
	return p;

fail:
	kvfree(rules);
	watchpol_policy_free(p);
	return ERR_PTR(ret);
}

/* What a bad watchpol.model= gets: the strictest policy, not none. */
static const char watchpol_fail_safe[] = "default strict\nkernel_events deny\n";

/**
 * watchpol_boot_policy() - the policy of the boot parameters
 * @models: watchpol.model=, "<model>" or "[<type>:]<model>,..."
 * @enforce: watchpol.enforce=
 * @resolve: maps a label to a secid (unused by these statements)
 * @err: reason and item number when @models is bad, else reason NULL
 *
 * A bad @models, or one that names no model at all (an empty value),
 * fails safe: the policy is "default strict" with "kernel_events deny"
 * (and @enforce), never the "none" a typo would otherwise leave in force.
 *
 * Return: the policy, or an ERR_PTR when out of memory.
 */
struct watchpol_policy *watchpol_boot_policy(const char *models, bool enforce,
					     watchpol_resolve_t resolve,
					     struct watchpol_parse_error *err)
{
	struct watchpol_parse_error perr;
	struct watchpol_policy *p;
	/*
	 * An item of n >= 1 bytes becomes at most n + 7 bytes of text; the
	 * fail-safe text must fit whatever @models was.
	 */
	size_t size = 8 * strlen(models) + sizeof(watchpol_fail_safe) + 32, pos;
	char *text, *list, *item, *s;
	unsigned int items = 0;

	text = kzalloc(size, GFP_KERNEL);
	list = kstrdup(models, GFP_KERNEL);
	if (!text || !list) {
		p = ERR_PTR(-ENOMEM);
		goto out;
	}
	pos = scnprintf(text, size, "enforce %d\n", enforce);
	s = list;
	while ((item = strsep(&s, ","))) {
		char *colon = strchr(item, ':');

		if (!*item)
			continue;
		if (colon)
			*colon = ' ';
		pos += scnprintf(text + pos, size - pos, "%s %s\n",
				 colon ? "model" : "default", item);
		items++;
	}
	if (items) {
		p = watchpol_policy_parse(text, pos, resolve, &perr);
		*err = perr;
		if (!IS_ERR(p) || PTR_ERR(p) != -EINVAL)
			goto out;
		/* perr.line counts the enforce line: make it the item's number. */
		err->line = perr.line - 1;
	} else {
		/* "watchpol.model=": a template whose variable was unset. */
		err->line = 0;
		err->reason = "no model given";
	}
	pos = scnprintf(text, size, "%senforce %d\n", watchpol_fail_safe,
			enforce);
	p = watchpol_policy_parse(text, pos, resolve, &perr);
out:
	kfree(text);
	kfree(list);
	return p;
}
