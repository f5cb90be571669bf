/*
 * rules.c: which [Rule] a crash gets. A rule's Match lines are ANDed; the words of one line are ORed, as systemd's
 * Match sections read. Globs are fnmatch(3)'s without FNM_PATHNAME: "*" crosses "/", so "/opt/app/" followed
 * by "*" matches all below it. The first rule that matches wins; a rule with a bad line is never taken.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "rules.h"

static const char *const match_names[] = {
	[MATCH_EXECUTABLE] = "MatchExecutable", [MATCH_COMM] = "MatchComm", [MATCH_UNIT] = "MatchUnit",
	[MATCH_USER_UNIT] = "MatchUserUnit", [MATCH_SLICE] = "MatchSlice", [MATCH_USER] = "MatchUser",
	[MATCH_SIGNAL] = "MatchSignal", [MATCH_CONTAINER] = "MatchContainer", [MATCH_HOSTNAME] = "MatchHostname",
	[MATCH_CONTAINER_NAME] = "MatchContainerName", [MATCH_IMAGE] = "MatchImage",
	[MATCH_POD_NAMESPACE] = "MatchPodNamespace", [MATCH_POD_NAME] = "MatchPodName",
	[MATCH_POD_LABEL] = "MatchPodLabel", [MATCH_CONTAINER_LABEL] = "MatchContainerLabel",
};

/* The Match key called name: its enum rule_match, or -ENOENT. */
int rule_match_key(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(match_names); i++)
		if (strcmp(match_names[i], name) == 0)
			return (int)i;
	return -ENOENT;
}

const char *rule_match_name(enum rule_match m)
{
	return m < _MATCH_MAX ? match_names[m] : "?";
}

/* A signal by its name, with or without "SIG", or its number: the number, or -EINVAL. */
int rule_signal(const char *word)
{
	uint64_t n;

	if (strncmp(word, "SIG", 3) == 0)
		word += 3;
	if (parse_u64(word, &n) == 0)
		return n >= 1 && n < 64 ? (int)n : -EINVAL;
	for (int s = 1; s < 64; s++) {
		const char *abbrev = sigabbrev_np(s);

		if (abbrev && strcmp(abbrev, word) == 0)
			return s;
	}
	return -EINVAL;
}

/* Each word of a MatchSignal= line as a bit of the mask. 0 or -EINVAL. */
static int parse_signals(const char *value, uint64_t *mask)
{
	char copy[RULE_MATCH_MAX], *save = NULL;

	*mask = 0;
	(void) snprintf(copy, sizeof(copy), "%s", value);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		int s = rule_signal(w);

		if (s < 0)
			return s;
		*mask |= 1ULL << s;
	}
	return 0;
}

/* Sets a Match line of r. 0, -EINVAL for a bad value, -ENAMETOOLONG, or -EEXIST when given twice. */
int rule_set_match(struct rule *r, enum rule_match m, const char *value)
{
	if (value[0] == '\0' || strspn(value, " \t") == strlen(value))
		return -EINVAL;
	if (strlen(value) >= RULE_MATCH_MAX)
		return -ENAMETOOLONG;
	if (r->match[m][0])
		return -EEXIST;
	if (m == MATCH_SIGNAL && parse_signals(value, &r->signals) < 0)
		return -EINVAL;
	strcpy(r->match[m], value);
	return 0;
}

/* What a word of a Match line is tried by: a glob on a string, a user, a label of the pod. */
typedef bool (*word_test)(const char *word, const void *fact);

