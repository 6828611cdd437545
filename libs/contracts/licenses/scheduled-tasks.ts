import { z } from 'zod';
import { Timestamp } from '../shared.js';

/** The scheduled tasks (spec 2.5 and 3.1, "Reminders & Expiration"), by their API names. */
export const taskNames = [
  'license-expiry',
  'rejected-attempt-pruning',
  'activation-lease-release',
] as const;
export const TaskName = z.enum(taskNames);
export type TaskName = z.infer<typeof TaskName>;

export const RunTaskRequest = z.strictObject({ name: TaskName });

/** One run of a scheduled task: when, and how many records it changed. */
export const TaskRun = z.object({
  name: TaskName,
  ran_at: Timestamp,
  affected: z.number().int().nonnegative(),
});
export type TaskRun = z.infer<typeof TaskRun>;

export const ScheduledTask = z.object({
  name: TaskName,
  /** As configured: `1 minute`, `1 hour`. */
  interval: z.string(),
  last_run: z
    .object({
      ran_at: Timestamp,
      /** `scheduled`, or `on-demand` (run by an admin). */
      trigger: z.enum(['scheduled', 'on-demand']),
      /** Records changed; null when the run failed. */
      affected: z.number().int().nonnegative().nullable(),
      /** Why the run failed; null when it succeeded. */
      error: z.string().nullable(),
    })
    .nullable(),
  /** When a license-service replica will run it next; null when no replica schedules it. */
  next_run_at: Timestamp.nullable(),
});
export type ScheduledTask = z.infer<typeof ScheduledTask>;
export const ScheduledTaskList = z.object({ tasks: z.array(ScheduledTask) });
