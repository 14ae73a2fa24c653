/* spec.h: sweep specs and dataset files, expanded into a plan.
 *
 * Three inputs become the same plan (a list of configurations):
 *   - a sweep spec (JSON object): tunables as a value, a list, or a range,
 *     optionally several "blocks" (cartesian product inside a block, union
 *     across blocks) and "shapes" as explicit [M, N, K] triples;
 *   - the field's dataset JSON: a list of {"m":..,"n":..,"k":..} objects,
 *     each optionally with BLK_M, BLK_N, BLK_K, gsize_m, num_stages, num_sms,
 *     datatype;
 *   - the field's dataset CSV, header m,n,k,datatype or
 *     m,n,k,blk_m,blk_n,blk_k,gemm_sms,comm_sms.
 * For datasets, whatever the file leaves out comes from `base` (flags). */
#ifndef FGO_SPEC_H
#define FGO_SPEC_H

#include <stddef.h>

#include "config.h"

struct fgo_plan_item {
	struct fgo_config cfg;
	int valid;                   /* 1, or 0 with reason */
	char reason[FGO_REASON_MAX];
	unsigned char default_how;   /* how the tile was chosen: enum defaults_how (spec/defaults.h) */
	short default_row;           /* the defaults table's row (0-based), -1 none */
	/* 1: the spec or flags named ALGO_CHOICE (algo.h): cfg is one-shot
	 * until the session's pick_shot sets the shot */
	unsigned char shot_choice;
	/* config auto's trials (tune/auto_pick.h): 0 for an item auto did not
	 * time beside others; else the role (enum fgo_auto_role) of this one of
	 * the configurations timed for one item of the spec (auto_group, the
	 * first's index in the plan), auto_place its place in best --predict's
	 * ranking (0: the table's pick) */
	unsigned char auto_role;
	unsigned short auto_place;
	int auto_group;
};

/* Which of auto's trials an item is (fgo_plan_item.auto_role). */
enum fgo_auto_role {
	FGO_AUTO_NONE = 0,   /* not one of auto's trials */
	FGO_AUTO_RANKED = 1, /* a configuration best --predict ranked, timed at the shape */
	FGO_AUTO_TABLE = 2,  /* the item's own default (the table's pick), timed beside them */
};

/* How a plan's configurations that give no tile get one ("config"). */
enum fgo_pick {
	FGO_PICK_TABLE = 0, /* the defaults table of the core (spec/defaults.h) */
	FGO_PICK_MODEL = 1, /* "auto": the cost model of this machine ranks candidates */
};
/* "table" or "auto" -> *pick; 0 ok, -1 unknown. */
int fgo_pick_parse(const char *s, enum fgo_pick *pick);

struct fgo_plan {
	struct fgo_plan_item *items;
	size_t count;
	int max_world;        /* largest world of any item (valid or not) */
	int iterations;       /* timed iterations per run ("iterations", default 10) */
	int warmup;           /* warm-up launches ("warmup", default 2) */
	int validate;         /* check every run against the reference ("validate", default 1) */
	int interleave_baseline; /* "baseline": "interleaved" (1) or "once" (0, the default) */
	char name[64];        /* "name" of the spec, or the file's base name */
	char *text;           /* the file's full text (stored with the sweep) */
	char hash[17];        /* FNV-1a of the text, hex */
	enum fgo_pick pick;   /* "config": the default's source ("table" unless given) */
	int auto_trials;      /* "auto_trials": how many of best --predict's ranked auto times
				 at the shape (auto_pick_some), the table's pick beside them
				 where it is not one (0: FGO_AUTO_TRIALS_DEFAULT; 1: the
				 ranking's first alone) */
};
#define FGO_AUTO_TRIALS_DEFAULT 6
#define FGO_AUTO_TRIALS_MAX 16

