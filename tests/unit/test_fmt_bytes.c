/* test_fmt_bytes.c: fmt_bytes (src/util.c), the one way sizes are printed:
 * the unit that shows them, exact numbers without decimals. */
#include "fgo.h"
#include "testlib.h"

int main(void)
{
	static const struct {
		const char *id;
		double bytes;
		const char *want;
	} cases[] = {
		{ "bytes-1", 0, "0 B" },
		{ "bytes-2", 512, "512 B" },
		{ "bytes-3", 1023, "1023 B" },
		{ "kib-1", 1024, "1 KiB" },
		{ "kib-2", 1536, "1.50 KiB" },
		{ "mib-1", 64.0 * 1048576, "64 MiB" },
		{ "mib-2", 1048576.0 * 1023.5, "1023.5 MiB" },
		{ "gib-1", 1073741824.0, "1 GiB" },
		{ "gib-2", 1.5 * 1073741824.0, "1.50 GiB" },
		{ "gib-3", 381507.0 * 1048576, "372.6 GiB" },
		{ "tib-1", 900000.0 * 1073741824.0, "878.9 TiB" },
	};
	char buf[32];
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++)
		T_EQ_STR(cases[i].id, fmt_bytes(cases[i].bytes, buf, sizeof buf), cases[i].want);
	T_DONE();
}
