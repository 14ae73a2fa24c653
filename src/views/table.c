/* table.c: the one printer behind every view: the table, aligned text
 * (numeric columns right-aligned, empty cells as "-", control characters
 * escaped, fitted to a width) and GitHub Markdown (HTML's <, > and & as
 * entities); CSV and JSON are table_data.c's. */
#include "views/table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sink.h"
#include "views/table_impl.h"

int format_parse(const char *s, enum fgo_format *f)
{
	static const struct {
		const char *name;
		enum fgo_format f;
	} names[] = {
		{ "table", FGO_FMT_TABLE }, { "text", FGO_FMT_TABLE }, { "md", FGO_FMT_MD },
		{ "markdown", FGO_FMT_MD },  { "csv", FGO_FMT_CSV },    { "json", FGO_FMT_JSON },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcasecmp(s, names[i].name) == 0) {
			*f = names[i].f;
			return 0;
		}
	}
	return -1;
}

struct fgo_table *table_new(int ncols, const char *const *headers)
{
	struct fgo_table *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->ncols = ncols > 0 ? ncols : 1;
	t->headers = calloc((size_t)t->ncols, sizeof *t->headers);
	t->whole = calloc((size_t)t->ncols, 1);
	if (!t->headers || !t->whole) {
		free(t->headers);
		free(t->whole);
		free(t);
		return NULL;
	}
	for (int c = 0; c < t->ncols; c++) {
		t->headers[c] = strdup(c < ncols && headers[c] ? headers[c] : "");
		t->failed |= !t->headers[c];
	}
	return t;
}

void table_add(struct fgo_table *t, const char *fmt, ...)
{
	if (!t)
		return;
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **cells = realloc(t->cells, cap * sizeof *cells);
		if (!cells) {
			t->failed = 1;
			return;
		}
		t->cells = cells;
		t->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	char *text = NULL;
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		t->failed = 1;
	t->cells[t->ncells++] = text;
}

void table_fit(struct fgo_table *t, int columns)
{
	if (t)
		t->fit = columns > 0 ? columns : 0;
}

void table_nowrap(struct fgo_table *t, int col)
{
	if (t && col >= 0 && col < t->ncols)
		t->whole[col] = 1;
}

struct fgo_table *table_select(const struct fgo_table *t, const int *cols, int n,
			       const char *const *names)
{
	if (!t || n <= 0)
		return NULL;
	const char **h = calloc((size_t)n, sizeof *h);
	if (!h)
		return NULL;
	for (int i = 0; i < n; i++)
		h[i] = names && names[i] ? names[i]
		       : cols[i] >= 0 && cols[i] < t->ncols ? t->headers[cols[i]] : "";
	struct fgo_table *out = table_new(n, h);
	free(h);
	for (int r = 0; out && r < table_rows(t); r++)
		for (int i = 0; i < n; i++)
			table_add(out, "%s", table_cell(t, r, cols[i]));
	if (out) {
		out->fit = t->fit;
		out->failed |= t->failed;
		for (int i = 0; i < n; i++)
			out->whole[i] = cols[i] >= 0 && cols[i] < t->ncols && t->whole[cols[i]];
	}
	return out;
}

int table_rows(const struct fgo_table *t)
{
	return t ? (int)((t->ncells + (size_t)t->ncols - 1) / (size_t)t->ncols) : 0;
}

const char *table_cell(const struct fgo_table *t, int row, int col)
{
	if (!t || row < 0 || col < 0 || col >= t->ncols)
		return "";
	size_t i = (size_t)row * (size_t)t->ncols + (size_t)col;
	return i < t->ncells && t->cells[i] ? t->cells[i] : "";
}

/* A JSON number exactly (RFC 8259 grammar), so it can be written as is:
 * no hex, no leading zeros or "+", no "inf" or "nan". */
int table_is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/* What JSON writes as a number: the grammar, and finite ("1e999" is not). */
int table_json_number(const char *s)
{
	return table_is_json_number(s) && isfinite(strtod(s, NULL));
}

/* Columns whose cells are all numbers (or empty, or "-") align right. */
static int numeric_column(const struct fgo_table *t, int col)
{
	int numbers = 0;
	for (int r = 0; r < table_rows(t); r++) {
		const char *c = table_cell(t, r, col);
		if (!*c || strcmp(c, "-") == 0)
			continue;
		if (!table_json_number(c))
			return 0;
		numbers++;
	}
	return numbers > 0;
}

/* Display width: UTF-8 continuation bytes take no column. */
static int width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void pad(FILE *out, int n)
{
	for (; n > 0; n--)
		fputc(' ', out);
}

