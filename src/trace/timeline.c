/* trace/timeline.c: events paired into spans on one timeline, and the
 * summary of a traced launch (see timeline.h). */
#include "trace/timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

static const char *const kind_names[FGO_TR_KINDS] = {
	"kernel", "gemm", "handover", "takeover", "put", "wait", "reduce",
};

const char *trace_kind_name(int kind)
{
	return kind >= 0 && kind < FGO_TR_KINDS ? kind_names[kind] : "?";
}

int trace_kind_of(const char *name)
{
	for (int k = 0; name && k < FGO_TR_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

int trace_spans_push(struct fgo_spans *out, const struct fgo_span *s)
{
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 256;
		struct fgo_span *g = realloc(out->s, cap * sizeof *g);
		if (!g)
			return FGO_EFAIL;
		out->s = g;
		out->cap = cap;
	}
	out->s[out->n++] = *s;
	return FGO_OK;
}

void trace_spans_free(struct fgo_spans *sp)
{
	free(sp->s);
	memset(sp, 0, sizeof *sp);
}

static int by_time(const void *a, const void *b)
{
	const struct fgo_trace_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* at one instant an end closes before a begin opens */
	return (int)(y->what & FGO_TR_END) - (int)(x->what & FGO_TR_END);
}

/* The events of one CTA, in time order, paired per lane with a stack each:
 * an end closes the innermost open span of its kind; a begin never closed
 * or an end with no begin is counted unpaired. */
static int cta_spans(struct fgo_spans *out, const struct fgo_trace_rank *r, int cta)
{
	unsigned int n = r->head[cta].count;
	if (n > (unsigned int)r->cap) {
		out->dropped += (long)(n - (unsigned int)r->cap);
		n = (unsigned int)r->cap;
	}
	out->events += n;
	if (n == 0)
		return FGO_OK;
	struct fgo_trace_event *ev = malloc(n * sizeof *ev);
	/* open[lane][depth]: index into ev of an open begin */
	enum { DEPTH = 16 };
	unsigned int open[FGO_TR_LANES][DEPTH];
	int depth[FGO_TR_LANES] = { 0 };
	int sm = (int)r->head[cta].sm;
	if (!ev)
		return FGO_EFAIL;
	memcpy(ev, r->ev + (size_t)cta * (size_t)r->cap, n * sizeof *ev);
	qsort(ev, n, sizeof *ev, by_time);
	for (unsigned int i = 0; i < n; i++) {
		int lane = FGO_TR_LANE_OF(ev[i].what) % FGO_TR_LANES, kind = FGO_TR_KIND_OF(ev[i].what);
		if (kind == FGO_TR_KERNEL && ev[i].a[0] >= 0)
			sm = ev[i].a[0];
		if (!(ev[i].what & FGO_TR_END)) {
			if (depth[lane] == DEPTH) {
				out->unpaired++;
				continue;
			}
			open[lane][depth[lane]++] = i;
			continue;
		}
		int d = depth[lane] - 1;
		while (d >= 0 && FGO_TR_KIND_OF(ev[open[lane][d]].what) != kind)
			d--;
		if (d < 0) {
			out->unpaired++;
			continue;
		}
		const struct fgo_trace_event *b = &ev[open[lane][d]];
		struct fgo_span s = {
			.rank = r->rank, .cta = cta, .lane = lane, .kind = kind,
			.t0 = ((double)b->ts - (double)r->ref_ns) * 1e-3,
			.t1 = ((double)ev[i].ts - (double)r->ref_ns) * 1e-3, .sm = sm,
		};
		memcpy(s.a, b->a, sizeof s.a);
		/* out of the stack; begins of other kinds above it stay open (two
		 * spans that begin at one instant come in either order) */
		for (int k = d; k + 1 < depth[lane]; k++)
			open[lane][k] = open[lane][k + 1];
		depth[lane]--;
		if (trace_spans_push(out, &s) != FGO_OK) {
			free(ev);
			return FGO_EFAIL;
		}
	}
	for (int l = 0; l < FGO_TR_LANES; l++)
		out->unpaired += depth[l];
	free(ev);
	return FGO_OK;
}

int trace_spans_add(struct fgo_spans *out, const struct fgo_trace_rank *r)
{
	size_t first = out->n;
	for (int c = 0; c < r->ctas; c++)
		if (cta_spans(out, r, c) != FGO_OK)
			return FGO_EFAIL;
	/* every span of a CTA names the CTA's SM, known from its kernel span */
	for (size_t i = first; i < out->n; i++)
		if (out->s[i].kind == FGO_TR_KERNEL)
			for (size_t j = first; j < out->n; j++)
				if (out->s[j].cta == out->s[i].cta)
					out->s[j].sm = out->s[i].a[0];
	return FGO_OK;
}

/* ---- intervals: sorted, disjoint lists of [t0, t1) ---- */

struct iv {
	double t0, t1;
};

struct ivs {
	struct iv *v;
	size_t n, cap;
};

static int iv_push(struct ivs *l, double t0, double t1)
{
	if (!(t1 > t0))
		return FGO_OK;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct iv *g = realloc(l->v, cap * sizeof *g);
		if (!g)
			return FGO_EFAIL;
		l->v = g;
		l->cap = cap;
	}
	l->v[l->n++] = (struct iv){ t0, t1 };
	return FGO_OK;
}

