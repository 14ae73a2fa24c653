/* sink.h: one helper per place untrusted text goes. Names, tags, hosts and
 * algorithms come from specs, datasets, flags, the environment and stores,
 * and stores are shared between people, so none of it may act as code:
 *   gnuplot   sink_plot: a closed set of characters, written only inside
 *             single quotes (scripts) or double quotes (data files), so no
 *             quote, backquote, newline or macro can leave the string
 *   file name sink_filename: letters, digits and "+-._", nothing else
 *   terminal  sink_terminal: control characters as visible escapes
 *             (sink_message: a message of lines, newlines and tabs kept)
 *   shell     sink_shell: one word of a command line a user may paste
 *   folder    sink_check_dir: what a user names with -o (see below)
 * Each writes a NUL-terminated result that fits len (truncated if not). */
#ifndef FGO_SINK_H
#define FGO_SINK_H

#include <stddef.h>

/* The characters sink_plot keeps; every other byte (a whole UTF-8
 * sequence counts as one) becomes '?'. The set is what names and tags
 * use: letters, digits, spaces and _-.:/+=@ plus ,()%* for fgobench's own
 * titles. */
#define SINK_PLOT_CHARS                                                                 \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:/+=@,()%*"

void sink_plot(const char *s, char *out, size_t len);

/* A name safe as one path component: other bytes become '_'. */
void sink_filename(const char *s, char *out, size_t len);

/* s with bytes below 0x20, 0x7f and the C1 controls (U+0080..U+009F)
 * written as \n, \t, \r, \xNN or \u00NN, so printing it cannot move the
 * cursor, clear the screen or split a row. Returns the length of the
 * whole result (like snprintf), so out = NULL, len = 0 measures it. */
size_t sink_terminal(const char *s, char *out, size_t len);

/* The same for a whole message of fgobench's (error(), note(), the usage
 * errors): its lines and tabs kept (a compiler's output is lines), every
 * other control character (an escape sequence from a kernel's err or a
 * stored reason) escaped. */
size_t sink_message(const char *s, char *out, size_t len);

/* s as one shell word: as it is when it holds only letters, digits and
 * _-.:/+=@,% (and is not empty), else in single quotes with each ' written
 * '\'' so no $, backquote or ; in it acts. Fits len (truncated as a whole
 * word is not: out is then "''"). */
void sink_shell(const char *s, char *out, size_t len);

/* Checks a folder fgobench writes into (-o): not empty, no control
 * characters (it is printed and used as a path). gnuplot never sees it:
 * plots are drawn with the folder as gnuplot's working directory. FGO_OK,
 * or FGO_EUSAGE with what to do in err; opt names the flag. */
int sink_check_dir(const char *opt, const char *dir, char *err, size_t len);

/* Checks a file fgobench will write (--junit) before the work that
 * produces it: a name without control characters, in a folder that is
 * there and writable, and not itself a folder. FGO_OK, or FGO_EUSAGE. */
int sink_check_file(const char *opt, const char *path, char *err, size_t len);

#endif
