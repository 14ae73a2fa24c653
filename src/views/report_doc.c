/* report_doc.c: the document of `fgobench report` (report_doc.h): blocks
 * kept in order, the Markdown writer (tables through table.c's Markdown
 * printer) and the HTML writer (one page, inline style, well-formed XML). */
#include "views/report_doc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum block_kind { BLOCK_HEADING, BLOCK_PARA, BLOCK_TABLE, BLOCK_IMAGE };

struct block {
	enum block_kind kind;
	int level;                   /* headings: 1..3 */
	char *text;                  /* heading, paragraph, image caption */
	char *path;                  /* image */
	int small;                   /* image: one of a gallery, not full width */
	struct fgo_table *table;     /* owned */
	int ncols;
	const char *const *headers;  /* borrowed */
};

struct report_doc {
	struct block *blocks;
	size_t count, cap;
	int failed;
};

struct report_doc *doc_new(void)
{
	return calloc(1, sizeof(struct report_doc));
}

void doc_free(struct report_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->count; i++) {
		free(d->blocks[i].text);
		free(d->blocks[i].path);
		table_free(d->blocks[i].table);
	}
	free(d->blocks);
	free(d);
}

int doc_failed(const struct report_doc *d)
{
	return !d || d->failed;
}

static struct block *add(struct report_doc *d, enum block_kind kind)
{
	if (d->count == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 32;
		struct block *more = realloc(d->blocks, cap * sizeof *more);
		if (!more) {
			d->failed = 1;
			return NULL;
		}
		d->blocks = more;
		d->cap = cap;
	}
	struct block *b = &d->blocks[d->count++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	return b;
}

static char *vformat(struct report_doc *d, const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0) {
		d->failed = 1;
		return NULL;
	}
	return s;
}

void doc_heading(struct report_doc *d, int level, const char *fmt, ...)
{
	struct block *b = add(d, BLOCK_HEADING);
	if (!b)
		return;
	va_list ap;
	va_start(ap, fmt);
	b->text = vformat(d, fmt, ap);
	va_end(ap);
	b->level = level < 1 ? 1 : level > 3 ? 3 : level;
}

void doc_para(struct report_doc *d, const char *fmt, ...)
{
	struct block *b = add(d, BLOCK_PARA);
	if (!b)
		return;
	va_list ap;
	va_start(ap, fmt);
	b->text = vformat(d, fmt, ap);
	va_end(ap);
}

void doc_table(struct report_doc *d, struct fgo_table *t, int ncols, const char *const *headers)
{
	struct block *b = t ? add(d, BLOCK_TABLE) : NULL;
	if (!b) {
		table_free(t);
		d->failed = 1;
		return;
	}
	b->table = t;
	b->ncols = ncols;
	b->headers = headers;
}

void doc_image(struct report_doc *d, const char *path, const char *caption, int small)
{
	struct block *b = add(d, BLOCK_IMAGE);
	if (!b)
		return;
	b->small = small;
	b->path = strdup(path);
	b->text = strdup(caption);
	if (!b->path || !b->text)
		d->failed = 1;
}

/* ---- Markdown ---- */

/* Plain text in Markdown: the characters that would start markup are
 * escaped; <, > and & as HTML entities (no renderer reads them as a tag,
 * whatever it makes of a backslash); '_' is left alone (names like
 * all_scatter stay readable, and GitHub does not emphasise inside words). */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (strchr("\\`*[]#|", *s))
			fprintf(out, "\\%c", *s);
		else
			fputc(*s == '\n' ? ' ' : *s, out);
	}
}

int doc_write_md(const struct report_doc *d, FILE *out)
{
	static const char *const hashes[] = { "", "#", "##", "###" };
	for (size_t i = 0; i < d->count; i++) {
		const struct block *b = &d->blocks[i];
		switch (b->kind) {
		case BLOCK_HEADING:
			fprintf(out, "%s ", hashes[b->level]);
			md_text(out, b->text ? b->text : "");
			fputs("\n\n", out);
			break;
		case BLOCK_PARA:
			md_text(out, b->text ? b->text : "");
			fputs("\n\n", out);
			break;
		case BLOCK_TABLE:
			if (table_print(b->table, FGO_FMT_MD, out) != 0)
				return -1;
			fputc('\n', out);
			break;
		case BLOCK_IMAGE:
			fputs("![", out);
			md_text(out, b->text);
			fprintf(out, "](%s)\n\n", b->path);
			break;
		}
	}
	return ferror(out) ? -1 : 0;
}

