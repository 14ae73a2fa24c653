/* fuzz_cli.c: libFuzzer harness for the command lines of every subcommand.
 * The input's first byte picks the command, the rest is its arguments, one
 * per line. The commands run for real up to the point where they would
 * launch kernels: session_run, tune_run and runner_run are replaced (the
 * build links with -Wl,--wrap=...) by stubs that say "stop", so `sweep`,
 * `run`, `tune` and `calibrate` parse, load their specs and open nothing
 * more. The read commands query a small store made at start-up in a
 * scratch directory (the working directory while fuzzing), with PATH
 * emptied so `plot` finds no gnuplot to start. MPI runs as a singleton. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "run/runner.h"
#include "run/session.h"
#include "store/store.h"
#include "tune/tune_run.h"

#define MAX_ARGS 24

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "best", cmd_best },       { "calibrate", cmd_calibrate }, { "compile", cmd_compile },
	{ "history", cmd_history }, { "info", cmd_info },           { "list", cmd_list },
	{ "plot", cmd_plot },       { "regress", cmd_regress },     { "report", cmd_report },
	{ "run", cmd_run },         { "show", cmd_show },           { "sweep", cmd_sweep },
	{ "tune", cmd_tune },
};

int __wrap_session_run(MPI_Comm comm, const struct fgo_plan *plan, const struct fgo_session *s);
int __wrap_tune_run(MPI_Comm comm, const struct fgo_plan *plan, const struct tune_space *space,
		    const struct tune_opts *o, struct tune_outcome *out);
int __wrap_runner_run(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
		      const struct fgo_runner_opts *opts, const struct fgo_runner_sink *sink);

int __wrap_session_run(MPI_Comm comm, const struct fgo_plan *plan, const struct fgo_session *s)
{
	(void)comm;
	(void)plan;
	(void)s;
	return FGO_EUSAGE;
}

int __wrap_tune_run(MPI_Comm comm, const struct fgo_plan *plan, const struct tune_space *space,
		    const struct tune_opts *o, struct tune_outcome *out)
{
	(void)comm;
	(void)plan;
	(void)space;
	(void)o;
	memset(out, 0, sizeof *out);
	return FGO_EUSAGE;
}

int __wrap_runner_run(MPI_Comm comm, const struct fgo_plan *plan, const unsigned char *todo,
		      const struct fgo_runner_opts *opts, const struct fgo_runner_sink *sink)
{
	(void)comm;
	(void)plan;
	(void)todo;
	(void)opts;
	(void)sink;
	return FGO_EUSAGE;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "fuzz_cli: cannot write %s\n", path);
		exit(1);
	}
}

/* Two sweeps ("a" and "b") of the same two configurations, every run ok. */
static void make_store(const char *path)
{
	struct fgo_store *st;
	char err[512];
	if (store_open(path, FGO_STORE_WRITE, &st, err, sizeof err)) {
		fprintf(stderr, "fuzz_cli: %s\n", err);
		exit(1);
	}
	for (int s = 0; s < 2; s++) {
		struct fgo_sweep_info info = {
			.tag = s ? "b" : "a", .spec_path = "spec.json", .spec_name = "spec",
			.spec_text = "{}", .spec_hash = "0123456789abcdef", .command_line = "fuzz",
			.host = "fuzzhost", .version = FGO_VERSION, .git_revision = "fuzz",
			.backend = "cpu", .devices = "cpu", .driver = "", .runtime = "", .arch = "x86_64",
			.mpi_ranks = 2, .iterations = 3, .warmup = 1,
		};
		int64_t sweep;
		if (store_sweep_begin(st, &info, &sweep, err, sizeof err))
			goto fail;
		for (int c = 0; c < 2; c++) {
			struct fgo_config cfg;
			struct fgo_result r;
			int64_t run;
			double ms[2][3] = { { 1.0, 1.1, 0.9 }, { 2.0, 2.2, 1.8 } };
			config_defaults(&cfg);
			cfg.m = cfg.n = cfg.k = 128;
			cfg.blk_m = c ? 64 : 32;
			result_init(&r);
			r.status = FGO_STATUS_OK;
			r.iterations = 3;
			r.fused.n = r.gemm.n = r.comm.n = r.baseline.n = 3;
			r.fused.ms = ms[c];
			r.gemm.ms = ms[0];
			r.comm.ms = ms[1];
			r.baseline.ms = ms[1];
			r.fused.median = ms[c][0] * (s ? 1.2 : 1.0);
			r.gemm.median = 1.0;
			r.comm.median = 2.0;
			r.baseline.median = 2.0;
			r.tflops_total = 0.5;
			r.speedup = 1.5;
			if (store_run_started(st, sweep, &cfg, 3, 1, &run, err, sizeof err) ||
			    store_run_finish(st, run, 0, &r, err, sizeof err))
				goto fail;
		}
		if (store_sweep_end(st, sweep, "done", err, sizeof err))
			goto fail;
	}
	store_close(st);
	return;
fail:
	fprintf(stderr, "fuzz_cli: %s\n", err);
	exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char dir[] = "fuzz-cli.XXXXXX"; /* in the working directory run.sh made */
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("fuzz_cli: scratch directory");
		exit(1);
	}
	write_file("spec.json", "{\"algorithm\": [\"all_scatter\", \"gemm\"], \"world\": 2,"
				" \"shapes\": [[128, 128, 128]], \"BLK_M\": [32, 64], \"BLK_N\": 32,"
				" \"BLK_K\": 32, \"iterations\": 3}\n");
	write_file("data.csv", "m,n,k,datatype\n128,128,128,fp16\n256,128,64,bf16\n");
	write_file("data.json", "[{\"m\": 128, \"n\": 128, \"k\": 128}]\n");
	make_store("store.db");
	setenv("FGOBENCH_DB", "store.db", 1);
	setenv("PATH", "/nonexistent", 1);
	setenv("OMPI_MCA_plm", "isolated", 0);
	int provided;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
	if (!freopen("/dev/null", "w", stdout)) {
		perror("fuzz_cli: /dev/null");
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > 4096)
		return 0;
	char *buf = malloc(size);
	char *argv[MAX_ARGS + 2];
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	int cmd = data[0] % (int)FGO_ARRAY_SIZE(commands), argc = 0;
	argv[argc++] = (char *)commands[cmd].name;
	char *p = buf, *end = buf + size - 1;
	while (p < end && argc <= MAX_ARGS) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			*nl = 0;
		argv[argc++] = p;
		if (!nl)
			break;
		p = nl + 1;
	}
	argv[argc] = NULL;
	int rc = commands[cmd].fn(argc, argv);
	if (rc < 0 || rc > 2) {
		fprintf(stderr, "fuzz_cli: %s returned %d (exit codes are 0, 1, 2)\n", argv[0], rc);
		abort();
	}
	fgo_mute = 0;
	fflush(stdout);
	clearerr(stdout);
	free(buf);
	return 0;
}
