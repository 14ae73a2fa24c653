/* table.h: rows of text cells printed as an aligned table, Markdown, CSV or
 * JSON, so every view (best, list, regress, show) pipes the same way.
 *
 * Cells are text; for JSON a cell that parses as a finite number is written
 * as a number, an empty cell as null, everything else as a string. */
#ifndef FGO_TABLE_H
#define FGO_TABLE_H

#include <stdio.h>

enum fgo_format {
	FGO_FMT_TABLE = 0, /* aligned columns for a terminal (numbers right-aligned) */
	FGO_FMT_MD,        /* GitHub Markdown table; "|" escaped, "<", ">", "&" as
			      entities, so no cell becomes HTML */
	FGO_FMT_CSV,       /* RFC 4180: header line, quotes where needed; a cell a
			      spreadsheet would take for a formula ("=", "+", "-",
			      "@", tab, CR first; not a number such as -1.5) gets a
			      leading "'" */
	FGO_FMT_JSON,      /* an array of objects keyed by the headers */
};

/* 0 on success; accepts table|md|markdown|csv|json. */
int format_parse(const char *s, enum fgo_format *f);

struct fgo_table;

/* A table with ncols columns named by headers (copied). */
struct fgo_table *table_new(int ncols, const char *const *headers);

/* Appends one cell (printf-style) to the current row; after ncols cells the
 * next call starts a new row. */
void table_add(struct fgo_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int table_rows(const struct fgo_table *t);
/* The cell text (valid until table_free), or "" out of range. */
const char *table_cell(const struct fgo_table *t, int row, int col);

/* The width a terminal table fits unless the user asks for every column
 * (--wide): the views' promise since issue 35. */
#define FGO_TABLE_COLUMNS 120

/* Makes the aligned table (FGO_FMT_TABLE) fit `columns` characters: where
 * the columns are wider, the widest text columns are narrowed (never below
 * their header, nor below 12) and their cells continue on the next lines,
 * broken after "; ", ", " or "," or at a space where one falls late enough,
 * else inside a word. Numeric columns keep their width. 0: no limit (the
 * default). Markdown, CSV and JSON are never wrapped. */
void table_fit(struct fgo_table *t, int columns);

/* Keeps column col whole under table_fit (a timestamp, an id): its cells
 * are never continued on the next line, as numeric columns are not. */
void table_nowrap(struct fgo_table *t, int col);

/* A new table of t's columns cols[0..n) in that order, named names[i]
 * (names NULL, or names[i] NULL: t's own header), with t's table_fit and
 * table_nowrap; NULL when out of memory.
 * For the views whose terminal table shows fewer columns than csv/json. */
struct fgo_table *table_select(const struct fgo_table *t, const int *cols, int n,
			       const char *const *names);

/* Writes the table; returns 0, or -1 on a write error. */
int table_print(const struct fgo_table *t, enum fgo_format f, FILE *out);

void table_free(struct fgo_table *t);

#endif
