/* store_check.c: is an opened store whole? A store is a file people share
 * and edit; one with a table or a column dropped would otherwise answer
 * the first query that needs it with SQLite's raw "no such table". The
 * reference is the embedded schema itself, made once in memory, so this
 * check never falls out of step with db/schema.sql. Also names what a
 * store path that is not a regular file is. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "embed.h"
#include "fgo.h"
#include "store/store.h"

/* Every (table, column) of the embedded schema, in one query. */
static const char columns_sql[] =
	"SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p"
	" WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid";

static int has_column(sqlite3 *db, const char *table, const char *column, int *table_found)
{
	sqlite3_stmt *q;
	int found = 0;
	*table_found = 0;
	if (sqlite3_prepare_v2(db, "SELECT name = ?2 FROM pragma_table_info(?1, 'main')", -1, &q,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, column, -1, SQLITE_STATIC);
	while (sqlite3_step(q) == SQLITE_ROW) {
		*table_found = 1;
		found |= sqlite3_column_int(q, 0);
	}
	sqlite3_finalize(q);
	return found;
}

int store_check_whole(sqlite3 *db, const char *path, char *err, size_t len)
{
	const char *schema = embedded_text("db/schema.sql");
	sqlite3 *ref = NULL;
	sqlite3_stmt *q = NULL;
	int rc = FGO_OK;

	if (!schema)
		return FGO_OK; /* a build without the schema cannot create stores either */
	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(ref, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, columns_sql, -1, &q, NULL) != SQLITE_OK) {
		snprintf(err, len, "%s: cannot check the store: %s", path,
			 ref ? sqlite3_errmsg(ref) : "out of memory");
		sqlite3_close(ref);
		return FGO_EFAIL;
	}
	while (rc == FGO_OK && sqlite3_step(q) == SQLITE_ROW) {
		const char *table = (const char *)sqlite3_column_text(q, 0);
		const char *column = (const char *)sqlite3_column_text(q, 1);
		int table_found, found = has_column(db, table, column, &table_found);
		if (found < 0) {
			snprintf(err, len, "%s: cannot check the store: %s", path, sqlite3_errmsg(db));
			rc = FGO_EFAIL;
		} else if (!found) {
			char what[160];
			if (table_found)
				snprintf(what, sizeof what, "column %s.%s is missing", table, column);
			else
				snprintf(what, sizeof what, "table %s is missing", table);
			snprintf(err, len, "%s: the store is damaged: %s (edited by hand or by another"
				 " tool?); fgobench cannot use it: restore it from a copy, or pass --db"
				 " with a new file to start a new store", path, what);
			rc = FGO_EUSAGE;
		}
	}
	sqlite3_finalize(q);
	sqlite3_close(ref);
	return rc;
}

const char *store_file_kind(unsigned mode)
{
	mode_t m = (mode_t)mode;
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}
