/* cmd_util.c: what the subcommands share for their command lines: help and
 * usage errors, number parsing with one message format, the store path, the
 * configuration flags of `run` and `sweep`, and the final stdout check. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"

const char cmd_config_flags_help[] =
	"  -m M, --m M        rows of A and C (the global problem)\n"
	"  -n N, --n N        columns of B and C\n"
	"  -k K, --k K        columns of A, rows of B\n"
	"  --algorithm A      algorithm (default all_scatter; `fgobench info` lists them);\n"
	"                     any case, - for _ (all-reduce-one-shot), and the field's\n"
	"                     short names where they name one (gemm_rs, ag_gemm_pull);\n"
	"                     a family name such as all_gather_gemm lists its algorithms;\n"
	"                     all_reduce: run and sweep pick the shot of each problem\n"
	"                     (the store's runs of both, best --predict, else W)\n"
	"  --datatype D       fp32, fp16 or bf16 (default fp16; also --dtype)\n"
	"  --world W          ranks taking part (default 2)\n"
	"  --BLK_M B          GEMM tile rows (default 64, or less: what the shape allows);\n"
	"                     on wgmma 8, 16, 32 and multiples of 16 not of 64 (80, 96,\n"
	"                     ...) swap A and B (BLK_N 64 a consumer: 64 with\n"
	"                     num_warps 8, 128 with 12)\n"
	"  --BLK_N B          GEMM tile columns (default 64, or less: what the shape allows);\n"
	"                     on wgmma any multiple of 16 up to 256 (80, 96, ...)\n"
	"  --BLK_K B          GEMM tile depth (default 32; 64 on wgmma, or 128)\n"
	"  --num_stages S     software pipeline stages (default 2; 4 on wgmma, 3 at 128x256)\n"
	"  --num_warps W      warps per CTA (default 4; 8 on wgmma, 12 for two consumers);\n"
	"                     on AMD wavefronts of 64 lanes\n"
	"  --mma X            matrix instruction: 16 (NVIDIA mma.sync m16n8k16; AMD\n"
	"                     v_mfma_f32_16x16x16), 32 (AMD v_mfma_f32_32x32x8, gfx90a and\n"
	"                     gfx942 only; fp32 on 16x16x4 / 32x32x2) or wgmma (Hopper,\n"
	"                     sm_90a); default: the best core of the target, wgmma for\n"
	"                     fp16/bf16 on an sm_90 GPU, else 16 (MFMA on gfx90a/gfx942)\n"
	"  --gsize_m G        tile rows that share B in the tile order (default 8)\n"
	"  --gemm_sms S       GEMM CTAs of a data-parallel + Stream-K walk: whole waves of\n"
	"                     tiles data-parallel, the last partial wave Stream-K over all\n"
	"                     S (every tile in sk_*, which need S >= 1); default 0:\n"
	"                     data-parallel, one CTA per tile (not with --split_k > 1);\n"
	"                     sk_* given neither this nor --comm_sms: every SM of the\n"
	"                     GPU (every CPU core) + 0\n"
	"  --comm_sms S       CTAs doing communication, sk_* only (default 0: the CTA that\n"
	"                     ends a tile sends or sums it; wgmma core and CPU only)\n"
	"  --comm_blk_m B     communication tile rows (default 0: BLK_M)\n"
	"  --comm_blk_n B     communication tile columns (default 0: BLK_N)\n"
	"  --split_k S        K (K/W when K-sharded) cut into S slices per tile, summed in\n"
	"                     fp32, the last slice ending the tile (default 1); every\n"
	"                     family but sk_*, with --gemm_sms 0 only\n"
	"  --deterministic D  1: the partial sums of split-K and Stream-K added in a fixed\n"
	"                     order, so repeated launches give the same bits (checked);\n"
	"                     0 (default): added as they arrive (atomics on the GPU)\n"
	"  --cluster N        CTAs of a thread block cluster (wgmma core, sm_90a): 1\n"
	"                     (default), 2, 4 or 8. With --split_k 1 they are stacked\n"
	"                     along M and share each B panel, which TMA loads once per\n"
	"                     cluster and multicasts; with --split_k N they are the N\n"
	"                     K slices of one tile, summed in distributed shared memory\n"
	"                     (split_k must then equal N). Not with --gemm_sms > 0\n"
	"                     (Stream-K) or --comm_sms > 0; on the CPU backend the same\n"
	"                     walk runs cluster by cluster\n"
	"                     (each flag also takes --flag=value)\n";

/* "fgobench CMD: message" on stderr, silent on muted MPI ranks. */
static void cmd_vsay(const char *cmd, const char *fmt, va_list ap)
{
	char *text = NULL, *shown = NULL;
	if (fgo_mute)
		return;
	/* what the user typed, shown: an escape sequence in an argument is
	 * not replayed on the terminal */
	if (vasprintf(&text, fmt, ap) >= 0 && (shown = malloc(sink_message(text, NULL, 0) + 1)))
		sink_message(text, shown, sink_message(text, NULL, 0) + 1);
	fprintf(stderr, "fgobench %s: %s\n", cmd, shown ? shown : "(out of memory)");
	free(shown);
	free(text);
}

