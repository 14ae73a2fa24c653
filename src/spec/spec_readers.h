/* spec_readers.h: the readers spec.c picks by content, each filling c->plan
 * (and for specs its settings) through spec_ctx.h. */
#ifndef FGO_SPEC_READERS_H
#define FGO_SPEC_READERS_H

#include "spec/spec_ctx.h"

/* The three readers; each fills c->plan (and for specs its settings). */
int spec_sweep(struct spec_ctx *c);        /* spec_sweep.c: a JSON object */
int spec_dataset_json(struct spec_ctx *c); /* spec_dataset.c: a JSON list of shapes */
int spec_dataset_csv(struct spec_ctx *c);  /* spec_dataset.c: CSV with a header */

#endif
