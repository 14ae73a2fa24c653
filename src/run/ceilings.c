/* run/ceilings.c: the calibrated ceilings a run's sol is measured against
 * (runner.h's struct fgo_ceilings), read from the store: the matrix peak
 * per dtype, the slowest pair's link rate and the all-peers egress per W
 * (issue 51). One reader for the sweep and tune. */
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "run/runner.h"
#include "store/store.h"

void ceilings_egress_detail(int world, char *out, size_t len)
{
	snprintf(out, len, "egress w=%d", world);
}

int ceilings_load(struct fgo_store *st, const char *host, const char *backend, int max_world,
		  struct fgo_ceilings *c, char *err, size_t len)
{
	static const char *const dtypes[3] = { "fp32", "fp16", "bf16" };
	int found = 0;
	memset(c, 0, sizeof *c);
	for (int t = 0; t < 3; t++) {
		if (store_ceiling_get(st, host, backend, "matrix_peak", dtypes[t], &c->matrix_peak[t],
				      &found, err, len))
			return FGO_EFAIL;
		if (!found)
			c->matrix_peak[t] = 0;
	}
	if (store_ceiling_get(st, host, backend, "link_bw", "", &c->link_bw, &found, err, len))
		return FGO_EFAIL;
	if (!found)
		c->link_bw = 0;
	for (int w = 2; w <= max_world && w <= FGO_EGRESS_W_MAX; w++) {
		char detail[32];
		ceilings_egress_detail(w, detail, sizeof detail);
		if (store_ceiling_get_detail(st, host, backend, "link_bw", "", detail, &c->egress_bw[w],
					     &found, err, len))
			return FGO_EFAIL;
		if (!found)
			c->egress_bw[w] = 0;
	}
	return FGO_OK;
}
