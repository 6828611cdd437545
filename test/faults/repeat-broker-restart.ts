/**
 * The fault suite's broker restart, many times in a row on one running system:
 *
 *   npm run faults:broker-restarts [-- runs]      (default 20)
 *
 * Prints one line per run: the requests lost after the system had recovered (sent after ten
 * correct answers in a row, and not answered correctly), which must be 0 in every run, and how
 * long after the broker was back each process had reconnected. For a run that lost any, what each
 * process logged meanwhile. `FAULT_LOGS_DIR=dir` keeps every process's whole log there. Not part
 * of CI (a run takes about 20 s; `npm run test:faults` runs the scenario once). Exits 1 when a run
 * lost a request.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LogLine } from '../../bench/support/child-group.js';
import { describeFailures, type Outcome } from './support/load.js';
import { RPC_TIMEOUT_MS, restartBroker, scenarioLoad } from './support/scenario.js';
import type { ServiceProcess } from './support/services.js';
import { FaultSystem } from './support/system.js';

const runs = Number(process.argv[2] ?? 20);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write('usage: npm run faults:broker-restarts [-- runs]\n');
  process.exit(2);
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23);
const timeOf = (line: LogLine) => (typeof line.time === 'number' ? line.time : 0);

/** A log line as one readable line, without the fields every line of a process has. */
function show(service: ServiceProcess, line: LogLine): string {
  const fields = Object.entries(line).filter(
    ([name]) => !['time', 'level', 'msg', 'pid', 'hostname', 'process'].includes(name),
  );
  return `  ${clock(timeOf(line))} ${service.label} ${String(line.msg)} ${JSON.stringify(Object.fromEntries(fields))}`;
}

/** A request or RPC answered correctly says nothing about a loss. */
const answered = (line: LogLine) =>
  (line.msg === 'request' && line.status === 200) || (line.msg === 'rpc' && line.outcome === 'ok');

/** Seconds after `upAt` at which each process said its broker connection was back. */
function reconnections(system: FaultSystem, stoppedAt: number, upAt: number): string {
  return system
    .processes()
    .filter((service) => service.alive())
    .map((service) => {
      const back = service.group.lines.find(
        (line) => line.msg === 'RabbitMQ connection established' && timeOf(line) > stoppedAt,
      );
      const after = back === undefined ? 'not back' : `${(timeOf(back) - upAt) / 1000} s`;
      return `${service.label} ${after}`;
    })
    .join(', ');
}

function report(
  system: FaultSystem,
  run: number,
  times: { stoppedAt: number; upAt: number; recoveredAt: number },
  lost: Outcome[],
): void {
  const { stoppedAt, upAt, recoveredAt } = times;
  process.stdout.write(
    `run ${String(run).padStart(2)}: requests lost after recovery: ${lost.length} ` +
      `(broker down ${((upAt - stoppedAt) / 1000).toFixed(1)} s, recovered ` +
      `${((recoveredAt - upAt) / 1000).toFixed(1)} s after it was back; reconnected after it ` +
      `was back: ${reconnections(system, stoppedAt, upAt)})\n`,
  );
  if (lost.length === 0) return;
  for (const failure of describeFailures(lost)) process.stdout.write(`  ${failure}\n`);
  const last = Math.max(...lost.map((o) => o.sentAt + o.ms));
  for (const service of system.processes()) {
    for (const line of service.group.lines) {
      const time = timeOf(line);
      if (time >= stoppedAt && time <= last + 1000 && !answered(line)) {
        process.stdout.write(`${show(service, line)}\n`);
      }
    }
  }
}

// At debug, each service logs every RPC request it answers, with the request's id.
const system = await FaultSystem.start({ rpcTimeoutMs: RPC_TIMEOUT_MS, logLevel: 'debug' });
let lostRuns = 0;
try {
  for (let run = 1; run <= runs; run++) {
    await system.restore();
    const { load } = await scenarioLoad(system, `repeat-${run}`, 40);
    const restart = await restartBroker(system, load);
    report(system, run, restart, restart.lostAfterRecovery);
    if (restart.lostAfterRecovery.length > 0) lostRuns += 1;
  }
} finally {
  const logs = process.env.FAULT_LOGS_DIR;
  if (logs !== undefined) {
    await mkdir(logs, { recursive: true });
    for (const service of system.processes()) {
      const text = service.group.lines.map((line) => `${JSON.stringify(line)}\n`).join('');
      await writeFile(path.join(logs, `${service.label}.log`), text);
    }
  }
  await system.stop();
}
process.stdout.write(`${lostRuns} of ${runs} runs lost a request after recovery\n`);
process.exit(lostRuns === 0 ? 0 : 1);
