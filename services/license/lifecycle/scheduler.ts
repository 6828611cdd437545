import { MongoBackend } from '@agendajs/mongo-backend';
import { Agenda } from 'agenda';
import type { Connection } from 'mongoose';
import { taskNames } from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { LicenseEvents } from '../events.js';
import { SCHEDULED_TASKS_COLLECTION } from '../models.js';
import {
  runScheduledTask,
  scheduledTasks,
  type ScheduleSettings,
  type TaskStores,
} from './scheduled-tasks.js';
import type { LicenseStores } from '../stores.js';

/**
 * The license service's scheduled tasks (spec "Reminders & Expiration"), run by Agenda on the
 * service's own database. Every replica runs a scheduler; Agenda keeps one job record per task
 * and locks it while it runs, so each run happens on one replica only. Each run is kept as its
 * task's last run, a failure included (scheduled-tasks.ts `runScheduledTask`).
 */
export async function startScheduler(deps: {
  db: Connection;
  stores: TaskStores & Pick<LicenseStores, 'taskRuns'>;
  events: LicenseEvents;
  logger: Logger;
  settings: ScheduleSettings;
}): Promise<{ stop(): Promise<void> }> {
  if (!deps.settings.enabled) return { stop: async () => {} };
  const database = deps.db.db;
  if (!database) throw new Error('the license database is not connected');
  const agenda = new Agenda({
    backend: new MongoBackend({ mongo: database, collection: SCHEDULED_TASKS_COLLECTION }),
    processEvery: deps.settings.pollEvery,
  });
  agenda.on('error', (err: Error) => deps.logger.warn({ err: err.message }, 'scheduler error'));
  agenda.on('fail', (err: Error, job) =>
    deps.logger.error({ err, task: job.attrs.name }, 'scheduled task failed'),
  );

  const options = { lockLifetime: deps.settings.taskTimeoutMs, concurrency: 1 };
  for (const name of taskNames) {
    const task = scheduledTasks[name];
    agenda.define(
      task.jobName,
      async () => {
        const changed = await runScheduledTask({
          name,
          stores: deps.stores,
          events: deps.events,
          trigger: 'scheduled',
          now: new Date(),
        });
        if (changed > 0) deps.logger.info({ task: task.jobName, changed }, task.done);
      },
      options,
    );
  }
  await agenda.start();
  for (const name of taskNames) {
    const task = scheduledTasks[name];
    await agenda.every(task.interval(deps.settings), task.jobName);
  }
  return {
    // The connection is the service's; it is closed by whoever opened it.
    stop: () => agenda.stop(false),
  };
}
