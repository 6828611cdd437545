/**
 * Started first by `npm run bench`, in a process group of its own, with an IPC channel. The
 * benchmark sends it the process group of every child it starts; when the channel closes (the
 * benchmark ended, normally or not, even by SIGKILL), this ends those groups: SIGTERM, then
 * SIGKILL after a grace period. Nothing the benchmark started outlives it.
 */
import { groupAlive, signalGroup } from '../support/process-groups.js';

const GRACE_MS = 10_000;
const groups = new Set<number>();

function signalAll(signal: NodeJS.Signals): void {
  for (const pgid of groups) signalGroup(pgid, signal);
}

process.on('message', (message: unknown) => {
  const pgid = (message as { pgid?: unknown } | null)?.pgid;
  if (typeof pgid === 'number' && Number.isInteger(pgid) && pgid > 1) groups.add(pgid);
});
process.on('disconnect', () => {
  signalAll('SIGTERM');
  const deadline = Date.now() + GRACE_MS;
  const check = setInterval(() => {
    for (const pgid of groups) if (!groupAlive(pgid)) groups.delete(pgid);
    if (groups.size > 0 && Date.now() < deadline) return;
    clearInterval(check);
    signalAll('SIGKILL');
    process.exit(0);
  }, 200);
});
// Ctrl+C reaches the benchmark, which stops everything; this process waits for the channel.
process.on('SIGINT', () => {});
console.log(JSON.stringify({ reaper: 'ready' }));
