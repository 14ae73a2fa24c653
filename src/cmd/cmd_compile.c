/* cmd_compile.c: `fgobench compile`: JIT-compile the GPU kernels of every
 * configuration of a sweep spec into the kernel cache, on a machine without
 * a GPU, so a sweep on the GPU machine finds them compiled. The spec expands
 * as for `sweep`; gpu_compile.c does each configuration; -j N forks N
 * compiler processes that report back through pipes. Needs no MPI. In a
 * build without a GPU backend the command says so and exits 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_compile_usage[] =
	"usage: fgobench compile SPEC [--arch A] [--cache DIR] [-j N] [--quiet]\n"
	"       [--format table|md|csv|json] [--trace] [--kernel MANIFEST] [CONFIG FLAGS]\n"
	"\n"
	"JIT-compiles the GPU kernel of every configuration SPEC expands to (exactly\n"
	"as `fgobench sweep` expands it) for architecture A into the kernel cache,\n"
	"so that a sweep finds its kernels compiled; configuration flags (as for\n"
	"`fgobench run`) fill what a dataset leaves out and override the spec. Needs\n"
	"no GPU and no MPI: run it where the CUDA toolkit is, with the cache on a\n"
	"shared file system or copied to the GPU machine.\n"
	"Prints one row per configuration: compiled, cached (already in the cache),\n"
	"invalid (cannot launch on a GPU, or refused by the spec rules, with the\n"
	"reason), skipped (its algorithm has no GPU kernel yet) or error (the\n"
	"compiler rejected it: the configuration key and the compiler log's first\n"
	"lines also go to stderr); then a summary on stderr. Exit status 0 when\n"
	"every configuration with a kernel compiled, 1 when one did not, 2 on bad\n"
	"usage or a bad spec. Only GPU builds (`make GPU=cuda` or `make GPU=hip`)\n"
	"compile.\n"
	"\n"
	"AMD targets: gfx942 (MI300X, MI325X) and gfx90a (MI250X) run the MFMA core\n"
	"(mma=16: v_mfma_f32_16x16x16, mma=32: v_mfma_f32_32x32x8); a HIP build\n"
	"compiles with clang-19 where ROCm is not installed (hiprtc where it is;\n"
	"$FGOBENCH_HIP_COMPILER chooses) and reads back, per kernel, the arch and\n"
	"accumulation VGPRs (regs, acc_regs), all of its LDS (smem), scratch bytes a\n"
	"lane and waves a SIMD can hold (an estimate from the register and LDS use;\n"
	"none of it has run on AMD hardware yet).\n"
	"\n"
	"  --arch A       target architecture: sm_90a (the default), sm_80, ...; in a HIP\n"
	"                 build gfx942 or gfx90a (the default)\n"
	"  --cache DIR    the kernel cache (default $FGOBENCH_CACHE, else\n"
	"                 $XDG_CACHE_HOME/fgobench, else ~/.cache/fgobench): a folder of\n"
	"                 your own, writable by nobody else\n"
	"  -j N           compiler processes at a time (default: the CPUs here)\n"
	"  --quiet        no progress lines\n"
	"  --kernel MANIFEST  your own kernel's GPU form (README \"Your own kernel\"), every\n"
	"                 mode it has, for SPEC's problems, as `sweep --kernel` runs it\n"
	"  --trace        the traced kernels (`run --trace`, `sweep --trace best`: the\n"
	"                 trace hooks compiled in, 4096 events per CTA) instead\n"
	"  --format F     table, md, csv or json (default table)\n";

#if defined(FGO_GPU_HIP)
#define DEFAULT_ARCH "gfx90a"
#else
#define DEFAULT_ARCH "sm_90a"
#endif

struct compile_opts {
	const char *spec;
	const char *arch;  /* default DEFAULT_ARCH */
	const char *cache; /* NULL: the kernel cache of kcache.h */
	int jobs;          /* 0: the CPUs here */
	int quiet;
	enum fgo_format fmt;
	struct fgo_config base; /* configuration flags, for datasets and overrides */
	struct fgo_config_mask set;
};

