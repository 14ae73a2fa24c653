/* fuzz_dataset.c: libFuzzer harness for the dataset JSON reader (a list of
 * {"m", "n", "k", ...} rows). The input is the text of "fuzz.json" after
 * a '[' the harness puts in front, so nearly every input reaches
 * spec_dataset_json; the first byte picks the configuration flags given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fgo_config base;
	struct fgo_config_mask set;
	if (size == 0)
		return 0;
	fuzz_flags(data[0], &base, &set);
	char *text = fuzz_text(data, size); /* data[0] becomes the '[' */
	if (!text)
		return 0;
	text[0] = '[';
	fuzz_check_parse("fuzz.json", text, size, &base, &set);
	free(text);
	return 0;
}
