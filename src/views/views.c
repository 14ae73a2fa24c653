/* views.c: shared plumbing of the read-only commands. */
#include "views/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "fgo.h"
#include "sink.h"
#include "views/table.h"

void view_text(sqlite3_stmt *st, int col, char *out, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	snprintf(out, len, "%s", s ? (const char *)s : "");
}

void view_config(sqlite3_stmt *st, int col, struct fgo_config *cfg)
{
	int *tunables[] = { &cfg->blk_m,    &cfg->blk_n,    &cfg->blk_k,     &cfg->num_stages,
			    &cfg->num_warps, &cfg->mma,     &cfg->gsize_m,   &cfg->gemm_sms,
			    &cfg->comm_sms, &cfg->comm_blk_m, &cfg->comm_blk_n, &cfg->split_k,
			    &cfg->deterministic, &cfg->cluster };
	const char *algo = (const char *)sqlite3_column_text(st, col);
	const char *dtype = (const char *)sqlite3_column_text(st, col + 1);

	memset(cfg, 0, sizeof *cfg);
	snprintf(cfg->algorithm, sizeof cfg->algorithm, "%s", algo ? algo : "");
	if (!dtype || dtype_parse(dtype, &cfg->dtype))
		cfg->dtype = FGO_FP32;
	cfg->world = sqlite3_column_int(st, col + 2);
	cfg->m = (long)sqlite3_column_int64(st, col + 3);
	cfg->n = (long)sqlite3_column_int64(st, col + 4);
	cfg->k = (long)sqlite3_column_int64(st, col + 5);
	for (size_t i = 0; i < FGO_ARRAY_SIZE(tunables); i++)
		*tunables[i] = sqlite3_column_int(st, col + 6 + (int)i);
	int at = col + 6 + (int)FGO_ARRAY_SIZE(tunables);
	view_text(st, at, cfg->params, sizeof cfg->params);
	view_text(st, at + 1, cfg->source_hash, sizeof cfg->source_hash);
}

int view_open(const char *db_opt, struct fgo_store **st)
{
	char err[1024];
	int rc = store_open(cmd_db_path(db_opt), FGO_STORE_READ, st, err, sizeof err);
	if (rc != FGO_OK)
		error("%s", err);
	return rc;
}

int view_prepare(struct fgo_store *st, const char *sql, sqlite3_stmt **out)
{
	if (sqlite3_prepare_v2(store_db(st), sql, -1, out, NULL) == SQLITE_OK)
		return FGO_OK;
	error("reading the store failed: %s", sqlite3_errmsg(store_db(st)));
	return FGO_EFAIL;
}

void view_problem_cells(struct fgo_table *t, const struct fgo_config *cfg)
{
	table_add(t, "%s", cfg->algorithm);
	table_add(t, "%s", dtype_name(cfg->dtype));
	table_add(t, "%d", cfg->world);
	table_add(t, "%ld", cfg->m);
	table_add(t, "%ld", cfg->n);
	table_add(t, "%ld", cfg->k);
}

/* What view_tile_text adds after the tile and the sm part: mma, the
 * communication tile, split_k, deterministic, cluster, each when not the
 * default. */
static void tile_extras(const struct fgo_config *cfg, char *out, size_t len, int n)
{
	if (n > 0 && (size_t)n < len && cfg->mma != 16)
		n += snprintf(out + n, len - (size_t)n, cfg->mma == FGO_MMA_WGMMA ? " %s" : " mma%s",
			      mma_name(cfg->mma));
	if (n > 0 && (size_t)n < len && (cfg->comm_blk_m || cfg->comm_blk_n))
		n += snprintf(out + n, len - (size_t)n, " c%dx%d", cfg->comm_blk_m, cfg->comm_blk_n);
	if (n > 0 && (size_t)n < len && cfg->split_k != 1)
		n += snprintf(out + n, len - (size_t)n, " k%d", cfg->split_k);
	if (n > 0 && (size_t)n < len && cfg->deterministic)
		n += snprintf(out + n, len - (size_t)n, " det");
	if (n > 0 && (size_t)n < len && cfg->cluster > 1) /* 0 and 1 are both no cluster */
		snprintf(out + n, len - (size_t)n, " cl%d", cfg->cluster);
}