static void cmd_say(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cmd_say(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cmd_vsay(cmd, fmt, ap);
	va_end(ap);
}

int cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

/* The command's name in its usage text ("usage: fgobench NAME ..."), into
 * out; "" when the text does not start so. */
static void usage_name(const char *usage, char *out, size_t len)
{
	static const char lead[] = "usage: fgobench ";
	size_t n = 0;
	if (!strncmp(usage, lead, sizeof lead - 1)) {
		usage += sizeof lead - 1;
		n = strspn(usage, "abcdefghijklmnopqrstuvwxyz");
	}
	snprintf(out, len, "%.*s", (int)n, usage);
}

int cmd_manual_path(const char *name, char *out, size_t len)
{
	char exe[4096], page[4352];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !*name)
		return -1;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = 0;
	/* beside the binary in a checkout (./fgobench, build/cuda/fgobench,
	 * and the sanitizer build's tests, build/asan/tests/), then where
	 * `make install` puts it (PREFIX/bin and PREFIX/share/man) */
	static const char *const where[] = { "%s/man/fgobench-%s.1", "%s/../../man/fgobench-%s.1",
					     "%s/../../../man/fgobench-%s.1",
					     "%s/../share/man/man1/fgobench-%s.1" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(where); i++) {
		snprintf(page, sizeof page, where[i], exe, name);
		char *real = realpath(page, NULL);
		struct stat sb;
		if (real && stat(real, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(out, len, "%s", real);
			free(real);
			return 0;
		}
		free(real);
	}
	return -1;
}

int cmd_manual(const char *name, const char *usage)
{
	char page[4096];
	if (cmd_manual_path(name, page, sizeof page) == 0) {
		/* man itself, no shell: the path is one argument whatever it holds */
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			execlp("man", "man", "-l", page, (char *)NULL);
			_exit(127);
		}
		int status = 0;
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return 0;
		/* no man here (127), or it failed: the usage text is the page's source */
	}
	return cmd_help(usage);
}

int cmd_help(const char *usage)
{
	char name[32], page[4096], word[4200];
	/* the synopsis, then the manual as it can be read now (`man
	 * fgobench-NAME` finds it only once installed; man -l reads the page
	 * of this checkout), then the rest: a caller may print more after it
	 * (the configuration flags), and man/mkman.sh drops this line */
	const char *end = strstr(usage, "\n\n");
	size_t n = end ? (size_t)(end - usage) + 2 : strlen(usage);
	fwrite(usage, 1, n, stdout);
	usage_name(usage, name, sizeof name);
	if (name[0] && cmd_manual_path(name, page, sizeof page) == 0) {
		sink_shell(page, word, sizeof word);
		printf("The manual: man -l %s\n\n", word);
	} else if (name[0]) {
		printf("The manual: man fgobench-%s (after make install)\n\n", name);
	}
	fputs(usage + n, stdout);
	return 0;
}

