/**
 * The benchmark's side of the load generator (children/load-worker.ts): sends it a job and
 * waits, bounded in time, for its result; calls `onStarted` as the load begins, so the CPU
 * window of the measured processes opens with it.
 */
import type { ChildGroup } from './support/child-group.js';
import type { FromWorker, LoadJob, LoadResult, ToWorker } from './load-protocol.js';

/** Beyond the job's own duration: connections, the last answers, the IPC round trip. */
const SLACK_MS = 60_000;

export class LoadGenerator {
  private nextId = 1;

  constructor(private readonly worker: ChildGroup) {}

  run(job: LoadJob, onStarted: () => void = () => {}): Promise<LoadResult> {
    const id = this.nextId++;
    const { child } = this.worker;
    let listener: ((message: FromWorker) => void) | undefined;
    const answer = new Promise<LoadResult>((resolve, reject) => {
      listener = (message: FromWorker) => {
        if (!('id' in message) || message.id !== id) return;
        if (message.type === 'started') onStarted();
        else if (message.type === 'done') resolve(message.result);
        else reject(new Error(`load generator: ${message.message}`));
      };
      child.on('message', listener);
    });
    child.send({ type: 'run', id, job } satisfies ToWorker);
    return this.worker
      .bounded(answer, job.seconds * 1000 + SLACK_MS, () => `the end of a ${job.seconds} s load`)
      .finally(() => {
        if (listener) child.off('message', listener);
      });
  }
}