/* Writes one cell padded to w; the last column gets no trailing spaces. */
static void put_aligned(FILE *out, const char *text, int w, int right, int last)
{
	int fill = w - width(text);
	if (right)
		pad(out, fill);
	fputs(text, out);
	if (!right && !last)
		pad(out, fill);
}

static const char *shown(const char *cell)
{
	return *cell ? cell : "-";
}

/* The Markdown form of a character of a cell, or NULL for itself: "|"
 * escaped (it would end the cell), "<", ">" and "&" as HTML entities (a
 * tag or reason must not become HTML where the page is shown: GitHub,
 * an editor's preview), line breaks as spaces. */
static const char *md_escape(char c)
{
	switch (c) {
	case '|': return "\\|";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '&': return "&amp;";
	case '\n': case '\r': return " ";
	default: return NULL;
	}
}

static void put_md(FILE *out, const char *s)
{
	for (; *s; s++) {
		const char *e = md_escape(*s);
		if (e)
			fputs(e, out);
		else
			fputc(*s, out);
	}
}

/* The columns the escaped cell takes in the Markdown source. */
static int md_width(const char *s)
{
	int w = width(s);
	for (; *s; s++)
		if (md_escape(*s))
			w += (int)strlen(md_escape(*s)) - 1;
	return w;
}

/* The cell as a terminal may show it (sink_terminal): a name from a store
 * with an escape sequence or a newline must not clear the screen or split
 * the row. A copy when anything is escaped, else the cell itself. */
static const char *escaped(const char *cell, int md, char **copy)
{
	char *flat = NULL;
	*copy = NULL;
	/* Markdown keeps its rule: a line break in a cell reads as a space */
	if (md && strpbrk(cell, "\r\n") && (flat = strdup(cell))) {
		for (char *p = flat; *p; p++)
			if (*p == '\r' || *p == '\n')
				*p = ' ';
		cell = flat;
	}
	size_t n = sink_terminal(cell, NULL, 0);
	if (n == strlen(cell) && !flat)
		return cell;
	if ((*copy = malloc(n + 1)))
		sink_terminal(cell, *copy, n + 1);
	free(flat);
	return *copy ? *copy : "?";
}

/* The first line of s within w columns, for table_fit: its length in
 * bytes; *next: where the rest starts (spaces at the break skipped). A
 * break after "; " or ", ", or at a space, is taken when it leaves the line
 * at least a third full; else the line ends inside a word. */
static size_t wrap_line(const char *s, int w, const char **next)
{
	size_t at = 0, brk = 0, resume = 0;
	int cols = 0, best_rank = 0;
	if (w < 1)
		w = 1;
	while (s[at]) {
		/* a character is its lead byte and continuation bytes */
		size_t n = 1;
		while (((unsigned char)s[at + n] & 0xc0) == 0x80)
			n++;
		if (cols == w)
			break;
		if (s[at] == ' ' && cols * 3 >= w) {
			/* "; " and ", " outrank a bare space: the phrase stays whole */
			int rank = at > 0 && (s[at - 1] == ';' || s[at - 1] == ',') ? 2 : 1;
			if (rank >= best_rank) {
				best_rank = rank;
				brk = at;
				resume = at + 1;
			}
		} else if (at > 0 && s[at - 1] == ',' && cols * 3 >= w && best_rank <= 2) {
			/* after a comma with no space ("BLOCK_M=64,BLOCK_N=64"):
			 * the comma ends the line */
			best_rank = 2;
			brk = at;
			resume = at;
		}
		at += n;
		cols++;
	}
	if (!s[at]) {
		*next = s + at;
		return at;
	}
	if (best_rank == 0 || s[at] == ' ') {
		brk = at; /* at least one character: w >= 1 */
		resume = at;
	}
	while (s[resume] == ' ')
		resume++;
	*next = s + resume;
	return brk;
}

/* Narrows the widest text columns until the table fits t->fit (or
 * nothing more can give). */
static void fit_widths(const struct fgo_table *t, const char *const *headers, int *w,
		       const int *right)
{
	int total = 2 * (t->ncols - 1);
	for (int c = 0; c < t->ncols; c++)
		total += w[c];
	while (total > t->fit) {
		int widest = -1;
		for (int c = 0; c < t->ncols; c++) {
			int least = width(headers[c]) > 12 ? width(headers[c]) : 12;
			if (!right[c] && !t->whole[c] && w[c] > least &&
			    (widest < 0 || w[c] > w[widest]))
				widest = c;
		}
		if (widest < 0)
			return;
		w[widest]--;
		total--;
	}
}

/* One row of an aligned (not Markdown) table, its cells wrapped to w; the
 * continuation lines without trailing spaces. */