/* Whether c may stand before an option's name in a usage text. */
static int option_start(const char *text, const char *at)
{
	if (at == text)
		return 1;
	return strchr(" [(|,`\n", at[-1]) != NULL;
}

/* The option of the usage text (or of the configuration flags when the
 * command takes them) closest to opt: at most 2 edits, fewer than opt's
 * length less its dashes; into out ("" when none, or when opt is one). */
static void closest_option(const char *usage, const char *opt, char *out, size_t len)
{
	const char *texts[] = { usage, strstr(usage, "FLAGS]") ? cmd_config_flags_help : "" };
	char name[64], given[64];
	int best = -1;
	size_t dashes = strspn(opt, "-");
	int most = strlen(opt) - dashes > 2 ? 2 : (int)(strlen(opt) - dashes) - 1;
	snprintf(given, sizeof given, "%.*s", (int)strcspn(opt, "="), opt);
	out[0] = 0;
	for (size_t t = 0; t < FGO_ARRAY_SIZE(texts); t++)
		for (const char *p = texts[t]; (p = strchr(p, '-')); ) {
			size_t n = 0;
			if (option_start(texts[t], p)) {
				n = strspn(p, "-");
				n += strspn(p + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						   "0123456789_-");
			}
			if (n <= strspn(p, "-") || n >= sizeof name || strspn(p, "-") > 2) {
				p += strspn(p, "-");
				continue;
			}
			snprintf(name, sizeof name, "%.*s", (int)n, p);
			p += n;
			int d = edit_distance(given, name);
			if (d == 0) { /* a known option (its value was what was missing) */
				out[0] = 0;
				return;
			}
			if (d <= most && (best < 0 || d < best)) {
				best = d;
				snprintf(out, len, "%s", name);
			}
		}
}

int cmd_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	char msg[4096], opt[256] = "", near[64] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* an option nobody knows: the one it most likely meant (every
	 * command's parser ends here, whatever its shape) */
	static const char *const unknown[] = { "unknown option \"", "unexpected argument \"",
					       "missing value for \"" };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(unknown); i++) {
		size_t n = strlen(unknown[i]), m = strlen(msg);
		if (!strncmp(msg, unknown[i], n) && msg[n] == '-' && m > n + 1 && msg[m - 1] == '"')
			snprintf(opt, sizeof opt, "%.*s", (int)(m - n - 1), msg + n);
	}
	if (opt[0])
		closest_option(usage, opt, near, sizeof near);
	if (near[0])
		cmd_say(cmd, "%s (did you mean \"%s\"?)", msg, near);
	else
		cmd_say(cmd, "%s", msg);
	if (fgo_mute)
		return FGO_EUSAGE;
	/* The synopsis: every line before the first empty one. */
	const char *end = strstr(usage, "\n\n");
	size_t n = end ? (size_t)(end - usage) + 1 : strlen(usage);
	fwrite(usage, 1, n, stderr);
	return FGO_EUSAGE;
}

const char *cmd_algorithm(const char *cmd, const char *text)
{
	char why[512];
	const struct fgo_algo *algo = algo_resolve(text, why, sizeof why);
	if (!algo)
		cmd_say(cmd, "%s", why);
	return algo ? algo->name : NULL;
}

const char *cmd_algorithm_filter(const char *cmd, const char *text)
{
	char why[512];
	/* a user kernel's runs ("user:NAME"): its manifest need not be read to
	 * look at them */
	if (!strncmp(text, "user:", 5) && text[5])
		return text;
	const struct fgo_algo *algo = algo_resolve(text, why, sizeof why);
	if (algo)
		return algo->name;
	cmd_say(cmd, "%s%s", why,
		strncmp(why, "ambiguous", 9) ? ": matching the store's name as given" : "");
	return strncmp(why, "ambiguous", 9) ? text : NULL;
}

