/* fuzz_spec.c: libFuzzer harness for the sweep-spec reader. The input is
 * the text of a file named "fuzz.json"; spec_parse picks the reader by
 * content, so JSON objects reach spec_sweep.c (and lists the dataset
 * reader). A plan that parses is checked for what spec.h promises: items
 * with a world and a shape, a reason on every invalid one, a NUL-terminated
 * name and hash; an error is one line that starts with the path. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	if (!text)
		return 0;
	fuzz_check_parse("fuzz.json", text, size, NULL, NULL);
	free(text);
	return 0;
}
