/**
 * Small process helpers shared by the CLI (the watch on the parent process, cli/process-io.ts)
 * and the data folder (its lock names the pid that holds it, data/folder.ts).
 * @module
 */

/** Whether a process with this pid exists (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
