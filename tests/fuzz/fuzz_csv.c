/* fuzz_csv.c: libFuzzer harness for the dataset CSV reader. The input is
 * the text of "fuzz.csv" (the name sends every input to spec_dataset_csv);
 * its first byte, when there is one, picks which configuration flags are
 * given (they fill what a row leaves out and override what it says). */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fgo_config base;
	struct fgo_config_mask set;
	if (size == 0)
		return 0;
	fuzz_flags(data[0], &base, &set);
	char *text = fuzz_text(data + 1, size - 1);
	if (!text)
		return 0;
	fuzz_check_parse("fuzz.csv", text, size - 1, &base, &set);
	free(text);
	return 0;
}
