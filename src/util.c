/* util.c: the message functions, the clock and the small helpers of fgo.h. */
#include "fgo.h"
#include "sink.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <sys/stat.h>

int fgo_mute;

/* "fgobench: KIND message": the message is text from anywhere (tags,
 * reasons, a kernel's err, a compiler's output), so its control
 * characters but newlines and tabs are shown as escapes (sink_message):
 * no escape sequence reaches the terminal. */
static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	if (fgo_mute)
		return;
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	size_t n = text ? sink_message(text, NULL, 0) : 0;
	char *shown = text ? malloc(n + 1) : NULL;
	if (shown)
		sink_message(text, shown, n + 1);
	fprintf(stderr, "fgobench: %s%s\n", kind, shown ? shown : "(out of memory)");
	free(shown);
	free(text);
}

void error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("error: ", fmt, ap);
	va_end(ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *fmt_bytes(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;
	double v = bytes;
	while (u + 1 < sizeof units / sizeof *units && (v >= 1024.0 || v <= -1024.0)) {
		v /= 1024.0;
		u++;
	}
	/* exact: no decimals; else two under 10 (1.50 GiB), one above */
	if (u == 0 || v == (double)(long long)v)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, v < 10 && v > -10 ? "%.2f %s" : "%.1f %s", v, units[u]);
	return buf;
}

uint64_t fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = malloc((lb + 1) * sizeof *row);
	if (!row)
		return 1 << 20;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = (a[i - 1] == b[j - 1]) ? 0 : 1;
			int best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	int d = row[lb];
	free(row);
	return d;
}

#include "embed.h"

const char *embedded_text(const char *path)
{
	for (const struct fgo_embedded_file *f = fgo_embedded; f->path; f++)
		if (strcmp(f->path, path) == 0)
			return f->text;
	return NULL;
}

int make_dirs(const char *dir, char *err, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = 0;
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			snprintf(err, len, "cannot create %s: %s", path, strerror(errno));
			return FGO_EUSAGE;
		}
		*p = c;
		if (!c)
			break;
	}
	return FGO_OK;
}
