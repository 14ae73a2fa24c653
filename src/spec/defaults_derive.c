/* spec/defaults_derive.c: a row of the defaults table judged on a store's
 * numbers, and the pick those numbers choose (defaults_derive.h). The
 * table's text is defaults_write.c's. */
#include "spec/defaults_derive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"

void derive_row_pick(const struct defaults_row *r, int takes_units, struct defaults_pick *out)
{
	/* as defaults_apply sets them on a configuration that gave nothing */
	out->blk_m = r->blk_m;
	out->blk_n = r->blk_n;
	out->blk_k = r->blk_k;
	out->num_stages = r->num_stages;
	out->num_warps = r->num_warps;
	out->split_k = takes_units ? 1 : r->split_k;
	out->comm_blk_m = r->comm_blk_m;
}

void derive_pick_of(const struct fgo_config *c, struct defaults_pick *out)
{
	*out = (struct defaults_pick){ c->blk_m,     c->blk_n,   c->blk_k,     c->num_stages,
				       c->num_warps, c->split_k, c->comm_blk_m };
}

void derive_pick_to_row(const struct defaults_pick *p, struct defaults_row *r)
{
	r->blk_m = p->blk_m;
	r->blk_n = p->blk_n;
	r->blk_k = p->blk_k;
	r->num_stages = p->num_stages;
	r->num_warps = p->num_warps;
	r->split_k = p->split_k;
	r->comm_blk_m = p->comm_blk_m;
}

int derive_pick_eq(const struct defaults_pick *a, const struct defaults_pick *b)
{
	return a->blk_m == b->blk_m && a->blk_n == b->blk_n && a->blk_k == b->blk_k &&
	       a->num_stages == b->num_stages && a->num_warps == b->num_warps &&
	       a->split_k == b->split_k && a->comm_blk_m == b->comm_blk_m;
}

/* The order ties fall back on, so the same store always gives the same
 * pick: field by field, smaller first. */
