/* predict_view.h: `fgobench best --predict`: reads the measured shapes
 * from the store, ranks with predict.h and prints the candidates with the
 * shapes that support them, saying that it is a prediction. */
#ifndef FGO_PREDICT_VIEW_H
#define FGO_PREDICT_VIEW_H

#include "views/table.h"

struct predict_view_opts {
	const char *db;         /* store option (NULL: $FGOBENCH_DB or ./fgobench.db) */
	const char *algorithm;  /* required */
	const char *dtype;      /* NULL: the only one the store has for algorithm */
	const char *tag;        /* NULL: every sweep; else only runs of sweeps tagged so */
	long m, n, k;           /* the shape to predict (required) */
	int world;              /* 0: the only one the store has */
	int top;                /* candidates to print */
	int cus;                /* compute units; 0: from the stored devices, else 1 */
	enum fgo_format format;
};

/* Returns the exit status: 0, FGO_EUSAGE when there is nothing to predict
 * from or the problem is ambiguous (message printed), FGO_EFAIL. */
int predict_view(const struct predict_view_opts *o);

#endif
