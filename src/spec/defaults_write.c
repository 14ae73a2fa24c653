/* spec/defaults_write.c: the defaults table as C text, the data include
 * src/spec/defaults_rows.inc (defaults_derive.h's defaults_rows_write).
 * The committed file is this function's output, so a `best --defaults
 * --write` that changes no row gives it back byte for byte. */
#include "spec/defaults_derive.h"

#include <string.h>

/* A piece of evidence text per line: with the indent and the quotes a
 * line stays within 100 columns. */
#define PIECE_MAX 88

/* The header of the file: what it is, what writes it, its fields. */
static const char header[] =
	"/* spec/defaults_rows.inc: the rows of the defaults table, data only:\n"
	" * src/spec/defaults.c includes it inside defaults_table's initializer\n"
	" * (defaults.h says what each field means; the first row that matches a\n"
	" * problem wins). Written by `fgobench best --defaults --write FILE`\n"
	" * (docs/defaults.md, \"Deriving the table from a store\"): a row whose\n"
	" * pick a store's derived one beats is replaced, with its evidence; the\n"
	" * other rows are written back as they are. Per row: core, family,\n"
	" * per-rank rows from and to, columns, C (K_ = 1024, M_ = 1024 K_), K\n"
	" * from; BLK_M, BLK_N, BLK_K, stages, warps; split_k; comm_blk_m;\n"
	" * evidence. */\n";

/* An element count as the table writes it: "512 * K_", "2 * M_", "0". */
static int put_count(FILE *f, long v)
{
	const long k = 1024, m = 1024 * 1024;
	if (v != 0 && v % m == 0)
		return fprintf(f, "%ld * M_", v / m);
	if (v != 0 && v % k == 0)
		return fprintf(f, "%ld * K_", v / k);
	return fprintf(f, "%ld", v);
}

/* A C string literal's body: s[0..n) with '"' and '\\' escaped. */
static int put_literal(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((s[i] == '"' || s[i] == '\\') && fputc('\\', f) == EOF)
			return -1;
		if (fputc(s[i], f) == EOF)
			return -1;
	}
	return 0;
}

/* The evidence as string literals of at most PIECE_MAX characters, broken
 * before a space (the space starts the next piece, as the table's hand
 * written rows had it); a word longer than a piece stays whole. */
static int put_evidence(FILE *f, const char *text)
{
	size_t len = strlen(text), at = 0;
	do {
		size_t n = len - at;
		if (n > PIECE_MAX) {
			size_t cut = at + PIECE_MAX;
			while (cut > at && text[cut] != ' ')
				cut--;
			if (cut == at) /* one long word: up to the next space */
				for (cut = at + 1; cut < len && text[cut] != ' '; cut++)
					;
			n = cut - at;
		}
		if (fputs(at ? "\n  \"" : "  \"", f) == EOF || put_literal(f, text + at, n) ||
		    fputc('"', f) == EOF)
			return -1;
		at += n;
	} while (at < len);
	return 0;
}

int defaults_rows_write(FILE *f, const struct defaults_row *rows, size_t n)
{
	if (fputs(header, f) == EOF)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct defaults_row *r = &rows[i];
		if (fprintf(f, "/* row %zu */\n{ \"", i + 1) < 0 || put_literal(f, r->core, strlen(r->core)))
			return -1;
		if (r->family ? fputs("\", \"", f) == EOF || put_literal(f, r->family, strlen(r->family)) ||
					fputs("\", ", f) == EOF
			      : fputs("\", NULL, ", f) == EOF)
			return -1;
		if (fprintf(f, "%ld, %ld, %ld, ", r->rows_min, r->rows_max, r->cols_max) < 0 ||
		    put_count(f, r->elems_max) < 0 ||
		    fprintf(f, ", %ld, %d, %d, %d, %d, %d, %d, %d,\n", r->k_min, r->blk_m, r->blk_n,
			    r->blk_k, r->num_stages, r->num_warps, r->split_k, r->comm_blk_m) < 0 ||
		    put_evidence(f, r->evidence ? r->evidence : "") || fputs(" },\n", f) == EOF)
			return -1;
	}
	return ferror(f) ? -1 : 0;
}
