/* spec_pos.c: positions of JSON nodes in the text they were parsed from.
 * cJSON keeps none, so on an error we walk the text once more, in step with
 * the tree: the n-th value in document order is the n-th node of a pre-order
 * walk of the tree. Only run for messages, so nothing is cached. */
#include <stdint.h>

#include "spec/spec_ctx.h"

/* Pre-order index of node under root, or -1 when it is not there. */
static long node_index(const cJSON *root, const cJSON *node, long *next)
{
	long here = (*next)++;
	if (root == node)
		return here;
	for (const cJSON *ch = root->child; ch; ch = ch->next) {
		long i = node_index(ch, node, next);
		if (i >= 0)
			return i;
	}
	return -1;
}

struct scan {
	const char *text;
	size_t p;      /* cursor */
	long count;    /* values seen so far */
	long target;   /* the value wanted */
	size_t key;    /* its key's offset (SIZE_MAX: not a member) */
	size_t value;  /* its offset, once found */
	int found;
};

/* cJSON treats every byte <= 32 as white space. */
static void skip_ws(struct scan *s)
{
	while (s->text[s->p] && (unsigned char)s->text[s->p] <= 32)
		s->p++;
}

static void skip_string(struct scan *s)
{
	s->p++; /* opening quote */
	while (s->text[s->p] && s->text[s->p] != '"')
		s->p += s->text[s->p] == '\\' && s->text[s->p + 1] ? 2 : 1;
	if (s->text[s->p])
		s->p++;
}

/* The text is valid JSON (cJSON accepted it), so the scanner only has to
 * tell values apart, not check them. */
static void scan_value(struct scan *s, size_t key)
{
	skip_ws(s);
	if (s->count++ == s->target) {
		s->found = 1;
		s->key = key;
		s->value = s->p;
		return;
	}
	char open = s->text[s->p];
	if (open == '"') {
		skip_string(s);
		return;
	}
	if (open != '{' && open != '[') {
		/* numbers and literals: [-+.0-9a-zA-Z]+ */
		while (s->text[s->p] && s->text[s->p] != ',' && s->text[s->p] != ']' &&
		       s->text[s->p] != '}' && (unsigned char)s->text[s->p] > 32)
			s->p++;
		return;
	}
	char close = open == '{' ? '}' : ']';
	s->p++;
	skip_ws(s);
	if (s->text[s->p] == close) {
		s->p++;
		return;
	}
	while (!s->found && s->text[s->p]) {
		size_t k = SIZE_MAX;
		skip_ws(s);
		if (open == '{') {
			k = s->p;
			skip_string(s);
			skip_ws(s);
			if (s->text[s->p] == ':')
				s->p++;
		}
		scan_value(s, k);
		if (s->found)
			return;
		skip_ws(s);
		if (s->text[s->p] == ',') {
			s->p++;
			continue;
		}
		if (s->text[s->p] == close)
			s->p++;
		return;
	}
}

size_t spec_pos_find(const char *text, const cJSON *root, const cJSON *node, int key)
{
	long next = 0;
	struct scan s = { .text = text, .key = SIZE_MAX };
	s.target = node_index(root, node, &next);
	if (s.target < 0)
		return 0;
	/* cJSON skips a UTF-8 byte order mark */
	if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
	    (unsigned char)text[2] == 0xbf)
		s.p = 3;
	scan_value(&s, SIZE_MAX);
	if (!s.found)
		return 0;
	return key && s.key != SIZE_MAX ? s.key : s.value;
}

void spec_pos_line_col(const char *text, size_t off, int *line, int *col)
{
	int l = 1, c = 1;
	size_t i = 0;
	/* a UTF-8 byte order mark is not a column */
	if ((unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb &&
	    (unsigned char)text[2] == 0xbf)
		i = 3;
	for (; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			c++; /* UTF-8 continuation bytes are part of the character before */
		}
	}
	*line = l;
	*col = c;
}
