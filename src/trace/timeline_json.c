/* trace/timeline_json.c: spans to and from the Chrome/Perfetto trace-event
 * JSON (the "JSON Array/Object Format": complete events "ph":"X" with ts
 * and dur in microseconds, metadata events "ph":"M" naming processes and
 * threads), which chrome://tracing and ui.perfetto.dev open. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "fgo.h"
#include "trace/timeline.h"

/* s as a JSON string (quotes included): ", \ and control bytes escaped. */
static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The argument names of each kind, in the order of a0 .. a4 (NULL: unused). */
static const char *const arg_names[FGO_TR_KINDS][5] = {
	[FGO_TR_KERNEL] = { "sm", "mode", NULL, NULL, NULL },
	[FGO_TR_GEMM] = { "tile", "tm", "tn", "k0", "k1" },
	[FGO_TR_HANDOVER] = { "tile", "k0", "k1", NULL, NULL },
	[FGO_TR_TAKEOVER] = { "tile", "first_cta", "last_cta", NULL, NULL },
	[FGO_TR_PUT] = { "peer", "bytes", "tile", NULL, NULL },
	[FGO_TR_WAIT] = { "flag", "peer", NULL, NULL, NULL },
	[FGO_TR_REDUCE] = { "tile", "sources", NULL, NULL, NULL },
};

static const char *const lane_names[FGO_TR_LANES] = { "", " storer", " side", " lane3" };

/* a number as JSON: NaN and infinities have no JSON form (null) */
static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("null", f);
}

static void write_summary(FILE *f, const struct fgo_trace_summary *s)
{
	fputs(",\"summary\":{\"gemm_pct\":", f);
	json_num(f, s->gemm_pct);
	fputs(",\"comm_pct\":", f);
	json_num(f, s->comm_pct);
	fputs(",\"xchg_pct\":", f);
	json_num(f, s->xchg_pct);
	fputs(",\"wait_pct\":", f);
	json_num(f, s->wait_pct);
	fputs(",\"idle_pct\":", f);
	json_num(f, s->idle_pct);
	fputs(",\"hidden_pct\":", f);
	json_num(f, s->hidden_pct);
	fputs(",\"tail_us\":", f);
	json_num(f, s->tail_us);
	fputs(",\"skew_us\":", f);
	json_num(f, s->skew_us);
	fputs(",\"kernel_us\":", f);
	json_num(f, s->kernel_us);
	fprintf(f, ",\"tiles\":%ld,\"events\":%ld,\"dropped\":%ld,\"unpaired\":%ld}", s->tiles,
		s->events, s->dropped, s->unpaired);
}

/* Orders span indices by (rank, CTA, lane): timeline.h. */
int trace_span_by_track(const void *a, const void *b, void *arg)
{
	const struct fgo_span *s = arg;
	const struct fgo_span *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->cta != y->cta)
		return x->cta < y->cta ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

int trace_json_write(const char *path, const struct fgo_spans *sp, int world, const char *about,
		     const struct fgo_trace_summary *sum, char *err, size_t len)
{
	struct atomic_file af;
	int rc = atomic_open(&af, path, err, len);
	if (rc != FGO_OK)
		return rc;
	FILE *f = af.f;
	double t_min = 0;
	for (size_t i = 0; i < sp->n; i++)
		if (i == 0 || sp->s[i].t0 < t_min)
			t_min = sp->s[i].t0;
	/* ts from the earliest event (viewers start at zero); each rank's zero
	 * was its barrier's, the same instant on every rank */
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
	int first = 1;
	for (int r = 0; r < world; r++) {
		fprintf(f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			   "\"args\":{\"name\":\"rank %d\"}},\n"
			   "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			   "\"args\":{\"sort_index\":%d}}",
			first ? "" : ",\n", r, r, r, r);
		first = 0;
	}
	/* one thread name per (rank, CTA, lane) that has spans */
	size_t *order = malloc((sp->n ? sp->n : 1) * sizeof *order);
	if (!order) {
		atomic_abort(&af);
		snprintf(err, len, "out of memory writing %s", path);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < sp->n; i++)
		order[i] = i;
	qsort_r(order, sp->n, sizeof *order, trace_span_by_track, sp->s);
	for (size_t k = 0; k < sp->n; k++) {
		const struct fgo_span *s = &sp->s[order[k]];
		if (k > 0 && trace_span_by_track(&order[k - 1], &order[k], sp->s) == 0)
			continue;
		int tid = s->cta * FGO_TR_LANES + s->lane;
		char name[96];
		if (s->sm >= 0)
			snprintf(name, sizeof name, "CTA %d (SM %d)%s", s->cta, s->sm, lane_names[s->lane]);
		else
			snprintf(name, sizeof name, "CTA %d%s", s->cta, lane_names[s->lane]);
		fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			   "\"args\":{\"name\":\"%s\"}},\n"
			   "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			   "\"args\":{\"sort_index\":%d}}",
			first ? "" : ",\n", s->rank, tid, name, s->rank, tid, tid);
		first = 0;
	}
	free(order);
	for (size_t i = 0; i < sp->n; i++) {
		const struct fgo_span *s = &sp->s[i];
		const char *kn = trace_kind_name(s->kind);
		fprintf(f, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
			   "\"ts\":%.3f,\"dur\":%.3f,\"args\":{",
			first ? "" : ",\n", kn, kn, s->rank, s->cta * FGO_TR_LANES + s->lane,
			s->t0 - t_min, s->t1 - s->t0);
		first = 0;
		int comma = 0;
		for (int a = 0; a < 5; a++) {
			const char *an = s->kind >= 0 && s->kind < FGO_TR_KINDS ? arg_names[s->kind][a] : NULL;
			if (!an)
				continue;
			fprintf(f, "%s\"%s\":%d", comma ? "," : "", an, s->a[a]);
			comma = 1;
		}
		fprintf(f, "%s\"cta\":%d,\"lane\":%d}}", comma ? "," : "", s->cta, s->lane);
	}
	fputs("\n],\n\"otherData\":{\"fgobench\":{\"about\":", f);
	json_string(f, about);
	fprintf(f, ",\"world\":%d,\"origin_us\":%.3f", world, t_min);
	if (sum)
		write_summary(f, sum);
	fputs("}}}\n", f);
	return atomic_commit(&af, err, len);
}