static int pick_cmp(const struct defaults_pick *a, const struct defaults_pick *b)
{
	const int x[] = { a->blk_m, a->blk_n, a->blk_k, a->num_stages, a->num_warps, a->split_k,
			  a->comm_blk_m };
	const int y[] = { b->blk_m, b->blk_n, b->blk_k, b->num_stages, b->num_warps, b->split_k,
			  b->comm_blk_m };
	for (size_t i = 0; i < FGO_ARRAY_SIZE(x); i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The measurements of a row's problems: m's entries at idx[0..n). */
struct row_meas {
	const struct derive_meas *m;
	const size_t *idx;
	size_t n;
};

/* The time of pick on problem q, 0 when it was not measured there. */
static double time_of(const struct row_meas *rm, int q, const struct defaults_pick *pick)
{
	for (size_t i = 0; i < rm->n; i++)
		if (rm->m[rm->idx[i]].problem == q && derive_pick_eq(&rm->m[rm->idx[i]].pick, pick))
			return rm->m[rm->idx[i]].ms;
	return 0;
}

/* pick's times on the row's problems against their best (one time per
 * pick and problem, as the caller promises). */
static void stats_of(const struct derive_problem *p, const struct row_meas *rm,
		     const struct defaults_pick *pick, struct derive_stats *s)
{
	double logs = 0;
	memset(s, 0, sizeof *s);
	s->worst_at = -1;
	for (size_t i = 0; i < rm->n; i++) {
		const struct derive_meas *x = &rm->m[rm->idx[i]];
		if (!derive_pick_eq(&x->pick, pick) || x->ms <= 0 || p[x->problem].best_ms <= 0)
			continue;
		double ratio = x->ms / p[x->problem].best_ms;
		logs += log(ratio);
		s->measured++;
		if (ratio > s->worst) {
			s->worst = ratio;
			s->worst_at = x->problem;
		}
	}
	if (s->measured)
		s->geomean = exp(logs / s->measured);
}

/* 1 when candidate a (its stats sa) is a better derived pick than b (sb):
 * more problems covered, then the lower geomean, the lower worst, the
 * pick's order. */
static int better(const struct defaults_pick *a, const struct derive_stats *sa,
		  const struct defaults_pick *b, const struct derive_stats *sb)
{
	/* equal within rounding (a geomean through log and exp): the next key */
	const double eps = 1e-12;
	if (sa->measured != sb->measured)
		return sa->measured > sb->measured;
	if (fabs(sa->geomean - sb->geomean) > eps * sb->geomean)
		return sa->geomean < sb->geomean;
	if (fabs(sa->worst - sb->worst) > eps * sb->worst)
		return sa->worst < sb->worst;
	return pick_cmp(a, b) < 0;
}

/* The derived pick of the row: every pick measured on one of its problems
 * is a candidate, each judged once (at its first time in the row). */
static void choose(const struct derive_problem *p, const struct row_meas *rm, struct derive_row *out)
{
	out->der.worst_at = -1;
	for (size_t i = 0; i < rm->n; i++) {
		const struct defaults_pick *c = &rm->m[rm->idx[i]].pick;
		struct derive_stats s;
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = derive_pick_eq(&rm->m[rm->idx[j]].pick, c);
		if (seen)
			continue;
		stats_of(p, rm, c, &s);
		if (s.measured && (!out->have_derived || better(c, &s, &out->derived, &out->der))) {
			out->have_derived = 1;
			out->derived = *c;
			out->der = s;
		}
	}
}

int derive_row(const struct derive_problem *p, size_t np, const struct derive_meas *m, size_t nm,
		int row, const struct defaults_pick *current, struct derive_row *out)
{
	size_t *idx = malloc((nm ? nm : 1) * sizeof *idx);
	struct row_meas rm = { .m = m, .idx = idx, .n = 0 };
	memset(out, 0, sizeof *out);
	out->current = *current;
	out->cur.worst_at = out->der.worst_at = -1;
	for (size_t q = 0; q < np; q++)
		out->problems += p[q].row == row;
	if (!idx)
		return -1;
	for (size_t i = 0; i < nm; i++)
		if (m[i].problem >= 0 && (size_t)m[i].problem < np && p[m[i].problem].row == row)
			idx[rm.n++] = i;
	stats_of(p, &rm, current, &out->cur);
	choose(p, &rm, out);
	/* the two against each other where both were measured */
	if (out->have_derived) {
		double logs = 0;
		for (size_t q = 0; q < np; q++) {
			double a, b;
			if (p[q].row != row)
				continue;
			a = time_of(&rm, (int)q, &out->derived);
			b = time_of(&rm, (int)q, current);
			if (a > 0 && b > 0) {
				logs += log(a / b);
				out->paired++;
			}
		}
		if (out->paired)
			out->vs_current = exp(logs / out->paired);
	}
	free(idx);
	if (!out->problems)
		out->verdict = DERIVE_NO_PROBLEM;
	else if (!out->have_derived)
		out->verdict = DERIVE_UNMEASURED;
	else if (derive_pick_eq(&out->derived, current))
		out->verdict = DERIVE_SAME;
	/* one problem, even a row's only one, is a point of a box that spans
	 * factors of 2 to 64 in rows and C: a pick it alone chose moves with
	 * that problem's noise and says nothing of the rest of the box */
	else if (out->der.measured < 2)
		out->verdict = DERIVE_THIN;
	else if (!out->paired)
		out->verdict = DERIVE_UNPAIRED;
	else if (out->vs_current >= 1 - DERIVE_MIN_GAIN)
		out->verdict = DERIVE_CLOSE;
	else
		out->verdict = DERIVE_REPLACE;
	return 0;
}

void derive_verdict_text(const struct derive_row *r, char *out, size_t len)
{
	switch (r->verdict) {
	case DERIVE_NO_PROBLEM:
		snprintf(out, len, "kept: no problem");
		break;
	case DERIVE_UNMEASURED:
		snprintf(out, len, "kept: no pick measured");
		break;
	case DERIVE_SAME:
		snprintf(out, len, "kept: the same pick");
		break;
	case DERIVE_THIN:
		snprintf(out, len, "kept: derived on %d of %d", r->der.measured, r->problems);
		break;
	case DERIVE_UNPAIRED:
		snprintf(out, len, "kept: pick not beside it");
		break;
	case DERIVE_CLOSE:
		snprintf(out, len, "kept: %.3fx on %d", r->vs_current, r->paired);
		break;
	case DERIVE_REPLACE:
		snprintf(out, len, "replace: %.3fx on %d", r->vs_current, r->paired);
		break;
	}
}

void derive_evidence(const struct derive_row *r, const char *store, char *out, size_t len)
{
	snprintf(out, len,
		 "derived from %s by best --defaults: within %.1f%% of the best on %d of %d problems,"
		 " geomean %.3f", store, (r->der.worst - 1) * 100, r->der.measured, r->problems,
		 r->der.geomean);
}