static void print_wrapped_row(FILE *out, const char *const *cells, int ncols, const int *w,
			      const int *right)
{
	const char **rest = calloc((size_t)ncols, sizeof *rest);
	int more = 1;
	if (!rest) {
		fputs("(out of memory)\n", out);
		return;
	}
	for (int c = 0; c < ncols; c++)
		rest[c] = cells[c];
	while (more) {
		char *line = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&line, &len);
		if (!m)
			break;
		more = 0;
		for (int c = 0; c < ncols; c++) {
			const char *next;
			size_t n = wrap_line(rest[c], w[c], &next);
			char *piece = strndup(rest[c], n);
			int last = c == ncols - 1;
			put_aligned(m, piece ? piece : "?", w[c], right[c], last);
			if (!last)
				fputs("  ", m);
			free(piece);
			rest[c] = next;
			more |= *next != '\0';
		}
		fclose(m);
		while (len > 0 && line[len - 1] == ' ')
			len--;
		fwrite(line, 1, len, out);
		fputc('\n', out);
		free(line);
	}
	free(rest);
}

static void print_aligned(const struct fgo_table *t, int md, FILE *out)
{
	int rows = table_rows(t);
	size_t ncells = (size_t)(rows + 1) * (size_t)t->ncols;
	const char **text = calloc(ncells, sizeof *text);
	char **copies = calloc(ncells, sizeof *copies);
	if (!text || !copies) {
		free(text);
		free(copies);
		fputs("(out of memory)\n", out);
		return;
	}
	/* row -1 (the headers) first, then the cells, all escaped once */
	for (int r = -1; r < rows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t i = (size_t)(r + 1) * (size_t)t->ncols + (size_t)c;
			text[i] = escaped(r < 0 ? t->headers[c] : shown(table_cell(t, r, c)), md,
					  &copies[i]);
		}
#define TEXT(r, c) text[(size_t)((r) + 1) * (size_t)t->ncols + (size_t)(c)]
	int *w = calloc((size_t)t->ncols, sizeof *w);
	int *right = calloc((size_t)t->ncols, sizeof *right);
	if (!w || !right) {
		fputs("(out of memory)\n", out);
		goto out;
	}
	int (*wf)(const char *) = md ? md_width : width;
	for (int c = 0; c < t->ncols; c++) {
		right[c] = numeric_column(t, c);
		w[c] = md ? 3 : wf(TEXT(-1, c));
		if (wf(TEXT(-1, c)) > w[c])
			w[c] = wf(TEXT(-1, c));
		for (int r = 0; r < rows; r++)
			if (wf(TEXT(r, c)) > w[c])
				w[c] = wf(TEXT(r, c));
	}
	if (!md && t->fit > 0)
		fit_widths(t, &TEXT(-1, 0), w, right);
	for (int r = -1; r < rows; r++) {
		if (!md && t->fit > 0 && r >= 0) {
			print_wrapped_row(out, &TEXT(r, 0), t->ncols, w, right);
			continue;
		}
		if (md)
			fputs("| ", out);
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = TEXT(r, c);
			int last = c == t->ncols - 1;
			if (md) {
				int fill = w[c] - md_width(cell);
				if (right[c])
					pad(out, fill);
				put_md(out, cell);
				if (!right[c])
					pad(out, fill);
				fputs(last ? " |" : " | ", out);
			} else {
				put_aligned(out, cell, w[c], right[c], last);
				if (!last)
					fputs("  ", out);
			}
		}
		fputc('\n', out);
		if (r >= 0)
			continue;
		/* The rule under the header. */
		if (md)
			fputc('|', out);
		for (int c = 0; c < t->ncols; c++) {
			int n = md ? w[c] + 2 : w[c];
			if (md && right[c])
				n--;
			for (int i = 0; i < n; i++)
				fputc('-', out);
			if (md)
				fputs(right[c] ? ":|" : "|", out);
			else if (c < t->ncols - 1)
				fputs("  ", out);
		}
		fputc('\n', out);
	}
out:
#undef TEXT
	for (size_t i = 0; i < ncells; i++)
		free(copies[i]);
	free(copies);
	free(text);
	free(w);
	free(right);
}

int table_print(const struct fgo_table *t, enum fgo_format f, FILE *out)
{
	if (!t || t->failed)
		return -1;
	switch (f) {
	case FGO_FMT_MD: print_aligned(t, 1, out); break;
	case FGO_FMT_CSV: table_print_csv(t, out); break;
	case FGO_FMT_JSON: table_print_json(t, out); break;
	default: print_aligned(t, 0, out); break;
	}
	return ferror(out) ? -1 : 0;
}

void table_free(struct fgo_table *t)
{
	if (!t)
		return;
	for (int c = 0; c < t->ncols; c++)
		free(t->headers[c]);
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->headers);
	free(t->cells);
	free(t->whole);
	free(t);
}