int cmd_parse_long(const char *cmd, const char *opt, const char *text, long min, long max,
		   long *out)
{
	char *end = NULL;
	long v = 0;
	int ok = 0;
	/* strtol would skip leading spaces and accept "12abc" partly. */
	if (text && *text && !(*text == ' ' || *text == '\t')) {
		errno = 0;
		v = strtol(text, &end, 10);
		ok = errno == 0 && end != text && *end == '\0' && v >= min && v <= max;
	}
	if (!ok) {
		cmd_say(cmd, "%s expects an integer between %ld and %ld, got \"%s\"", opt, min, max,
			text ? text : "");
		return FGO_EUSAGE;
	}
	*out = v;
	return FGO_OK;
}

int cmd_parse_int(const char *cmd, const char *opt, const char *text, int min, int max, int *out)
{
	long v;
	if (cmd_parse_long(cmd, opt, text, min, max, &v) != FGO_OK)
		return FGO_EUSAGE;
	*out = (int)v;
	return FGO_OK;
}

int cmd_parse_bytes(const char *cmd, const char *opt, const char *text, size_t *out)
{
	char *end;
	double v = strtod(text, &end), unit = 1;
	switch (*end) {
	case 'k': case 'K': unit = 1024.0; end++; break;
	case 'm': case 'M': unit = 1048576.0; end++; break;
	case 'g': case 'G': unit = 1073741824.0; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (end == text || *end || !(v > 0) || v * unit > 1e15) {
		cmd_say(cmd, "%s expects a size like 512M or 4G, got \"%s\"", opt, text);
		return FGO_EUSAGE;
	}
	*out = (size_t)(v * unit);
	return FGO_OK;
}

int cmd_parse_double(const char *cmd, const char *opt, const char *text, double min,
		     double max, double *out)
{
	char *end = NULL;
	double v = 0;
	int ok = 0;
	if (text && *text && !(*text == ' ' || *text == '\t')) {
		errno = 0;
		v = strtod(text, &end);
		ok = errno == 0 && end != text && *end == '\0' && isfinite(v) && v >= min &&
		     v <= max;
	}
	if (!ok) {
		cmd_say(cmd, "%s expects a number between %g and %g, got \"%s\"", opt, min, max,
			text ? text : "");
		return FGO_EUSAGE;
	}
	*out = v;
	return FGO_OK;
}

int cmd_parse_pick(const char *cmd, const char *value, int *pick)
{
	enum fgo_pick p;
	if (fgo_pick_parse(value, &p) != 0) {
		cmd_say(cmd, "unknown --config \"%s\" (table: the defaults table, the default; auto:"
			" this machine's cost model, fitted by `fgobench calibrate`)", value);
		return FGO_EUSAGE;
	}
	*pick = (int)p;
	return FGO_OK;
}

int cmd_option(const char *cmd, int argc, char **argv, int *i, const char *name,
	       const char **value)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];
	if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '='))
		return 0;
	if (arg[n] == '=') {
		*value = arg + n + 1;
		return 1;
	}
	if (*i + 1 >= argc) {
		cmd_say(cmd, "missing value for %s", name);
		return FGO_EUSAGE;
	}
	*value = argv[++*i];
	return 1;
}

int cmd_match_option(const char *cmd, int argc, char **argv, int *i, const char *const *opts,
		     int n, const char **value)
{
	for (int j = 0; j < n; j++) {
		int rc = cmd_option(cmd, argc, argv, i, opts[j], value);
		if (rc == 1)
			return j;
		if (rc != 0)
			return -2;
	}
	return -1;
}

