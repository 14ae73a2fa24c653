/* table_data.c: the table's forms for programs (table.h): CSV (RFC 4180
 * quoting, "\n" line ends, a cell a spreadsheet would run neutralised)
 * and JSON (an array of objects, numbers unquoted, empty cells null). */
#include <stdio.h>
#include <string.h>

#include "views/table_impl.h"

/* A cell a spreadsheet would read as a formula (OWASP's "CSV injection":
 * "=", "+", "-", "@", a tab or a carriage return first) and that is not a
 * plain number: "-1.5", "+2.0" and "-51%" stay numbers, "=HYPERLINK(...)",
 * "-2+3" and "@SUM(A1)" do not. */
static int csv_formula(const char *s)
{
	if (!*s || !strchr("=+-@\t\r", *s))
		return 0;
	if ((*s == '-' || *s == '+') && s[1] != '-' && s[1] != '+') {
		char number[64];
		size_t n = strlen(s + 1);
		/* a percentage is a number to a spreadsheet too */
		if (n > 1 && s[n] == '%' && n < sizeof number) {
			snprintf(number, sizeof number, "%.*s", (int)n - 1, s + 1);
			return !table_is_json_number(number);
		}
		return !table_is_json_number(s + 1);
	}
	return 1;
}

/* One CSV cell: RFC 4180 quoting, and a formula neutralised by a leading
 * single quote (the spreadsheets' mark for text; a program reading the
 * CSV sees the quote, as OWASP advises). */
static void put_csv(FILE *out, const char *s)
{
	const char *mark = csv_formula(s) ? "'" : "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(mark, out);
		fputs(s, out);
		return;
	}
	fputc('"', out);
	fputs(mark, out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void table_print_csv(const struct fgo_table *t, FILE *out)
{
	for (int r = -1; r < table_rows(t); r++) {
		for (int c = 0; c < t->ncols; c++) {
			if (c)
				fputc(',', out);
			put_csv(out, r < 0 ? t->headers[c] : table_cell(t, r, c));
		}
		fputc('\n', out);
	}
}

static void put_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (ch < 0x20)
				fprintf(out, "\\u%04x", ch);
			else
				fputc(ch, out);
		}
	}
	fputc('"', out);
}

void table_print_json(const struct fgo_table *t, FILE *out)
{
	int rows = table_rows(t);
	if (rows == 0) {
		fputs("[]\n", out);
		return;
	}
	fputs("[\n", out);
	for (int r = 0; r < rows; r++) {
		fputs("  {", out);
		for (int c = 0; c < t->ncols; c++) {
			const char *v = table_cell(t, r, c);
			if (c)
				fputs(", ", out);
			put_json_string(out, t->headers[c]);
			fputs(": ", out);
			if (!*v)
				fputs("null", out);
			else if (table_json_number(v))
				fputs(v, out);
			else
				put_json_string(out, v);
		}
		fputs(r + 1 < rows ? "},\n" : "}\n", out);
	}
	fputs("]\n", out);
}

