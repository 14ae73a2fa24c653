/* atomic_file.h: a file written whole or not at all. The text goes to a
 * unique temporary beside the target (mkstemp: unique across processes and
 * hosts sharing the folder) and is renamed over it only when every write
 * and the close succeeded, so a reader never sees half a file and a failed
 * write leaves the old one in place. The file is made readable by others
 * (0644), as reports, JUnit files and the kernel cache are. */
#ifndef FGO_ATOMIC_FILE_H
#define FGO_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;          /* write here; a caller whose temporary another program
			     fills (gnuplot's images) closes it and sets NULL */
	char *tmp;        /* the temporary's name */
	const char *path; /* the target */
};

/* Opens the temporary for path. FGO_OK, or FGO_EUSAGE (the folder is not
 * there or not writable) / FGO_EFAIL with the reason in err. */
int atomic_open(struct atomic_file *af, const char *path, char *err, size_t len);

/* Closes the temporary and renames it over the target; on any failure
 * (a write error included) removes it and says why. FGO_OK or FGO_EFAIL. */
int atomic_commit(struct atomic_file *af, char *err, size_t len);

/* Gives up: closes and removes the temporary; the target is untouched. */
void atomic_abort(struct atomic_file *af);

#endif