void cmd_command_line(int argc, char **argv, int ranks, char *out, size_t len)
{
	/* a job fgobench launched itself is started again the same way */
	size_t n = getenv("FGOBENCH_SUPERVISED")
			   ? (size_t)snprintf(out, len, "fgobench")
			   : (size_t)snprintf(out, len, "mpirun -np %d fgobench", ranks);
	char word[1024];
	for (int i = 0; i < argc && n < len; i++) {
		sink_shell(argv[i], word, sizeof word); /* shown later, maybe pasted */
		n += (size_t)snprintf(out + n, len - n, " %s", word);
	}
}

const char *cmd_db_path(const char *opt)
{
	/* --db "" (an unset variable) is refused by store_open, not
	 * silently taken as the default store */
	if (opt)
		return opt;
	const char *env = getenv("FGOBENCH_DB");
	return env && *env ? env : "fgobench.db";
}

int cmd_finish_stdout(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	int e = errno;
	if (e == EPIPE) {
		error("cannot write the output: the reading end of the pipe was closed");
	} else {
		char text[128];
		snprintf(text, sizeof text, "%s", e ? strerror(e) : "write error");
		if (text[0] >= 'A' && text[0] <= 'Z' && !(text[1] >= 'A' && text[1] <= 'Z'))
			text[0] = (char)(text[0] - 'A' + 'a');
		error("cannot write the output: %s (is the disk full?)", text);
	}
	clearerr(stdout);
	return FGO_EFAIL;
}

enum config_field {
	F_M, F_N, F_K, F_ALGORITHM, F_DTYPE, F_WORLD, F_BLK_M, F_BLK_N, F_BLK_K, F_STAGES,
	F_WARPS, F_MMA, F_GSIZE_M, F_GEMM_SMS, F_COMM_SMS, F_COMM_BLK_M, F_COMM_BLK_N, F_SPLIT_K, F_DETERMINISTIC,
	F_CLUSTER,
};

static const struct config_flag {
	const char *name;
	enum config_field field;
	long min, max; /* for the integer flags */
} config_flags[] = {
	{ "-m", F_M, 1, 1000000000L },
	{ "-n", F_N, 1, 1000000000L },
	{ "-k", F_K, 1, 1000000000L },
	{ "--m", F_M, 1, 1000000000L }, /* as `best` spells them */
	{ "--n", F_N, 1, 1000000000L },
	{ "--k", F_K, 1, 1000000000L },
	{ "--algorithm", F_ALGORITHM, 0, 0 },
	{ "--datatype", F_DTYPE, 0, 0 },
	{ "--dtype", F_DTYPE, 0, 0 },
	{ "--world", F_WORLD, 1, 1024 },
	{ "--BLK_M", F_BLK_M, 1, 4096 },
	{ "--BLK_N", F_BLK_N, 1, 4096 },
	{ "--BLK_K", F_BLK_K, 1, 4096 },
	{ "--num_stages", F_STAGES, 1, 64 },
	{ "--num_warps", F_WARPS, 1, 1024 },
	{ "--mma", F_MMA, 1, 1024 },
	{ "--gsize_m", F_GSIZE_M, 1, 1000000 },
	{ "--gemm_sms", F_GEMM_SMS, 0, 1000000 },
	{ "--comm_sms", F_COMM_SMS, 0, 1000000 },
	{ "--comm_blk_m", F_COMM_BLK_M, 0, 4096 },
	{ "--comm_blk_n", F_COMM_BLK_N, 0, 4096 },
	{ "--split_k", F_SPLIT_K, 1, FGO_SPLIT_K_MAX },
	{ "--deterministic", F_DETERMINISTIC, 0, 1 },
	{ "--cluster", F_CLUSTER, 0, 8 }, /* 3 passes here; config_validate says why not */
};

