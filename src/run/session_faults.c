/* session_faults.c: a resumed sweep's account of the kernels that ended its
 * previous job (see session.h): the flight records (run/flight.h) stored as
 * crashed or hung runs, which the sweep then does not run again unless
 * asked, and the summary's count of such runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/result.h"
#include "fgo.h"
#include "run/flight.h"
#include "run/session.h"
#include "sink.h"
#include "store/store.h"

int session_blame(struct fgo_store *st, int64_t sweep_id, const char *dir, char *err, size_t len)
{
	struct flight_blame *b = NULL;
	size_t n = 0;
	int stopped = 0;
	if (flight_read(dir, sweep_id, &b, &n, &stopped) != FGO_OK) {
		snprintf(err, len, "cannot read the flight folder %s: remove it or fix its permissions",
			 dir);
		return FGO_EFAIL;
	}
	int rc = FGO_OK;
	for (size_t i = 0; i < n && rc == FGO_OK; i++) {
		int found = 0;
		rc = store_run_fault(st, sweep_id, b[i].key, b[i].status, b[i].reason, &found, err,
				     len);
		if (rc == FGO_OK && found) {
			char key[FGO_KEY_MAX + 64], why[2 * FGO_REASON_MAX];
			sink_terminal(b[i].key, key, sizeof key);
			sink_terminal(b[i].reason, why, sizeof why);
			note("%s %s: %s; stored as %s, not run again (--retry-crashed runs it)", key,
			     b[i].status == FGO_HUNG ? "hung" : "crashed", why,
			     status_name((enum fgo_status)b[i].status));
		}
	}
	free(b);
	if (rc == FGO_OK)
		flight_forget(dir, sweep_id);
	return rc;
}

void session_faults_say(int64_t sweep_id, const size_t *counts, const long all[3])
{
	long here = (long)(counts[FGO_CRASHED] + counts[FGO_HUNG] + counts[FGO_CORRUPTED]);
	long total = all[0] + all[1] + all[2];
	if (total > here)
		note("sweep %lld holds %ld crashed, %ld hung and %ld corrupted run%s in all (those of"
		     " earlier jobs are not run again: --resume --retry-crashed runs them)",
		     (long long)sweep_id, all[0], all[1], all[2], total == 1 ? "" : "s");
}