static int iv_cmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : 0;
}

/* Sorts and merges l into disjoint intervals. */
static void iv_merge(struct ivs *l)
{
	size_t w = 0;
	if (l->n == 0)
		return;
	qsort(l->v, l->n, sizeof *l->v, iv_cmp);
	for (size_t i = 1; i < l->n; i++) {
		if (l->v[i].t0 <= l->v[w].t1) {
			if (l->v[i].t1 > l->v[w].t1)
				l->v[w].t1 = l->v[i].t1;
		} else {
			l->v[++w] = l->v[i];
		}
	}
	l->n = w + 1;
}

static double iv_len(const struct ivs *l)
{
	double s = 0;
	for (size_t i = 0; i < l->n; i++)
		s += l->v[i].t1 - l->v[i].t0;
	return s;
}

/* Length of the intersection of two merged lists. */
static double iv_inter(const struct ivs *a, const struct ivs *b)
{
	double s = 0;
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		double lo = fmax(a->v[i].t0, b->v[j].t0), hi = fmin(a->v[i].t1, b->v[j].t1);
		if (hi > lo)
			s += hi - lo;
		if (a->v[i].t1 < b->v[j].t1)
			i++;
		else
			j++;
	}
	return s;
}

/* dst = merged union of dst and src (both merged). */
static int iv_union(struct ivs *dst, const struct ivs *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (iv_push(dst, src->v[i].t0, src->v[i].t1) != FGO_OK)
			return FGO_EFAIL;
	iv_merge(dst);
	return FGO_OK;
}

/* The categories of CTA time, in the order an instant is counted. */
enum { CAT_GEMM, CAT_COMM, CAT_XCHG, CAT_WAIT, CATS };

static int category(int kind)
{
	switch (kind) {
	case FGO_TR_GEMM: return CAT_GEMM;
	case FGO_TR_PUT:
	case FGO_TR_REDUCE: return CAT_COMM;
	case FGO_TR_HANDOVER:
	case FGO_TR_TAKEOVER: return CAT_XCHG;
	case FGO_TR_WAIT: return CAT_WAIT;
	default: return -1;
	}
}

static void ivs_free(struct ivs *l, int n)
{
	for (int i = 0; i < n; i++) {
		free(l[i].v);
		memset(&l[i], 0, sizeof l[i]);
	}
}

/* One CTA's exclusive time per category (excl[CATS]) within its kernel
 * span(s) of length *life; the spans of the CTA are sp->s[idx[0..n)]. */
