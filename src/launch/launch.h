/* launch.h: fgobench starting its own ranks. Run outside an MPI launcher,
 * `fgobench sweep|run ...` becomes the supervisor of its job: it starts the
 * ranks the work needs through mpirun (with --oversubscribe when the
 * machine has fewer cores than ranks, and Open MPI's root settings when
 * run as root; inside a Slurm allocation, srun --ntasks), relays their
 * output and exit status, stops them on Ctrl-C,
 * and keeps the sweep going when a kernel kills its job: a crash, an
 * exit() or a lost GPU context ends the job, the flight records
 * (run/flight.h) say which configuration did it, and the job is started
 * again on the rest of the sweep; a launch past its limit is stopped by the
 * supervisor the same way (docs/reliability.md). Under mpirun or srun the
 * command runs as it always did. */
#ifndef FGO_LAUNCH_H
#define FGO_LAUNCH_H

/* Whether this process was started by an MPI launcher (mpirun, srun,
 * mpiexec), or was told not to launch (FGOBENCH_LAUNCH=0). */
int launch_under_launcher(void);

/* Runs `fgobench argv[0..argc)` (argv[0] the command) as a supervised job
 * of np ranks and returns the exit status the job's rank 0 gave (128 +
 * the signal when interrupted). */
int launch_supervise(int argc, char **argv, int np);

#endif
