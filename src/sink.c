/* sink.c: see sink.h. */
#include "sink.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fgo.h"

/* Bytes in the UTF-8 sequence that starts with c (1 for a stray byte). */
static size_t utf8_len(unsigned char c)
{
	return c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* The continuation bytes of the sequence at s that are really there. */
static size_t sequence(const char *s)
{
	size_t n = utf8_len((unsigned char)s[0]), i = 1;
	if (n > 1 && n <= 4)
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	return i;
}

void sink_plot(const char *s, char *out, size_t len)
{
	size_t n = 0;
	if (!len)
		return;
	while (s && *s && n + 1 < len) {
		if ((unsigned char)*s < 0x80 && strchr(SINK_PLOT_CHARS, *s)) {
			out[n++] = *s++;
		} else {
			out[n++] = '?';
			s += sequence(s);
		}
	}
	out[n] = 0;
}

void sink_filename(const char *s, char *out, size_t len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-._";
	size_t n = 0;
	if (!len)
		return;
	for (; s && *s && n + 1 < len; s++)
		out[n++] = (unsigned char)*s < 0x80 && strchr(ok, *s) ? *s : '_';
	out[n] = 0;
	/* "." and ".." are folders, not names */
	if (strspn(out, ".") == n && n)
		memset(out, '_', n);
}

void sink_shell(const char *s, char *out, size_t len)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-.:/+=@,%";
	size_t n = 0;
	if (!len)
		return;
	if (s && *s && strspn(s, plain) == strlen(s)) {
		snprintf(out, len, "%s", s);
		if (strlen(s) < len)
			return;
	} else {
		out[n++] = '\'';
		for (; s && *s && n + 5 < len; s++) {
			if (*s == '\'') {
				memcpy(out + n, "'\\''", 4);
				n += 4;
			} else {
				out[n++] = *s;
			}
		}
		if (!s || !*s) {
			out[n++] = '\'';
			out[n] = 0;
			return;
		}
	}
	/* too long to quote whole: a half-quoted word would be worse than none */
	snprintf(out, len, "''");
}

/* Appends text to out (as far as it fits); counts it in *n either way. */
static void put(char *out, size_t len, size_t *n, const char *text, size_t tlen)
{
	for (size_t i = 0; i < tlen; i++, (*n)++)
		if (*n + 1 < len)
			out[*n] = text[i];
}

/* sink_terminal, with lines (newline and tab kept) for sink_message. */
static size_t escape_controls(const char *s, char *out, size_t len, int lines)
{
	size_t n = 0;
	char esc[8];
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (lines && (*p == '\n' || *p == '\t')) {
			put(out, len, &n, (const char *)p, 1);
		} else if (*p == '\n' || *p == '\t' || *p == '\r') {
			esc[0] = '\\';
			esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
			put(out, len, &n, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			put(out, len, &n, esc, 4);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* a C1 control in UTF-8: 0x9b is CSI on many terminals */
			snprintf(esc, sizeof esc, "\\u%04x", p[1]);
			put(out, len, &n, esc, 6);
			p++;
		} else if (*p >= 0x80 && *p <= 0x9f) {
			/* a continuation byte with no lead: raw 0x9b is CSI too */
			snprintf(esc, sizeof esc, "\\x%02x", *p);
			put(out, len, &n, esc, 4);
		} else {
			size_t k = sequence((const char *)p);
			put(out, len, &n, (const char *)p, k);
			p += k - 1;
		}
	}
	if (len)
		out[n < len ? n : len - 1] = 0;
	return n;
}

size_t sink_terminal(const char *s, char *out, size_t len)
{
	return escape_controls(s, out, len, 0);
}

size_t sink_message(const char *s, char *out, size_t len)
{
	return escape_controls(s, out, len, 1);
}

int sink_check_dir(const char *opt, const char *dir, char *err, size_t len)
{
	if (!dir || !*dir) {
		snprintf(err, len, "%s is empty (an unset variable?): name the folder to write to", opt);
		return FGO_EUSAGE;
	}
	for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(err, len, "%s: the folder name holds a control character (byte 0x%02x);"
				 " use a plain name", opt, *p);
			return FGO_EUSAGE;
		}
	if (strlen(dir) > 3000) {
		snprintf(err, len, "%s: the folder name is longer than 3000 bytes", opt);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

int sink_check_file(const char *opt, const char *path, char *err, size_t len)
{
	char dir[4096];
	struct stat sb;
	int rc = sink_check_dir(opt, path, err, len);
	if (rc != FGO_OK)
		return rc;
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &sb) != 0) {
		snprintf(err, len, "%s %s: folder %s: %s (create it first)", opt, path, dir,
			 errno == ENOENT ? "is not there" : strerror(errno));
		return FGO_EUSAGE;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, len, "%s %s: %s is not a folder", opt, path, dir);
		return FGO_EUSAGE;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, len, "%s %s: cannot write in folder %s: %s", opt, path, dir,
			 strerror(errno));
		return FGO_EUSAGE;
	}
	const char *name = slash ? slash + 1 : path;
	if (!*name || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))) {
		snprintf(err, len, "%s %s: is a folder; name a file", opt, path);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}
