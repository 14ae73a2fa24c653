/* table_impl.h: what table.c and table_data.c share inside the views'
 * printer (table.h is the interface): the table itself and the number test
 * both the aligned columns and JSON rely on. */
#ifndef FGO_TABLE_IMPL_H
#define FGO_TABLE_IMPL_H

#include <stdio.h>

#include "views/table.h"

struct fgo_table {
	int ncols;
	char **headers;  /* ncols names */
	char **cells;    /* row-major, ncells used of cap */
	size_t ncells, cap;
	int failed;      /* an allocation failed: the table is incomplete */
	int fit;         /* table_fit's width; 0: none */
	char *whole;     /* ncols flags: table_nowrap's columns */
};

/* A JSON number exactly (RFC 8259 grammar); table_json_number: and finite. */
int table_is_json_number(const char *s);
int table_json_number(const char *s);

/* The CSV and JSON forms (table_data.c). */
void table_print_csv(const struct fgo_table *t, FILE *out);
void table_print_json(const struct fgo_table *t, FILE *out);

#endif