void view_tile_brief(const struct fgo_config *cfg, char *out, size_t len)
{
	if (cfg->params[0]) { /* a user kernel: its own tunables */
		snprintf(out, len, "%s", cfg->params);
		return;
	}
	struct fgo_config d;
	config_defaults(&d);
	int n = snprintf(out, len, "%dx%dx%d", cfg->blk_m, cfg->blk_n, cfg->blk_k);
	if (n > 0 && (size_t)n < len && cfg->num_stages != d.num_stages)
		n += snprintf(out + n, len - (size_t)n, " s%d", cfg->num_stages);
	if (n > 0 && (size_t)n < len && cfg->num_warps != d.num_warps)
		n += snprintf(out + n, len - (size_t)n, " w%d", cfg->num_warps);
	if (n > 0 && (size_t)n < len && cfg->gsize_m != d.gsize_m)
		n += snprintf(out + n, len - (size_t)n, " g%d", cfg->gsize_m);
	if (n > 0 && (size_t)n < len && (cfg->gemm_sms != d.gemm_sms || cfg->comm_sms != d.comm_sms))
		n += snprintf(out + n, len - (size_t)n, " sm%d+%d", cfg->gemm_sms, cfg->comm_sms);
	tile_extras(cfg, out, len, n);
}

void view_tile_text(const struct fgo_config *cfg, char *out, size_t len)
{
	if (cfg->params[0]) {
		snprintf(out, len, "%s", cfg->params);
		return;
	}
	int n = snprintf(out, len, "%dx%dx%d s%d w%d g%d sm%d+%d", cfg->blk_m, cfg->blk_n,
			 cfg->blk_k, cfg->num_stages, cfg->num_warps, cfg->gsize_m, cfg->gemm_sms,
			 cfg->comm_sms);
	/* mma, the communication tile, split_k and cluster are part of the key:
	 * show them when they are not the defaults, so two rows never read the
	 * same */
	tile_extras(cfg, out, len, n);
}

void view_reproduce(const struct fgo_config *cfg, const char *spec, const char *manifest,
		    const char *command_line, char *out, size_t len)
{
	struct stat sb;
	if (!cfg->params[0] || !manifest || !*manifest) {
		config_reproduce_line(cfg, out, len);
		return;
	}
	/* a user kernel's tunables are its manifest's: a sweep of a spec with
	 * --kernel runs them; the spec must be a file to be pasted */
	if (spec && *spec && stat(spec, &sb) == 0 && S_ISREG(sb.st_mode))
		config_reproduce_user(cfg, spec, manifest, out, len);
	else if (command_line && *command_line)
		snprintf(out, len, "%s", command_line); /* made by cmd_command_line: words quoted */
	else
		config_reproduce_user(cfg, "SPEC", manifest, out, len);
}

void view_print_command_after(FILE *out, const char *lead, const char *line, int width)
{
	size_t n = sink_terminal(line, NULL, 0);
	char *text = malloc(n + 1);
	if (!text) {
		fprintf(out, "%s\n", "(out of memory)");
		return;
	}
	sink_terminal(line, text, n + 1);
	const char *p = text;
	int first = (int)strlen(lead), indent = first;
	/* room for the indent and the trailing " \\" */
	while ((int)strlen(p) + indent > width) {
		/* before an option where one fits, so a flag keeps its value */
		const char *cut = NULL, *cut_any = NULL;
		for (const char *q = p; *q && q - p + indent <= width - 2; q++)
			if (*q == ' ') {
				cut_any = q;
				if (q[1] == '-')
					cut = q;
			}
		if (!cut)
			cut = cut_any;
		if (!cut || cut == p)
			break;
		if (indent == first)
			fprintf(out, "%s%.*s \\\n", lead, (int)(cut - p), p);
		else
			fprintf(out, "%*s%.*s \\\n", indent, "", (int)(cut - p), p);
		p = cut + 1;
		indent = first + 4;
	}
	if (indent == first)
		fprintf(out, "%s%s\n", lead, p);
	else
		fprintf(out, "%*s%s\n", indent, "", p);
	free(text);
}

void view_print_wrapped(FILE *out, const char *lead, const char *text, int indent, int width)
{
	size_t n = sink_terminal(text, NULL, 0);
	char *shown = malloc(n + 1);
	if (!shown) {
		fprintf(out, "%s(out of memory)\n", lead);
		return;
	}
	sink_terminal(text, shown, n + 1);
	const char *p = shown;
	int at = (int)strlen(lead);
	fputs(lead, out);
	while (*p) {
		int room = width - at;
		/* the longest run of words that fits; a word longer than the
		 * line stays whole */
		int take = (int)strlen(p);
		if (take > room) {
			int cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			take = cut > 0 ? cut : (int)strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", take, p);
		p += take;
		p += strspn(p, " ");
		if (*p)
			fprintf(out, "%*s", indent, "");
		at = indent;
	}
	if (!*shown)
		fputc('\n', out);
	free(shown);
}

void view_print_command(FILE *out, const char *line, int width)
{
	view_print_command_after(out, "", line, width);
}