/* Reads path and expands it. The kind is chosen by content: a JSON object is
 * a sweep spec, a JSON array a dataset, anything else (or a .csv name) CSV.
 * base supplies every field a dataset leaves out; base_set marks which fields
 * of base were given on the command line — for sweep specs those override the
 * spec (NULL: no overrides). On bad input returns FGO_EUSAGE with a one-line
 * message in err: "PATH:LINE:COL: what is wrong (what to do)"; the plan is
 * then empty. Every configuration is validated with config_validate; invalid
 * ones stay in the plan with their reason. Duplicates are removed (first wins). */
struct fgo_config_mask {
	unsigned algorithm : 1, dtype : 1, world : 1, m : 1, n : 1, k : 1, blk_m : 1, blk_n : 1,
		blk_k : 1, num_stages : 1, num_warps : 1, mma : 1, gsize_m : 1, gemm_sms : 1,
		comm_sms : 1, comm_blk_m : 1, comm_blk_n : 1, split_k : 1, deterministic : 1,
		cluster : 1;
	/* --kernel MANIFEST: every configuration runs that user kernel
	 * (src/user/user.h) over its tunables, in place of the file's
	 * algorithm and tunables (a spec's "kernel" otherwise); NULL: none */
	const char *kernel;
};

int spec_load(const char *path, const struct fgo_config *base,
	      const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err, size_t len);

/* Same from the n bytes at text (text[n] == 0): a NUL among them is
 * refused with its position, as a file holding one would be. */
int spec_parse_n(const char *path, const char *text, size_t n, const struct fgo_config *base,
		 const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err,
		 size_t len);

/* Same from a string (tests; path is only used in messages). */
int spec_parse(const char *path, const char *text, const struct fgo_config *base,
	       const struct fgo_config_mask *base_set, struct fgo_plan *plan, char *err, size_t len);

/* The plan's items for the target architecture (a GPU's "sm_90a", the
 * CPU's machine name): where the spec and the flags left the core to the
 * default, the best core of the target (kit_fit_core) with the tile fitted
 * to it, where that configuration is valid on that core (else the item
 * stays as it was); then where they left the tile to the default, the
 * defaults table's row for that core and shape (spec/defaults.h), where
 * its pick can run (item->default_how, default_row say which). Call once
 * the target is known, before any item is stored or compiled. */
void plan_fit_target(struct fgo_plan *plan, const char *arch);

/* The Stream-K forms (sk_*) whose spec and flags give neither gemm_sms nor
 * comm_sms: `units` GEMM CTAs, every compute unit of the device (a GPU's
 * SMs, the CPU's cores), and no communication CTAs, as the defaults
 * table's sk rows were measured (132 + 0 on H100s); the item validated
 * again. Nothing where units < 1 (the item keeps its refusal). Call before
 * plan_fit_target, which ranks and tiles them. Returns how many took it. */
size_t plan_fit_units(struct fgo_plan *plan, int units);

/* Whether cfg is such a Stream-K form (its CTAs left to the device). */
int config_takes_units(const struct fgo_config *cfg);

/* config_validate of a configuration not yet on its device: one whose
 * CTAs the device will give (config_takes_units) is judged as if it had
 * them. 0 when valid, else 1 with the reason. */
int config_validate_planned(const struct fgo_config *cfg, char *reason, size_t len);
void plan_free(struct fgo_plan *plan);

/* One reason shared by invalid items of a plan. */
struct plan_reason {
	const char *reason; /* an item's reason text (points into the plan) */
	size_t count;       /* invalid items with exactly this reason */
};

/* Groups the plan's invalid items by reason, most frequent first (ties in
 * plan order), into out[0..max-1]. Returns the number of distinct reasons,
 * which may exceed max (the groups past max are left out), or 0 when memory
 * runs out; *invalid gets the number of invalid items. */
size_t plan_invalid_reasons(const struct fgo_plan *plan, struct plan_reason *out, size_t max,
			    size_t *invalid);

/* Spec keys (lower case), for "did you mean" and the man page. */
extern const char *const spec_keys[];

#endif