static int num(const cJSON *o, const char *key, double *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return 0;
	*v = x->valuedouble;
	return 1;
}

int trace_json_read(const char *path, struct fgo_spans *out, int *world, char *err, size_t len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t n = 0, cap = 0;
	int rc = FGO_EUSAGE;

	memset(out, 0, sizeof *out);
	*world = 0;
	if (!f) {
		snprintf(err, len, "cannot open %s (give the file `run --trace` wrote)", path);
		return FGO_EUSAGE;
	}
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 1 << 20;
			char *g = realloc(text, cap);
			if (!g) {
				fclose(f);
				free(text);
				snprintf(err, len, "out of memory reading %s", path);
				return FGO_EFAIL;
			}
			text = g;
		}
		size_t got = fread(text + n, 1, 65536, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	text[n] = 0;
	cJSON *root = cJSON_ParseWithLength(text, n);
	free(text);
	const cJSON *evs = root ? cJSON_GetObjectItemCaseSensitive(root, "traceEvents") : NULL;
	if (!root)
		snprintf(err, len, "%s is not JSON (give the file `run --trace` wrote)", path);
	else if (!cJSON_IsArray(evs))
		snprintf(err, len, "%s has no \"traceEvents\" array (not a trace-event JSON)", path);
	else
		rc = FGO_OK;
	const cJSON *e;
	const cJSON *list = rc == FGO_OK ? evs : NULL;
	cJSON_ArrayForEach(e, list)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		double pid, tid, ts, dur, v;
		if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat))
			continue;
		int kind = trace_kind_of(cat->valuestring);
		if (kind < 0 || !num(e, "pid", &pid) || !num(e, "tid", &tid) || !num(e, "ts", &ts) ||
		    !num(e, "dur", &dur) || pid < 0 || pid > 1e6 || tid < 0 || tid > 1e9 || dur < 0)
			continue;
		struct fgo_span s = { .rank = (int)pid, .cta = (int)tid / FGO_TR_LANES,
				      .lane = (int)tid % FGO_TR_LANES, .kind = kind, .t0 = ts,
				      .t1 = ts + dur, .sm = -1 };
		for (int a = 0; a < 5; a++)
			s.a[a] = -1;
		if (kind == FGO_TR_KERNEL && args && num(args, "sm", &v))
			s.sm = (int)v;
		if (kind == FGO_TR_GEMM && args) {
			static const char *const keys[5] = { "tile", "tm", "tn", "k0", "k1" };
			for (int a = 0; a < 5; a++)
				if (num(args, keys[a], &v) && fabs(v) < 2e9)
					s.a[a] = (int)v;
		}
		if (trace_spans_push(out, &s) != FGO_OK) {
			snprintf(err, len, "out of memory reading %s", path);
			rc = FGO_EFAIL;
			break;
		}
		if (s.rank + 1 > *world)
			*world = s.rank + 1;
	}
	cJSON_Delete(root);
	if (rc == FGO_OK && out->n == 0) {
		snprintf(err, len, "%s has no events of fgobench's kinds (kernel, gemm, put, ...)", path);
		rc = FGO_EUSAGE;
	}
	if (rc != FGO_OK)
		trace_spans_free(out);
	return rc;
}