/* Whether one word names the uid: a number, or a user name as the system's user database resolves it now. */
static bool user_is(const char *word, const void *fact)
{
	uid_t uid = *(const uid_t *)fact;
	struct passwd pw, *res = NULL;
	char buf[1024];
	uint64_t n;

	if (parse_u64(word, &n) == 0)
		return n == (uint64_t)uid;
	return getpwnam_r(word, &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_uid == uid;
}

static bool glob_is(const char *word, const void *fact)
{
	return fnmatch(word, fact, 0) == 0;
}

/*
 * Whether one word of MatchPodLabel= names a label of the pod: KEY=GLOB on its value, or KEY alone for any value.
 * The labels are read in place, one "KEY=VALUE" word at a time, never cut.
 */
static bool label_is(const char *word, const void *fact)
{
	const char *want = strchr(word, '='), *l = fact, *end, *eq;
	size_t klen = want ? (size_t)(want - word) : strlen(word);
	char value[256];

	for (; *l; l = *end ? end + 1 : end) {
		end = strchr(l, ' ');
		end = end ? end : l + strlen(l);
		eq = memchr(l, '=', (size_t)(end - l));
		if (!eq || (size_t)(eq - l) != klen || strncmp(l, word, klen) != 0)
			continue;
		if (!want)
			return true;
		if ((size_t)(end - eq - 1) < sizeof(value)) {
			memcpy(value, eq + 1, (size_t)(end - eq - 1));
			value[end - eq - 1] = '\0';
			if (fnmatch(want + 1, value, 0) == 0)
				return true;
		}
	}
	return false;
}

/* Whether a word of the list passes test on fact. */
static bool any_word(const char *list, word_test test, const void *fact)
{
	char copy[RULE_MATCH_MAX], *save = NULL;

	(void) snprintf(copy, sizeof(copy), "%s", list);
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		if (test(w, fact))
			return true;
	return false;
}

/* Globs on s; a fact not known (NULL or "") matches no word, as MatchPodLabel= on a pod without labels. */
static bool globs(const char *list, const char *s)
{
	return s && s[0] && any_word(list, glob_is, s);
}

/* MatchContainer=: yes (any container), no (none), or globs on the machine name or the container's id. */
static bool container_matches(const char *list, const struct rule_facts *f)
{
	if (strcmp(list, "yes") == 0 || strcmp(list, "no") == 0)
		return f->container == (strcmp(list, "yes") == 0);
	return f->container && (globs(list, f->machine) || globs(list, f->container_id));
}

static bool match_one(const struct rule *r, enum rule_match m, const struct rule_facts *f)
{
	const char *list = r->match[m];

	if (!list[0])
		return true;
	switch (m) {
	case MATCH_EXECUTABLE: return globs(list, f->exe);
	case MATCH_COMM:       return globs(list, f->comm);
	case MATCH_UNIT:       return globs(list, f->unit);
	case MATCH_USER_UNIT:  return globs(list, f->user_unit);
	case MATCH_SLICE:      return globs(list, f->slice);
	case MATCH_USER:       return any_word(list, user_is, &f->uid);
	case MATCH_SIGNAL:     return f->signal > 0 && f->signal < 64 && (r->signals & (1ULL << f->signal));
	case MATCH_CONTAINER:  return container_matches(list, f);
	case MATCH_HOSTNAME:   return globs(list, f->hostname);
	case MATCH_CONTAINER_NAME: return globs(list, f->container_name);
	case MATCH_IMAGE:      return globs(list, f->image);
	case MATCH_POD_NAMESPACE: return globs(list, f->pod_namespace);
	case MATCH_POD_NAME:   return globs(list, f->pod_name);
	case MATCH_POD_LABEL:  return f->pod_labels && f->pod_labels[0] && any_word(list, label_is, f->pod_labels);
	case MATCH_CONTAINER_LABEL: return f->labels && f->labels[0] && any_word(list, label_is, f->labels);
	default:               return false;
	}
}

/* Whether rule r applies to the crash: every Match line it has matches, and none of its lines was bad. */
bool rule_matches(const struct rule *r, const struct rule_facts *f)
{
	if (r->bad)
		return false;
	for (int m = 0; m < _MATCH_MAX; m++)
		if (!match_one(r, (enum rule_match)m, f))
			return false;
	return true;
}

/* The first of the n rules that matches the crash: its index, or -1. */
int rules_pick(const struct rule *v, unsigned n, const struct rule_facts *f)
{
	for (unsigned i = 0; i < n; i++)
		if (rule_matches(&v[i], f))
			return (int)i;
	return -1;
}