/* --trace: the traced kernels (GPU_TRACE_CAP_DEFAULT events per CTA). */
static int trace_kernels;

#if defined(FGO_GPU_CUDA) || defined(FGO_GPU_HIP)

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "algo.h"
#include "embed.h"
#include "gpu/gpu_compile.h"
#include "gpu/gpu_jit.h"
#include "user/user.h"

/* What one configuration came to: written by a compiler process into its
 * pipe (a fixed-size record, under PIPE_BUF so one write is whole). */
struct outcome {
	size_t item;       /* plan index */
	int status;        /* enum gpu_compile_status; -1 not reported */
	int registers;     /* 0: unknown (AMD: arch VGPRs) */
	unsigned int smem; /* dynamic shared memory per CTA (AMD: all of its LDS) */
	int amd;           /* the AMD fields below were read from the code object */
	int agprs, scratch, waves;
	double seconds;
	char detail[FGO_REASON_MAX * 3]; /* the reason or the compiler log excerpt */
};

/* The progress line on stderr: on a terminal rewritten in place, else a
 * line every 10 s; nothing for one configuration or with --quiet. */
struct meter {
	size_t total, done, compiled, cached, errors;
	double started, last;
	int show, tty;
};

static void meter_tick(struct meter *m, int final)
{
	double now = now_seconds();
	if (!m->show || (!final && now - m->last < (m->tty ? 0.25 : 10)))
		return;
	m->last = now;
	if (final) {
		if (m->tty)
			fputs("\r\033[K", stderr);
		return;
	}
	char eta[32] = "";
	if (m->done && m->done < m->total) {
		long s = (long)((now - m->started) / (double)m->done * (double)(m->total - m->done) + 0.5);
		snprintf(eta, sizeof eta, ", ETA %ldm%02lds", s / 60, s % 60);
	}
	fprintf(stderr, "%scompiling: %zu/%zu done (%zu compiled, %zu cached, %zu errors)%s%s",
		m->tty ? "\r\033[K" : "", m->done, m->total, m->compiled, m->cached, m->errors, eta,
		m->tty ? "" : "\n");
	fflush(stderr);
}

/* Compiles plan item i (or says why not) into o. */
static void compile_one(const struct fgo_plan *plan, size_t i, const char *arch,
			struct outcome *o)
{
	const struct fgo_plan_item *it = &plan->items[i];
	const struct fgo_algo *algo = algo_find(it->cfg.algorithm);
	struct gpu_compiled c;

	memset(o, 0, sizeof *o);
	o->item = i;
	if (!it->valid || !algo) {
		o->status = GPU_COMPILE_INVALID;
		snprintf(o->detail, sizeof o->detail, "%s", it->valid ? "unknown algorithm" : it->reason);
		return;
	}
	gpu_compile_config_traced(algo, &it->cfg, arch, 0, 0,
				  trace_kernels ? GPU_TRACE_CAP_DEFAULT : 0, &c, o->detail,
				  sizeof o->detail);
	o->status = (int)c.status;
	o->registers = c.registers;
	o->smem = c.amd ? (unsigned int)c.lds : c.shape.smem_bytes;
	o->amd = c.amd;
	o->agprs = c.agprs;
	o->scratch = c.scratch;
	o->waves = c.waves;
	o->seconds = c.seconds;
	if (c.status == GPU_COMPILE_COMPILED || c.status == GPU_COMPILE_CACHED)
		o->detail[0] = 0;
}

/* The parent's bookkeeping for one finished configuration. */
static void record(const struct fgo_plan *plan, const struct outcome *o, struct outcome *res,
		   struct meter *m)
{
	res[o->item] = *o;
	m->done++;
	m->compiled += o->status == GPU_COMPILE_COMPILED;
	m->cached += o->status == GPU_COMPILE_CACHED;
	if (o->status == GPU_COMPILE_ERROR || o->status == GPU_COMPILE_FAILED) {
		char key[FGO_KEY_MAX];
		m->errors++;
		config_key(&plan->items[o->item].cfg, key, sizeof key);
		if (m->show && m->tty)
			fputs("\r\033[K", stderr);
		error("%s: %s", key, o->detail);
	}
	meter_tick(m, 0);
}

