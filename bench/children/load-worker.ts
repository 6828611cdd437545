/**
 * The load generator of `npm run bench`: autocannon, in a process of its own so that it shares
 * no event loop and no CPU account with the processes measured. Runs the jobs the benchmark sends
 * over IPC one at a time; says `started` just before the load begins (the benchmark starts its
 * CPU window then) and `done` with the counts and latencies once it has ended.
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import {
  EACH_CYCLE_ID,
  EACH_REQUEST_ID,
  percentile,
  type FromWorker,
  type LoadJob,
  type LoadResult,
  type ToWorker,
} from '../load-protocol.js';

const send = (message: FromWorker): void => {
  process.send?.(message);
};

const prefix = randomBytes(4).toString('hex');
let cycles = 0;

/** autocannon's requests for a job: `[<cycle>]` becomes an id kept for one pass of the list. */
function requestsOf(job: LoadJob): autocannon.Request[] {
  return job.requests.map((request, index) => {
    const built: autocannon.Request = {
      method: request.method,
      path: request.path,
      headers: request.headers ?? {},
      ...(request.body === undefined ? {} : { body: request.body }),
    };
    const dynamic = `${request.path}${request.body ?? ''}`.includes(EACH_CYCLE_ID);
    if (!dynamic) return built;
    return {
      ...built,
      // autocannon gives each connection a context, emptied whenever it starts the list again.
      setupRequest: (req, context) => {
        const pass = context as { cycle?: string };
        if (index === 0 || pass.cycle === undefined) pass.cycle = `${prefix}-${++cycles}`;
        const cycle = pass.cycle;
        return {
          ...req,
          path: (req.path ?? '').replaceAll(EACH_CYCLE_ID, cycle),
          ...(typeof req.body === 'string'
            ? { body: req.body.replaceAll(EACH_CYCLE_ID, cycle) }
            : {}),
        };
      },
    };
  });
}

async function run(id: number, job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let answered = 0;
  const idReplacement = job.requests.some((r) =>
    `${r.path}${r.body ?? ''}`.includes(EACH_REQUEST_ID),
  );
  send({ type: 'started', id });
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url: job.origin,
    requests: requestsOf(job),
    idReplacement,
    connections: job.connections,
    duration: job.seconds,
    ...(job.rate === undefined ? {} : { overallRate: job.rate }),
    timeout: 10,
    setupClient: (client) => {
      client.on('response', (status, _bytes, ms) => {
        answered++;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === job.expectedStatus) latencies.push(ms);
      });
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const sorted = Float64Array.from(latencies).sort();
  return {
    seconds,
    answered,
    expected: latencies.length,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

let queue = Promise.resolve();
process.on('message', (message: ToWorker) => {
  if (message.type !== 'run') return;
  queue = queue.then(() =>
    run(message.id, message.job).then(
      (result) => send({ type: 'done', id: message.id, result }),
      (error: unknown) =>
        send({
          type: 'failed',
          id: message.id,
          message: error instanceof Error ? error.message : String(error),
        }),
    ),
  );
});
// The benchmark went away: nothing left to do.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
