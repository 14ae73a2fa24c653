/* broken.c: a kernel that does not compile (tests/e2e/38_user_kernel.sh). */
#include "fgo_user.h"

int broken(const struct fgo_user_args *a, const struct fgo_user_cta *cta)
{
	(void)a;
	(void)cta;
	return undeclared_name;
}
