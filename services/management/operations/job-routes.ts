import { z } from 'zod';
import { LicensingError, TaskName, TaskRun } from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { adminRoute } from '../route-makers/admin-route.js';
import { rpcRoute } from '../route-makers/rpc-route.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';

/** A task named in the path; an unknown name is a route that does not exist (404). */
const TaskPath = z.object({
  name: z.string().meta({ description: `One of: ${TaskName.options.join(', ')}.` }),
});

/**
 * The scheduled tasks of the license service (spec 2.5 and 3.1, "Reminders & Expiration"): run
 * one now, on one replica like a scheduled run, and see when each ran and will run.
 */
export const jobRoutes = [
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/jobs`,
    operationId: 'listJobs',
    summary: 'The scheduled tasks: their interval, last run and its result, next run.',
    tag: 'Jobs',
    rpc: 'license.listTasks',
    request: () => ({}),
    success: { status: 200, description: 'The tasks.' },
    errors: {},
  }),
  adminRoute({
    method: 'post',
    path: `${ADMIN_BASE}/jobs/:name`,
    operationId: 'runJob',
    summary:
      'Run a scheduled task now (license-expiry: active licenses past their date become ' +
      'expired; rejected-attempt-pruning: rows untouched for 90 days go; ' +
      'activation-lease-release: activations whose lease ran out are removed) and see what it did.',
    tag: 'Jobs',
    params: TaskPath,
    success: { status: 200, description: 'The run.', data: TaskRun },
    errors: { 404: adminErrors[404]('There is no task with this name.') },
    handle: async ({ params }, { transport }) => {
      const name = TaskName.safeParse(params.name);
      if (!name.success) {
        throw new LicensingError(
          'NOT_FOUND',
          `There is no task named ${JSON.stringify(params.name)}.`,
        );
      }
      return { data: await transport.call('license.runTask', { name: name.data }) };
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