static int cta_shares(const struct fgo_spans *sp, const size_t *idx, size_t n, double *life,
		      double excl[CATS])
{
	struct ivs cat[CATS], kern = { 0 }, seen = { 0 };
	int rc = FGO_EFAIL;
	memset(cat, 0, sizeof cat);
	for (size_t i = 0; i < n; i++) {
		const struct fgo_span *s = &sp->s[idx[i]];
		int c = category(s->kind);
		if (s->kind == FGO_TR_KERNEL && iv_push(&kern, s->t0, s->t1) != FGO_OK)
			goto out;
		if (c >= 0 && iv_push(&cat[c], s->t0, s->t1) != FGO_OK)
			goto out;
	}
	iv_merge(&kern);
	*life = iv_len(&kern);
	for (int c = 0; c < CATS; c++) {
		iv_merge(&cat[c]);
		/* only what lies within the CTA's life counts */
		struct ivs clip = { 0 };
		for (size_t i = 0; i < cat[c].n; i++)
			for (size_t k = 0; k < kern.n; k++) {
				double lo = fmax(cat[c].v[i].t0, kern.v[k].t0);
				double hi = fmin(cat[c].v[i].t1, kern.v[k].t1);
				if (hi > lo && iv_push(&clip, lo, hi) != FGO_OK) {
					free(clip.v);
					goto out;
				}
			}
		iv_merge(&clip);
		excl[c] = iv_len(&clip) - iv_inter(&clip, &seen);
		int u = iv_union(&seen, &clip);
		free(clip.v);
		if (u != FGO_OK)
			goto out;
	}
	rc = FGO_OK;
out:
	ivs_free(cat, CATS);
	free(kern.v);
	free(seen.v);
	return rc;
}

static int by_rank_cta(const void *a, const void *b, void *arg)
{
	const struct fgo_span *s = arg;
	const struct fgo_span *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->cta != y->cta)
		return x->cta < y->cta ? -1 : 1;
	return 0;
}

static int wait_add(struct fgo_trace_summary *o, int rank, int peer, double us)
{
	for (int i = 0; i < o->nwaits; i++)
		if (o->waits[i].rank == rank && o->waits[i].peer == peer) {
			o->waits[i].us += us;
			o->waits[i].count++;
			return FGO_OK;
		}
	struct fgo_trace_wait *g = realloc(o->waits, (size_t)(o->nwaits + 1) * sizeof *g);
	if (!g)
		return FGO_EFAIL;
	o->waits = g;
	o->waits[o->nwaits++] = (struct fgo_trace_wait){ rank, peer, us, 1 };
	return FGO_OK;
}

static int wait_cmp(const void *a, const void *b)
{
	const struct fgo_trace_wait *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->peer < y->peer ? -1 : x->peer > y->peer;
}

/* Per rank: hidden share (communication under GEMM) and the rank's times. */
static int rank_sums(const struct fgo_spans *sp, struct fgo_trace_summary *o, double *comm_all,
		     double *hidden_all)
{
	for (int r = 0; r < o->world; r++) {
		struct fgo_trace_rank_sum *rs = &o->ranks[r];
		struct ivs g = { 0 }, c = { 0 };
		double last_gemm = NAN;
		rs->rank = r;
		rs->start_us = rs->end_us = NAN;
		for (size_t i = 0; i < sp->n; i++) {
			const struct fgo_span *s = &sp->s[i];
			if (s->rank != r)
				continue;
			if (s->kind == FGO_TR_KERNEL) {
				if (isnan(rs->start_us) || s->t0 < rs->start_us)
					rs->start_us = s->t0;
				if (isnan(rs->end_us) || s->t1 > rs->end_us)
					rs->end_us = s->t1;
			}
			int cat = category(s->kind), rc = FGO_OK;
			if (cat == CAT_GEMM) {
				rc = iv_push(&g, s->t0, s->t1);
				if (isnan(last_gemm) || s->t1 > last_gemm)
					last_gemm = s->t1;
			} else if (cat == CAT_COMM) {
				rc = iv_push(&c, s->t0, s->t1);
			}
			if (rc != FGO_OK) {
				free(g.v);
				free(c.v);
				return FGO_EFAIL;
			}
		}
		iv_merge(&g);
		iv_merge(&c);
		double cl = iv_len(&c), hid = iv_inter(&c, &g);
		rs->hidden_pct = cl > 0 ? 100.0 * hid / cl : NAN;
		*comm_all += cl;
		*hidden_all += hid;
		rs->tail_us = !isnan(last_gemm) && !isnan(rs->end_us) ? rs->end_us - last_gemm : NAN;
		free(g.v);
		free(c.v);
	}
	return FGO_OK;
}

