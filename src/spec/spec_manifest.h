/* spec_manifest.h: a user kernel's manifest (the JSON beside its source,
 * README "Your own kernel") read by the spec reader's rules: strict keys
 * with "did you mean", every error "PATH:LINE:COL: what (what to do)",
 * expressions checked down to the column; the sources it names read and
 * hashed. The result is a struct fgo_user_kernel (user/user.h), not yet
 * registered. */
#ifndef FGO_SPEC_MANIFEST_H
#define FGO_SPEC_MANIFEST_H

#include <stddef.h>

#include "user/user.h"

/* path with "." and "name/.." left out, lexically ("sweeps/../kernels/x"
 * is "kernels/x"), into out. FGO_OK, or FGO_EUSAGE when it does not fit. */
int manifest_path_clean(const char *path, char *out, size_t len);
/* rel as seen from file's folder (rel itself when absolute), into out: in
 * manifest_path_clean's shorter form where that names the same file (not
 * through a link to a folder elsewhere). FGO_OK, or FGO_EUSAGE. */
int manifest_path_join(const char *file, const char *rel, char *out, size_t len);

/* The manifest keys, for "did you mean" and the documentation. */
extern const char *const manifest_keys[];

/* Reads the manifest at path (sources relative to its folder) into a new
 * *out (user_kernel_free it, or register it). FGO_OK, or FGO_EUSAGE with
 * the positioned message in err and *out NULL. */
int manifest_load(const char *path, struct fgo_user_kernel **out, char *err, size_t len);

/* The same from text (path for messages and as the sources' folder). */
int manifest_parse(const char *path, const char *text, struct fgo_user_kernel **out, char *err,
		   size_t len);

/* Reads the manifest at path and registers its kernel (user_kernel_register):
 * what a spec's "kernel" and --kernel do. FGO_OK with *out, or FGO_EUSAGE. */
int manifest_use(const char *path, const struct fgo_user_kernel **out, char *err, size_t len);

#endif
