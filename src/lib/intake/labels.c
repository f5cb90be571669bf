/*
 * labels.c: the labels a runtime keeps of a pod or a container, as the entry says them and a [Rule]'s
 * MatchPodLabel= and MatchContainerLabel= read them: "KEY=VALUE" words one blank apart, only those in a Kubernetes
 * label's alphabet (a key of letters, digits and "-_./", a value of letters, digits and "-_."), so that no word holds
 * a blank or a second "="; not the runtimes' own (io.kubernetes.*, annotation.*, which name a pod, not label it; the
 * CRI plugin's io.cri-containerd.*, containerd's io.containerd.*, nerdctl's nerdctl/...); while they fit. A label left
 * out is left out whole, never cut.
 */
#include <stdio.h>
#include <string.h>

#include "labels.h"

/* Whether s is made only of ASCII letters, digits and the characters of accept. */
static bool word_of(const char *s, const char *accept)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

	for (; *s; s++)
		if (!strchr(alnum, *s) && !strchr(accept, *s))
			return false;
	return true;
}

/* Whether key is one of a runtime's own, not a label anyone gave. */
static bool runtimes_own(const char *key)
{
	static const char *const prefixes[] = { "io.kubernetes.", "annotation.", "io.cri-containerd.",
						"io.containerd.", "nerdctl/" };

	for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
		if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * KEY=VALUE added to the words in out (used bytes of len so far), where it is a label's and fits. Whether there is
 * room for more (false once one did not fit: the rest are left out, as the list's order would make a choice).
 */
bool labels_add(char *out, size_t len, size_t *used, const char *key, const char *value)
{
	int n;

	if (!key[0] || !word_of(key, "-_./") || !word_of(value, "-_.") || runtimes_own(key))
		return true;
	n = snprintf(out + *used, len - *used, "%s%s=%s", *used ? " " : "", key, value);
	if (n < 0 || (size_t)n >= len - *used) {
		out[*used] = '\0';
		return false;
	}
	*used += (size_t)n;
	return true;
}

/* The labels of obj ({"KEY": "VALUE", ...}, in the document's order) into out; none where obj is no object. */
void labels_json(struct json_object *obj, char *out, size_t len)
{
	char value[256];
	size_t used = 0;

	out[0] = '\0';
	if (!json_object_is_type(obj, json_type_object))
		return;
	/* A key is checked by labels_add (its alphabet); a value as every string of a runtime's is. */
	json_object_object_foreach(obj, key, v) {
		if (jdoc_text(v, value, sizeof(value)) == 0 && !labels_add(out, len, &used, key, value))
			break;
	}
}

/* The labels of the JSON object in text ("" or not one: none) into out. */
void labels_text(const char *text, char *out, size_t len)
{
	struct json_object *obj = jdoc_parse(text, strlen(text));

	labels_json(obj, out, len);
	json_object_put(obj);
}

/*
 * The words "KEY=VALUE ..." of w (cut up where it is), those that are labels, into out: words another process
 * wrote (the rootless read's child), taken as labels_add() takes any.
 */
void labels_words(char *w, char *out, size_t len)
{
	size_t used = 0;
	char *save = NULL, *eq;

	out[0] = '\0';
	for (char *t = strtok_r(w, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if ((eq = strchr(t, '=')) && (*eq = '\0', !labels_add(out, len, &used, t, eq + 1)))
			break;
}

/* One key of a label bucket, as bolt_each gives them (key NULL: start again), added where it is whole text. */
void labels_word(const char *key, size_t klen, const char *value, size_t vlen, void *arg)
{
	struct label_words *w = arg;
	char k[256], v[256];

	if (!key) {
		w->out[0] = '\0', w->used = 0, w->full = false;
		return;
	}
	if (w->full || klen >= sizeof(k) || vlen >= sizeof(v) || memchr(key, 0, klen) || memchr(value, 0, vlen))
		return;
	memcpy(k, key, klen), k[klen] = '\0';
	memcpy(v, value, vlen), v[vlen] = '\0';
	w->full = !labels_add(w->out, w->len, &w->used, k, v);
}