/* ---- HTML ---- */

static void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* control characters are not allowed in XML */
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, out);
		}
	}
}

/* A cell that reads as a number, for right alignment. */
static int numeric(const char *s)
{
	char *end;
	if (!*s)
		return 0;
	strtod(s, &end);
	return *end == '\0';
}

/* A column whose cells all read as numbers (empty ones aside) aligns right. */
static int numeric_column(const struct block *b, int c)
{
	int numbers = 0;
	for (int r = 0; r < table_rows(b->table); r++) {
		const char *cell = table_cell(b->table, r, c);
		if (!*cell)
			continue;
		if (!numeric(cell))
			return 0;
		numbers++;
	}
	return numbers > 0;
}

static void html_table(FILE *out, const struct block *b)
{
	fputs("<table>\n<thead><tr>", out);
	for (int c = 0; c < b->ncols; c++) {
		fputs("<th>", out);
		html_text(out, b->headers[c]);
		fputs("</th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (int r = 0; r < table_rows(b->table); r++) {
		/* a row that holds a verdict is coloured by it */
		const char *cls = "";
		for (int c = 0; c < b->ncols; c++) {
			const char *cell = table_cell(b->table, r, c);
			if (!strcmp(cell, "regression"))
				cls = " class=\"bad\"";
			else if (!strcmp(cell, "improvement"))
				cls = " class=\"good\"";
		}
		fprintf(out, "<tr%s>", cls);
		for (int c = 0; c < b->ncols; c++) {
			const char *cell = table_cell(b->table, r, c);
			fputs(numeric_column(b, c) ? "<td class=\"num\">" : "<td>", out);
			html_text(out, cell);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

static const char style[] =
	"body { font-family: sans-serif; margin: 1.5em 2em; color: #202020; max-width: 110em; }\n"
	"h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 1.8em;"
	" border-bottom: 1px solid #d0d0d0; } h3 { font-size: 1.05em; }\n"
	"table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }\n"
	"th, td { border: 1px solid #c8c8c8; padding: 0.2em 0.6em; text-align: left; }\n"
	"th { background: #f0f0f0; } td.num { text-align: right;"
	" font-variant-numeric: tabular-nums; }\n"
	"tr.bad td { background: #fde0dc; } tr.good td { background: #e2f3e0; }\n"
	"div.figure { margin: 0.8em 0 1.6em; max-width: 75em; }\n"
	"div.figure img { width: 100%; height: auto; border: 1px solid #e0e0e0; }\n"
	"div.small { display: inline-block; width: 36em; max-width: 100%; margin-right: 1em;"
	" vertical-align: top; }\n"
	"div.caption { font-size: 0.85em; color: #505050; }\n";

int doc_write_html(const struct report_doc *d, const char *title, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n<title>", out);
	html_text(out, title);
	fprintf(out, "</title>\n<style type=\"text/css\">\n%s</style>\n</head>\n<body>\n", style);
	for (size_t i = 0; i < d->count; i++) {
		const struct block *b = &d->blocks[i];
		switch (b->kind) {
		case BLOCK_HEADING:
			fprintf(out, "<h%d>", b->level);
			html_text(out, b->text ? b->text : "");
			fprintf(out, "</h%d>\n", b->level);
			break;
		case BLOCK_PARA:
			fputs("<p>", out);
			html_text(out, b->text ? b->text : "");
			fputs("</p>\n", out);
			break;
		case BLOCK_TABLE:
			html_table(out, b);
			break;
		case BLOCK_IMAGE:
			fputs(b->small ? "<div class=\"figure small\"><a href=\"" : "<div class=\"figure\"><a href=\"",
			      out);
			html_text(out, b->path);
			fputs("\"><img src=\"", out);
			html_text(out, b->path);
			fputs("\" alt=\"", out);
			html_text(out, b->text);
			fputs("\" /></a><div class=\"caption\">", out);
			html_text(out, b->text);
			fputs("</div></div>\n", out);
			break;
		}
	}
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}
