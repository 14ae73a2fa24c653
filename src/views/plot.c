/* plot.c: template filling and the gnuplot run behind `fgobench plot` and
 * `fgobench history`. Nothing the user or a store supplied reaches gnuplot
 * as code: the folder never appears in the script (gnuplot runs inside it
 * and every file is named by its bare, file-safe name), text fields arrive
 * already passed through sink_plot, and every file (data, script, images)
 * is written to a fresh temporary in the folder and renamed over the
 * target, so a link planted there is replaced, never followed. */
#include "views/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "embed.h"
#include "fgo.h"
#include "sink.h"

int plot_open_data(const char *dir, const char *base, struct atomic_file *af, char *err,
		   size_t len)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s.dat", dir, base) < 0) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	int rc = atomic_open(af, path, err, len);
	if (rc != FGO_OK)
		free(path);
	return rc;
}

int plot_commit_data(struct atomic_file *af, char *err, size_t len)
{
	char *path = (char *)af->path;
	int rc = atomic_commit(af, err, len);
	free(path);
	return rc;
}

void plot_abort_data(struct atomic_file *af)
{
	char *path = (char *)af->path;
	atomic_abort(af);
	free(path);
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

/* gnuplot's messages of a run that failed, onto stderr (as the terminal
 * may show them: sink_terminal); those of one that worked ("Skipping data
 * file with no valid points", "empty x range") are routine for a sweep
 * with one point or one empty series and are dropped. */
static void replay_messages(FILE *log)
{
	char line[1024], shown[4096];
	if (!log || fseek(log, 0, SEEK_SET) != 0)
		return;
	while (fgets(line, sizeof line, log)) {
		line[strcspn(line, "\n")] = '\0';
		sink_terminal(line, shown, sizeof shown);
		fprintf(stderr, "%s\n", shown);
	}
}

/* Runs `gnuplot -e SETS script` with dir as its working directory, so no
 * path the user chose is ever parsed by gnuplot. SETS holds only names
 * fgobench made (file-safe base + mkstemp's letters). gnuplot's stderr
 * goes to an unnamed temporary, shown only when gnuplot failed. */
static int run_gnuplot(const char *dir, const char *script, const char *sets, char *err,
		       size_t len)
{
	int status = 0, pipefd[2], child_errno = 0;
	if (pipe(pipefd) != 0) {
		snprintf(err, len, "cannot run gnuplot: %s", strerror(errno));
		return FGO_EFAIL;
	}
	FILE *log = tmpfile(); /* NULL: the messages go to stderr as before */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* the pipe reports a failed chdir or exec to the parent */
		close(pipefd[0]);
		if (log)
			dup2(fileno(log), STDERR_FILENO);
		if (chdir(dir) == 0)
			execlp("gnuplot", "gnuplot", "-e", sets, script, (char *)NULL);
		int e = errno;
		if (write(pipefd[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	if (pid < 0) {
		close(pipefd[0]);
		snprintf(err, len, "cannot run gnuplot: %s", strerror(errno));
		return FGO_EFAIL;
	}
	ssize_t got = read(pipefd[0], &child_errno, sizeof child_errno);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int rc = FGO_OK;
	if (got == (ssize_t)sizeof child_errno) {
		snprintf(err, len, "cannot run gnuplot in %s: %s (`make deps` installs gnuplot-nox)",
			 dir, strerror(child_errno));
		rc = FGO_EFAIL;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		replay_messages(log);
		snprintf(err, len, "gnuplot failed on %s/%s (its message is above)", dir, script);
		rc = FGO_EFAIL;
	}
	if (log)
		fclose(log);
	return rc;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A temporary for an image gnuplot will write: made here (mkstemp, so
 * nothing was there to follow) and closed; gnuplot opens it by name. */
static int reserve_image(struct atomic_file *af, const char *path, char *err, size_t len)
{
	int rc = atomic_open(af, path, err, len);
	if (rc == FGO_OK) {
		fclose(af->f);
		af->f = NULL;
	}
	return rc;
}

static int image_written(const struct atomic_file *af, char *err, size_t len)
{
	struct stat sb;
	if (lstat(af->tmp, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0)
		return FGO_OK;
	snprintf(err, len, "gnuplot wrote no %s", af->path);
	return FGO_EFAIL;
}

int plot_render(const char *template_path, const char *dir, const char *base,
		const struct plot_field *fields, int nfields, char *err, size_t len)
{
	char dat[256], png[256], svg[256], gpname[256], safe[200];
	char gp[4096], png_path[4096], svg_path[4096], sets[800];
	const char *tmpl = embedded_text(template_path);
	struct plot_field all[16];
	struct atomic_file gpf, pngf = { 0 }, svgf = { 0 };
	int n = 0, rc;

	if (!tmpl || nfields > 12) {
		snprintf(err, len, "no template %s in this build", template_path);
		return FGO_EFAIL;
	}
	/* Callers pass file-safe bases (sink_filename); check rather than trust. */
	sink_filename(base, safe, sizeof safe);
	if (strcmp(safe, base) != 0 || strlen(dir) > 3000) {
		snprintf(err, len, "plot name \"%s\" is not file-safe", safe);
		return FGO_EFAIL;
	}
	for (int i = 0; i < nfields; i++)
		if (strchr(fields[i].value, '`')) {
			snprintf(err, len, "plot field %s holds a backquote (text not passed through"
				 " sink_plot)", fields[i].name);
			return FGO_EFAIL;
		}
	snprintf(dat, sizeof dat, "%s.dat", base);
	snprintf(png, sizeof png, "%s.png", base);
	snprintf(svg, sizeof svg, "%s.svg", base);
	snprintf(gpname, sizeof gpname, "%s.gp", base);
	snprintf(gp, sizeof gp, "%s/%s", dir, gpname);
	snprintf(png_path, sizeof png_path, "%s/%s", dir, png);
	snprintf(svg_path, sizeof svg_path, "%s/%s", dir, svg);
	all[n++] = (struct plot_field){ "DAT", dat };
	all[n++] = (struct plot_field){ "PNG", png };
	all[n++] = (struct plot_field){ "SVG", svg };
	for (int i = 0; i < nfields; i++)
		all[n++] = fields[i];

	if ((rc = atomic_open(&gpf, gp, err, len)) != FGO_OK)
		return rc;
	rc = fill(gpf.f, tmpl, all, n, err, len);
	if (rc == FGO_OK)
		rc = atomic_commit(&gpf, err, len);
	else
		atomic_abort(&gpf);
	if (rc == FGO_OK)
		rc = reserve_image(&pngf, png_path, err, len);
	if (rc == FGO_OK)
		rc = reserve_image(&svgf, svg_path, err, len);
	if (rc == FGO_OK) {
		snprintf(sets, sizeof sets, "fgo_png = '%s'; fgo_svg = '%s'", base_name(pngf.tmp),
			 base_name(svgf.tmp));
		rc = run_gnuplot(dir, gpname, sets, err, len);
	}
	if (rc == FGO_OK)
		rc = image_written(&pngf, err, len);
	if (rc == FGO_OK)
		rc = image_written(&svgf, err, len);
	if (rc == FGO_OK)
		rc = atomic_commit(&pngf, err, len);
	if (rc == FGO_OK)
		rc = atomic_commit(&svgf, err, len);
	atomic_abort(&pngf);
	atomic_abort(&svgf);
	return rc;
}
