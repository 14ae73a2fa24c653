/* report_doc.h: a small document model for `fgobench report`: headings,
 * paragraphs, tables and images collected in order, then written as
 * GitHub Markdown or as one static HTML page (inline style, no scripts,
 * nothing fetched from elsewhere; well-formed XML too, so both HTML and
 * XML parsers read it). Text is plain: each writer escapes it. */
#ifndef FGO_REPORT_DOC_H
#define FGO_REPORT_DOC_H

#include <stdio.h>

#include "views/table.h"

struct report_doc;

struct report_doc *doc_new(void);
void doc_free(struct report_doc *d);

/* level 1..3 */
void doc_heading(struct report_doc *d, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void doc_para(struct report_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Takes ownership of t; headers (ncols names) must outlive the document. */
void doc_table(struct report_doc *d, struct fgo_table *t, int ncols, const char *const *headers);
/* An image by its path relative to the document, with a caption; small
 * ones sit side by side in HTML (a gallery), the others take the width. */
void doc_image(struct report_doc *d, const char *path, const char *caption, int small);

/* 1 when an allocation failed while building (the document is incomplete). */
int doc_failed(const struct report_doc *d);

/* Writers; 0, or -1 on a write error. title is the HTML page title. */
int doc_write_md(const struct report_doc *d, FILE *out);
int doc_write_html(const struct report_doc *d, const char *title, FILE *out);

#endif