static int write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads a whole record: 1, 0 at end of file, -1 on an error or a torn record. */
static int read_full(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return got == 0 && r == 0 ? 0 : -1;
		got += (size_t)r;
	}
	return 1;
}

/* Compiles the n items of work on jobs processes (item k on process
 * k % jobs), recording each outcome as it arrives. A process that dies
 * leaves its remaining items FAILED. Returns FGO_OK or FGO_EFAIL (no fork). */
static int compile_all(const struct fgo_plan *plan, const size_t *work, size_t n, int jobs,
		       const char *arch, struct outcome *res, struct meter *m)
{
	struct outcome o;
	if (jobs > (int)n)
		jobs = (int)n;
	if (jobs <= 1) {
		for (size_t k = 0; k < n; k++) {
			compile_one(plan, work[k], arch, &o);
			record(plan, &o, res, m);
		}
		return FGO_OK;
	}
	struct pollfd *fds = calloc((size_t)jobs, sizeof *fds);
	pid_t *pids = calloc((size_t)jobs, sizeof *pids);
	int started = 0, rc = FGO_OK;
	if (!fds || !pids) {
		error("out of memory");
		free(fds);
		free(pids);
		return FGO_EFAIL;
	}
	fflush(stdout);
	fflush(stderr);
	for (; started < jobs; started++) {
		int p[2];
		if (pipe(p) != 0)
			break;
		pid_t pid = fork();
		if (pid < 0) {
			close(p[0]);
			close(p[1]);
			break;
		}
		if (pid == 0) {
			close(p[0]);
			for (int w = 0; w < started; w++)
				close(fds[w].fd);
			for (size_t k = (size_t)started; k < n; k += (size_t)jobs) {
				compile_one(plan, work[k], arch, &o);
				if (write_full(p[1], &o, sizeof o) != 0)
					_exit(1);
			}
			_exit(0);
		}
		close(p[1]);
		fds[started].fd = p[0];
		fds[started].events = POLLIN;
		pids[started] = pid;
	}
	if (started < jobs) {
		/* the items of processes never started are compiled by none */
		error("cannot start %d compiler processes (%s); use a smaller -j", jobs,
		      strerror(errno));
		rc = FGO_EFAIL;
	}
	for (int open = started; open > 0;) {
		if (poll(fds, (nfds_t)started, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int w = 0; w < started; w++) {
			if (fds[w].fd < 0 || !fds[w].revents)
				continue;
			int r = read_full(fds[w].fd, &o, sizeof o);
			if (r == 1 && o.item < plan->count) {
				record(plan, &o, res, m);
				continue;
			}
			close(fds[w].fd);
			fds[w].fd = -1;
			open--;
		}
	}
	for (int w = 0; w < started; w++) {
		int status = 0;
		if (fds[w].fd >= 0)
			close(fds[w].fd);
		waitpid(pids[w], &status, 0);
		for (size_t k = (size_t)w; k < n; k += (size_t)jobs) {
			if (res[work[k]].status >= 0)
				continue;
			o = (struct outcome){ .item = work[k], .status = GPU_COMPILE_FAILED };
			if (WIFSIGNALED(status))
				snprintf(o.detail, sizeof o.detail,
					 "the compiler process died of signal %d (%s)", WTERMSIG(status),
					 strsignal(WTERMSIG(status)));
			else
				snprintf(o.detail, sizeof o.detail,
					 "the compiler process stopped early (exit status %d)",
					 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			record(plan, &o, res, m);
		}
	}
	for (size_t k = 0; k < n; k++) {
		if (res[work[k]].status >= 0)
			continue;
		o = (struct outcome){ .item = work[k], .status = GPU_COMPILE_FAILED };
		snprintf(o.detail, sizeof o.detail, "no compiler process was started for it");
		record(plan, &o, res, m);
	}
	free(fds);
	free(pids);
	return rc;
}

static int print_outcomes(const struct fgo_plan *plan, const struct outcome *res,
			  enum fgo_format fmt)
{
	static const char *const headers[] = { "item",   "algorithm", "dtype",   "world", "M",
					       "N",      "K",         "tile",    "stages", "warps",
					       "status", "regs",      "smem",    "acc_regs", "scratch",
					       "waves",  "seconds",   "detail" };
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	for (size_t i = 0; i < plan->count; i++) {
		const struct fgo_config *c = &plan->items[i].cfg;
		const struct outcome *o = &res[i];
		int built = o->status == GPU_COMPILE_COMPILED || o->status == GPU_COMPILE_CACHED;
		table_add(t, "%zu", i + 1);
		view_problem_cells(t, c);
		if (c->params[0]) { /* a user kernel's own tunables */
			table_add(t, "%s", c->params);
			table_add(t, "%s", "");
			table_add(t, "%s", "");
		} else {
			table_add(t, "%dx%dx%d", c->blk_m, c->blk_n, c->blk_k);
			table_add(t, "%d", c->num_stages);
			table_add(t, "%d", c->num_warps);
		}
		table_add(t, "%s", gpu_compile_status_name((enum gpu_compile_status)o->status));
		if (built && o->registers)
			table_add(t, "%d", o->registers);
		else
			table_add(t, "%s", "");
		if (built)
			table_add(t, "%u", o->smem);
		else
			table_add(t, "%s", "");
		/* AMD: accumulation registers, scratch a lane, waves a SIMD */
		if (built && o->amd) {
			table_add(t, "%d", o->agprs);
			table_add(t, "%d", o->scratch);
			table_add(t, "%d", o->waves);
		} else {
			table_add(t, "%s", "");
			table_add(t, "%s", "");
			table_add(t, "%s", "");
		}
		if (built)
			table_add(t, "%.2f", o->seconds);
		else
			table_add(t, "%s", "");
		table_add(t, "%.*s", o->status == GPU_COMPILE_ERROR ? 160 : FGO_REASON_MAX, o->detail);
	}
	int rc = table_print(t, fmt, stdout) ? FGO_EFAIL : FGO_OK;
	table_free(t);
	return rc;
}

/* Loads the spec, compiles its configurations, prints the outcomes. */
/* The items that named all_reduce (spec/spec.h's shot_choice) compile
 * as both shots: the sweep picks one where it runs, from that machine's
 * store (tune/shot_pick.h). Appends the two-shot copies. */
static int both_shots(struct fgo_plan *plan)
{
	size_t n = 0, count = plan->count;
	for (size_t i = 0; i < count; i++)
		n += plan->items[i].shot_choice;
	if (!n)
		return FGO_OK;
	struct fgo_plan_item *items = realloc(plan->items, (count + n) * sizeof *items);
	if (!items)
		return FGO_EFAIL;
	plan->items = items;
	for (size_t i = 0; i < count; i++) {
		if (!items[i].shot_choice)
			continue;
		struct fgo_plan_item *two = &items[plan->count++];
		*two = items[i];
		snprintf(two->cfg.algorithm, sizeof two->cfg.algorithm, "%s", ALGO_CHOICE_SECOND);
		two->valid = !config_validate(&two->cfg, two->reason, sizeof two->reason);
		if (two->valid)
			two->reason[0] = 0;
	}
	note("%zu configuration%s name all_reduce: compiled as one-shot and two-shot (the sweep"
	     " picks the shot where it runs)", n, n == 1 ? "" : "s");
	return FGO_OK;
}

static int compile_spec(const struct compile_opts *opt)
{
	struct fgo_plan plan;
	char err[1024], dir[1024];
	int rc;

	if (gpu_compile_arch_check(opt->arch, err, sizeof err) != FGO_OK)
		return cmd_usage_error("compile", cmd_compile_usage, "%s", err);
	if (opt->cache && setenv("FGOBENCH_CACHE", opt->cache, 1) != 0) {
		error("cannot set FGOBENCH_CACHE: %s", strerror(errno));
		return FGO_EFAIL;
	}
	/* the user's own folder, writable by nobody else (kcache.h) */
	if (gpu_jit_cache_dir(dir, sizeof dir, err, sizeof err) != FGO_OK) {
		error("%s (or use --cache DIR)", err);
		return FGO_EUSAGE;
	}
	if (access(dir, W_OK) != 0) {
		error("the kernel cache %s is not writable: %s (use --cache DIR)", dir, strerror(errno));
		return FGO_EUSAGE;
	}
	memset(&plan, 0, sizeof plan);
	if (spec_load(opt->spec, &opt->base, &opt->set, &plan, err, sizeof err) != FGO_OK) {
		error("%s", err);
		return FGO_EUSAGE;
	}
	size_t sk = plan_fit_units(&plan, gpu_arch_units(opt->arch));
	if (sk)
		note("%zu Stream-K configuration%s without gemm_sms or comm_sms: compiled for %d GEMM"
		     " CTAs + 0, the SMs of the usual %s GPU; a sweep takes its own GPU's count (and"
		     " compiles that at its start where it differs)", sk, sk == 1 ? "" : "s",
		     gpu_arch_units(opt->arch), opt->arch);
	if (both_shots(&plan) != FGO_OK) {
		error("out of memory for %zu configurations", plan.count);
		plan_free(&plan);
		return FGO_EFAIL;
	}
	plan_fit_target(&plan, opt->arch); /* the best core of --arch where left to the default */
	if (plan.pick == FGO_PICK_MODEL)
		note("%s asks for config auto: the cost model's picks are made where the sweep runs,"
		     " from that machine's fit in its store; compiled here: the defaults table's tiles"
		     " (the sweep compiles its own picks at its start)", opt->spec);

	struct outcome *res = calloc(plan.count + 1, sizeof *res);
	size_t *work = calloc(plan.count + 1, sizeof *work), n = 0;
	struct meter m = { .started = now_seconds(), .tty = isatty(2) };
	if (!res || !work) {
		error("out of memory for %zu configurations", plan.count);
		free(res);
		free(work);
		plan_free(&plan);
		return FGO_EFAIL;
	}
	/* what cannot compile is decided here; the rest goes to the compilers */
	for (size_t i = 0; i < plan.count; i++) {
		const struct fgo_algo *algo = algo_find(plan.items[i].cfg.algorithm);
		struct gpu_shape shape;
		res[i].status = -1;
		if (plan.items[i].valid && algo && algo->user && algo->user->gpu_text)
			work[n++] = i; /* a user kernel's GPU form */
		else if (plan.items[i].valid && algo && algo->gpu_source &&
			 embedded_text(algo->gpu_source) &&
			 gpu_shape_check(&plan.items[i].cfg, opt->arch, 0, &shape, err, sizeof err) == FGO_OK)
			work[n++] = i;
	}
	m.total = n;
	m.show = !opt->quiet && n > 1;
	for (size_t i = 0, k = 0; i < plan.count; i++) {
		if (k < n && work[k] == i) {
			k++;
			continue;
		}
		compile_one(&plan, i, opt->arch, &res[i]);
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = opt->jobs ? opt->jobs : cpus > 0 ? (int)cpus : 1;
	double t0 = now_seconds();
	rc = compile_all(&plan, work, n, jobs, opt->arch, res, &m);
	meter_tick(&m, 1);
	double took = now_seconds() - t0;

	size_t count[GPU_COMPILE_FAILED + 1] = { 0 };
	for (size_t i = 0; i < plan.count; i++)
		if (res[i].status >= 0 && res[i].status <= GPU_COMPILE_FAILED)
			count[res[i].status]++;
	int prc = print_outcomes(&plan, res, opt->fmt);
	note("%s: %zu configurations for %s: %zu compiled, %zu cached, %zu invalid, %zu skipped"
	     " (no GPU kernel yet), %zu errors in %.1f s (-j %d); cache %s",
	     opt->spec, plan.count, opt->arch, count[GPU_COMPILE_COMPILED],
	     count[GPU_COMPILE_CACHED], count[GPU_COMPILE_INVALID], count[GPU_COMPILE_SKIPPED],
	     count[GPU_COMPILE_ERROR] + count[GPU_COMPILE_FAILED], took,
	     jobs < (int)n ? jobs : n ? (int)n : 1, dir);
	if (rc == FGO_OK && (count[GPU_COMPILE_ERROR] || count[GPU_COMPILE_FAILED]))
		rc = FGO_EFAIL;
	if (prc != FGO_OK)
		rc = prc;
	free(res);
	free(work);
	plan_free(&plan);
	return rc;
}

#endif

int cmd_compile(int argc, char **argv)
{
	if (cmd_wants_help(argc, argv)) {
		cmd_help(cmd_compile_usage);
		fputs(cmd_config_flags_help, stdout);
		return 0;
	}

	struct compile_opts opt = { .arch = DEFAULT_ARCH, .fmt = FGO_FMT_TABLE };
	static const char *const opts[] = { "--arch", "--cache", "-j", "--format", "--kernel" };
	int rc = FGO_OK;
	config_defaults(&opt.base);
	for (int i = 1; i < argc && rc == FGO_OK; i++) {
		const char *a = argv[i], *v = NULL;
		int used = cmd_config_flag("compile", argc, argv, &i, &opt.base, &opt.set);
		if (used == FGO_EUSAGE || used < 0) {
			rc = FGO_EUSAGE;
			continue;
		}
		if (used)
			continue;
		if (a[0] == '-' && a[1] == 'j' && a[2] >= '0' && a[2] <= '9') { /* -j8 */
			rc = cmd_parse_int("compile", "-j", a + 2, 1, 4096, &opt.jobs);
			continue;
		}
		switch (cmd_match_option("compile", argc, argv, &i, opts, (int)FGO_ARRAY_SIZE(opts), &v)) {
		case 0:
			opt.arch = v;
			break;
		case 1:
			opt.cache = v;
			break;
		case 2:
			rc = cmd_parse_int("compile", "-j", v, 1, 4096, &opt.jobs);
			break;
		case 3:
			if (format_parse(v, &opt.fmt))
				rc = cmd_usage_error("compile", cmd_compile_usage,
						     "unknown format \"%s\" (table, md, csv, json)", v);
			break;
		case 4:
			opt.set.kernel = v;
			break;
		case -2:
			rc = FGO_EUSAGE;
			break;
		default:
			if (!strcmp(a, "--quiet"))
				opt.quiet = 1;
			else if (!strcmp(a, "--trace"))
				trace_kernels = 1;
			else if (a[0] == '-' && a[1])
				rc = cmd_usage_error("compile", cmd_compile_usage, "unknown option \"%s\"", a);
			else if (!opt.spec)
				opt.spec = a;
			else
				rc = cmd_usage_error("compile", cmd_compile_usage,
						     "one SPEC only (got \"%s\" and \"%s\")", opt.spec, a);
		}
	}
	if (rc == FGO_OK && !opt.spec)
		rc = cmd_usage_error("compile", cmd_compile_usage,
				     "missing SPEC (e.g. sweeps/gpu_smoke.json)");
	if (rc == FGO_OK && (!opt.arch[0] || (opt.cache && !opt.cache[0])))
		rc = cmd_usage_error("compile", cmd_compile_usage, "%s expects a value",
				     opt.arch[0] ? "--cache" : "--arch");
	if (rc != FGO_OK)
		return rc;
#if defined(FGO_GPU_CUDA) || defined(FGO_GPU_HIP)
	return cmd_finish_stdout(compile_spec(&opt));
#else
	error("this fgobench was built without a GPU backend: build it with `make GPU=cuda`");
	return FGO_EUSAGE;
#endif
}
