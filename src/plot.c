/* plot.c: template filling and the gnuplot run behind `fgobench plot`. */
#include "plot.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "embed.h"
#include "fgo.h"

extern char **environ;

FILE *plot_open_data(const char *dir, const char *base, char *err, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.dat", dir, base);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
	return f;
}

void plot_quote(const char *s, char *out, size_t len)
{
	size_t n = 0;
	for (; *s && n + 1 < len; s++)
		if (*s != '"' && *s != '\\' && *s != '\n')
			out[n++] = *s;
	out[n] = 0;
}

static const char *field_value(const struct plot_field *f, int n, const char *name, size_t nlen)
{
	for (int i = 0; i < n; i++)
		if (strlen(f[i].name) == nlen && strncmp(f[i].name, name, nlen) == 0)
			return f[i].value;
	return NULL;
}

/* Writes template to out with every @NAME@ replaced; an unknown field is
 * an error (a template and this code out of step). */
static int fill(FILE *out, const char *tmpl, const struct plot_field *f, int n, char *err,
		size_t len)
{
	for (const char *p = tmpl; *p; p++) {
		const char *end = *p == '@' ? strchr(p + 1, '@') : NULL;
		size_t nlen = end ? (size_t)(end - p - 1) : 0;
		if (!end || nlen == 0 || nlen > 16 || strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != nlen) {
			fputc(*p, out);
			continue;
		}
		const char *v = field_value(f, n, p + 1, nlen);
		if (!v) {
			snprintf(err, len, "template field @%.*s@ has no value", (int)nlen, p + 1);
			return FGO_EFAIL;
		}
		fputs(v, out);
		p = end;
	}
	return FGO_OK;
}

static int run_gnuplot(const char *script, char *err, size_t len)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	pid_t pid;
	int status = 0, rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (rc != 0) {
		snprintf(err, len, "cannot run gnuplot: %s (`make deps` installs gnuplot-nox)",
			 strerror(rc));
		return FGO_EFAIL;
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, len, "gnuplot failed on %s (its message is above)", script);
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int plot_render(const char *template_path, const char *dir, const char *base,
		const struct plot_field *fields, int nfields, char *err, size_t len)
{
	char dat[4096], png[4096], svg[4096], gp[4096];
	const char *tmpl = embedded_text(template_path);
	struct plot_field all[16];
	int n = 0;
	struct stat sb;

	if (!tmpl || nfields > 12) {
		snprintf(err, len, "no template %s in this build", template_path);
		return FGO_EFAIL;
	}
	snprintf(dat, sizeof dat, "%s/%s.dat", dir, base);
	snprintf(png, sizeof png, "%s/%s.png", dir, base);
	snprintf(svg, sizeof svg, "%s/%s.svg", dir, base);
	snprintf(gp, sizeof gp, "%s/%s.gp", dir, base);
	all[n++] = (struct plot_field){ "DAT", dat };
	all[n++] = (struct plot_field){ "PNG", png };
	all[n++] = (struct plot_field){ "SVG", svg };
	for (int i = 0; i < nfields; i++)
		all[n++] = fields[i];

	FILE *out = fopen(gp, "w");
	if (!out) {
		snprintf(err, len, "cannot write %s: %s", gp, strerror(errno));
		return FGO_EFAIL;
	}
	int rc = fill(out, tmpl, all, n, err, len);
	if (fclose(out) != 0 && rc == FGO_OK) {
		snprintf(err, len, "cannot write %s: %s", gp, strerror(errno));
		rc = FGO_EFAIL;
	}
	remove(png);
	if (rc == FGO_OK)
		rc = run_gnuplot(gp, err, len);
	if (rc == FGO_OK && (stat(png, &sb) != 0 || sb.st_size == 0)) {
		snprintf(err, len, "gnuplot wrote no %s", png);
		rc = FGO_EFAIL;
	}
	return rc;
}
