/* broken.cu: a GPU kernel that does not compile (tests/gpu/user_errors.sh). */
#include "fgo_user.h"

extern "C" __global__ void broken(struct fgo_user_args a)
{
	(void)a;
	int x = undeclared_name;
	(void)x;
}
