/** `licensing heartbeat --keep-alive`: renewing a lease until interrupted. */
import { EXIT, type CliIo } from './cli-io.js';
import { exitCode, report } from './cli-report.js';
import type { LicensingClient } from '../client.js';
import type { HeartbeatEvent } from '../validation/heartbeat.js';
import type { LicensingResult, ValidationData } from '../result.js';

/** `3.3s`, `45s`, `5m`, `1m 30s`, `2h 5m`, `3d 4h`: a wait, to read. */
function wait(ms: number): string {
  if (ms < 10_000) return `${Math.round(ms / 100) / 10}s`;
  let rest = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.slice(0, 2).join(' ');
}

/**
 * `heartbeat --keep-alive`: heartbeats at a third of the lease until SIGINT or SIGTERM (exit code
 * 0), or until an answer ends them (a verdict: its exit code). The first answer is reported in
 * full, each later one on a line of its own (or as a JSON line with --json).
 */
export function keepAlive(
  io: CliIo,
  client: LicensingClient,
  key: string,
  identifier: string,
  json: boolean,
): Promise<number> {
  return new Promise<number>((resolve) => {
    // The heartbeat's timers are unref'd: this keeps the command running meanwhile.
    const keeper = setInterval(() => undefined, 2 ** 30);
    const controller = new AbortController();
    let ends: string | null = null;
    let first = true;
    const interrupted = () => {
      controller.abort();
      io.stdout.write(
        json
          ? `${JSON.stringify({ status: 'stopped', lease_expires_at: ends })}\n`
          : `Stopped.${ends === null ? '' : ` The lease ends ${ends} unless renewed.`}\n`,
      );
      finish(EXIT.OK);
    };
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const finish = (code: number) => {
      clearInterval(keeper);
      io.signal?.removeEventListener('abort', interrupted);
      // Removed, so a second Ctrl-C ends the command at once, even while a call is in flight.
      if (!io.signal) for (const name of signals) process.off(name, interrupted);
      resolve(code);
    };
    if (io.signal) io.signal.addEventListener('abort', interrupted);
    else for (const name of signals) process.on(name, interrupted);
    if (io.signal?.aborted) return interrupted();

    const onResult = (result: LicensingResult<ValidationData>, event: HeartbeatEvent) => {
      if (result.success && !result.stale) ends = result.data.lease_expires_at ?? null;
      const at = new Date().toISOString();
      if (json) {
        io.stdout.write(`${JSON.stringify({ at, ...event, result })}\n`);
      } else if (first || event.status === 'ended') {
        report(io, 'heartbeat', result, false);
        if (event.next !== null) {
          const what = event.status === 'retrying' ? 'Retrying' : 'Next heartbeat';
          const why = event.status === 'renewed' ? ' (a third of the lease)' : '';
          io.stdout.write(`${what} in ${wait(event.next)}${why}; stop with Ctrl-C.\n`);
        }
      } else if (event.status === 'retrying') {
        const failure = result.success ? result.cause : result;
        const why = failure
          ? `${failure.message}${failure.code ? ` [${failure.code}]` : ''}`
          : 'the server could not answer';
        const lease = ends === null ? '' : ` (the lease ends ${ends} unless renewed)`;
        io.stderr.write(
          `${at} licensing: ${why}; not renewed, retrying in ${wait(event.next ?? 0)}${lease}\n`,
        );
      } else if (event.status === 'renewed') {
        io.stdout.write(
          `${at} Lease renewed; ends ${ends} unless renewed again; next heartbeat in ${wait(event.next ?? 0)}\n`,
        );
      } else {
        io.stdout.write(`${at} Lease: none; next check in ${wait(event.next ?? 0)}\n`);
      }
      first = false;
      if (event.status === 'ended') finish(exitCode(result, 'heartbeat'));
    };
    client.startHeartbeat(key, identifier, { onResult, signal: controller.signal });
  });
}
