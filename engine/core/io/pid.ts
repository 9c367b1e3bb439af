// Whether a process lives, by its pid: signal 0 checks without sending. EPERM
// means it exists and belongs to another user. One home for the daemon's lock,
// `up`'s record of itself and the shims' scratch files.

/** Whether a process with this pid exists (0 and negatives name process groups: never). pid 1 is one (`up` in a container). */
export function processExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