int trace_summarise(const struct fgo_spans *sp, int world, struct fgo_trace_summary *o)
{
	size_t *idx = NULL;
	double cat_all[CATS] = { 0 }, life_all = 0, comm_all = 0, hidden_all = 0;
	double *rank_life = NULL, *rank_gemm = NULL;
	int rc = FGO_EFAIL;

	memset(o, 0, sizeof *o);
	o->world = world;
	o->events = sp->events;
	o->dropped = sp->dropped;
	o->unpaired = sp->unpaired;
	o->traced_ms = o->untraced_ms = o->overhead_pct = NAN;
	o->ranks = calloc((size_t)(world > 0 ? world : 1), sizeof *o->ranks);
	rank_life = calloc((size_t)(world > 0 ? world : 1), sizeof *rank_life);
	rank_gemm = calloc((size_t)(world > 0 ? world : 1), sizeof *rank_gemm);
	idx = malloc((sp->n ? sp->n : 1) * sizeof *idx);
	if (!o->ranks || !idx || !rank_life || !rank_gemm)
		goto out;
	for (size_t i = 0; i < sp->n; i++)
		idx[i] = i;
	qsort_r(idx, sp->n, sizeof *idx, by_rank_cta, sp->s);
	for (size_t i = 0; i < sp->n;) {
		size_t j = i;
		while (j < sp->n && sp->s[idx[j]].rank == sp->s[idx[i]].rank &&
		       sp->s[idx[j]].cta == sp->s[idx[i]].cta)
			j++;
		double life = 0, excl[CATS] = { 0 };
		int r = sp->s[idx[i]].rank;
		if (cta_shares(sp, idx + i, j - i, &life, excl) != FGO_OK)
			goto out;
		if (life > 0)
			o->ctas++;
		life_all += life;
		for (int c = 0; c < CATS; c++)
			cat_all[c] += excl[c];
		if (r >= 0 && r < world) {
			rank_life[r] += life;
			rank_gemm[r] += excl[CAT_GEMM];
		}
		i = j;
	}
	if (life_all > 0) {
		double busy = 0;
		double *pct[CATS] = { &o->gemm_pct, &o->comm_pct, &o->xchg_pct, &o->wait_pct };
		for (int c = 0; c < CATS; c++) {
			*pct[c] = 100.0 * cat_all[c] / life_all;
			busy += cat_all[c];
		}
		o->idle_pct = 100.0 * (life_all - busy) / life_all;
	} else {
		o->gemm_pct = o->comm_pct = o->xchg_pct = o->wait_pct = o->idle_pct = NAN;
	}
	if (rank_sums(sp, o, &comm_all, &hidden_all) != FGO_OK)
		goto out;
	o->hidden_pct = comm_all > 0 ? 100.0 * hidden_all / comm_all : NAN;
	double first = NAN, last = NAN, start_min = NAN, start_max = NAN;
	o->tail_us = NAN;
	for (int r = 0; r < world; r++) {
		struct fgo_trace_rank_sum *rs = &o->ranks[r];
		rs->gemm_pct = rank_life[r] > 0 ? 100.0 * rank_gemm[r] / rank_life[r] : NAN;
		if (isnan(rs->start_us))
			continue;
		first = isnan(first) ? rs->start_us : fmin(first, rs->start_us);
		last = isnan(last) ? rs->end_us : fmax(last, rs->end_us);
		start_min = isnan(start_min) ? rs->start_us : fmin(start_min, rs->start_us);
		start_max = isnan(start_max) ? rs->start_us : fmax(start_max, rs->start_us);
		if (!isnan(rs->tail_us))
			o->tail_us = isnan(o->tail_us) ? rs->tail_us : fmax(o->tail_us, rs->tail_us);
	}
	o->kernel_us = last - first;
	o->skew_us = start_max - start_min;
	for (size_t i = 0; i < sp->n; i++) {
		const struct fgo_span *s = &sp->s[i];
		if (s->kind == FGO_TR_WAIT && wait_add(o, s->rank, s->a[1], s->t1 - s->t0) != FGO_OK)
			goto out;
		/* each tile has one segment that starts it (k0 = 0) */
		if (s->kind == FGO_TR_GEMM && s->a[3] == 0)
			o->tiles++;
	}
	if (o->nwaits > 1)
		qsort(o->waits, (size_t)o->nwaits, sizeof *o->waits, wait_cmp);
	rc = FGO_OK;
out:
	free(idx);
	free(rank_life);
	free(rank_gemm);
	if (rc != FGO_OK)
		trace_summary_free(o);
	return rc;
}

void trace_summary_free(struct fgo_trace_summary *s)
{
	free(s->ranks);
	free(s->waits);
	s->ranks = NULL;
	s->waits = NULL;
	s->nwaits = 0;
}