static void set_int_field(struct fgo_config *cfg, struct fgo_config_mask *set,
			  enum config_field f, long v)
{
	switch (f) {
	case F_M: cfg->m = v; set->m = 1; break;
	case F_N: cfg->n = v; set->n = 1; break;
	case F_K: cfg->k = v; set->k = 1; break;
	case F_WORLD: cfg->world = (int)v; set->world = 1; break;
	case F_BLK_M: cfg->blk_m = (int)v; set->blk_m = 1; cfg->given |= FGO_GIVEN_BLK_M; break;
	case F_BLK_N: cfg->blk_n = (int)v; set->blk_n = 1; cfg->given |= FGO_GIVEN_BLK_N; break;
	case F_BLK_K: cfg->blk_k = (int)v; set->blk_k = 1; cfg->given |= FGO_GIVEN_BLK_K; break;
	case F_STAGES: cfg->num_stages = (int)v; set->num_stages = 1; cfg->given |= FGO_GIVEN_STAGES; break;
	case F_WARPS: cfg->num_warps = (int)v; set->num_warps = 1; cfg->given |= FGO_GIVEN_WARPS; break;
	case F_MMA: cfg->mma = (int)v; set->mma = 1; cfg->given |= FGO_GIVEN_MMA; break;
	case F_GSIZE_M: cfg->gsize_m = (int)v; set->gsize_m = 1; break;
	case F_GEMM_SMS: cfg->gemm_sms = (int)v; set->gemm_sms = 1; cfg->given |= FGO_GIVEN_SMS; break;
	case F_COMM_SMS: cfg->comm_sms = (int)v; set->comm_sms = 1; cfg->given |= FGO_GIVEN_SMS; break;
	case F_COMM_BLK_M: cfg->comm_blk_m = (int)v; set->comm_blk_m = 1; cfg->given |= FGO_GIVEN_COMM_BLK; break;
	case F_COMM_BLK_N: cfg->comm_blk_n = (int)v; set->comm_blk_n = 1; cfg->given |= FGO_GIVEN_COMM_BLK; break;
	case F_SPLIT_K: cfg->split_k = (int)v; set->split_k = 1; cfg->given |= FGO_GIVEN_SPLIT_K; break;
	case F_DETERMINISTIC: cfg->deterministic = (int)v; set->deterministic = 1; break;
	case F_CLUSTER: cfg->cluster = (int)v; set->cluster = 1; cfg->given |= FGO_GIVEN_CLUSTER; break;
	default: break;
	}
}

int cmd_config_flag(const char *cmd, int argc, char **argv, int *i, struct fgo_config *cfg,
		    struct fgo_config_mask *set)
{
	const struct config_flag *fl = NULL;
	const char *value = NULL;
	for (size_t j = 0; j < FGO_ARRAY_SIZE(config_flags) && !fl; j++) {
		int m = cmd_option(cmd, argc, argv, i, config_flags[j].name, &value);
		if (m == FGO_EUSAGE)
			return FGO_EUSAGE;
		if (m)
			fl = &config_flags[j];
	}
	if (!fl)
		return 0;

	if (fl->field == F_ALGORITHM) {
		/* all_reduce: run and sweep choose the shot; the others say so */
		const char *name = algo_is_choice(value) ? ALGO_CHOICE : cmd_algorithm(cmd, value);
		if (!name)
			return FGO_EUSAGE;
		snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", name);
		set->algorithm = 1;
	} else if (fl->field == F_MMA) {
		if (mma_parse(value, &cfg->mma) != 0) {
			cmd_say(cmd, "unknown --mma \"%s\" (use 16 or 32 for mma.sync/MFMA, wgmma for Hopper)",
				value);
			return FGO_EUSAGE;
		}
		set->mma = 1;
		cfg->given |= FGO_GIVEN_MMA;
	} else if (fl->field == F_DTYPE) {
		if (dtype_parse(value, &cfg->dtype) != 0) {
			cmd_say(cmd, "unknown datatype \"%s\" for %s (use fp32, fp16 or bf16)", value,
				fl->name);
			return FGO_EUSAGE;
		}
		set->dtype = 1;
	} else {
		long v;
		if (cmd_parse_long(cmd, fl->name, value, fl->min, fl->max, &v) != FGO_OK)
			return FGO_EUSAGE;
		set_int_field(cfg, set, fl->field, v);
	}
	return 1;
}
