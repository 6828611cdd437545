import type { TaskName } from '../../../../../libs/contracts/index.js';
import { Empty, ErrorNote, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { Loading, Outcome } from '../../shared/components/notices.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** The scheduled tasks (spec 2.5, 3.1 "Reminders & Expiration"), in words. */
const TASKS: Record<TaskName, { title: string; does: string; result: (count: number) => string }> =
  {
    'license-expiry': {
      title: 'License expiry',
      does: 'Marks active licenses past their expiry date as expired.',
      result: (count) => `${count} ${count === 1 ? 'license' : 'licenses'} marked expired`,
    },
    'rejected-attempt-pruning': {
      title: 'Rejected attempt pruning',
      does: 'Removes rejected activation attempts untouched for 90 days.',
      result: (count) => `${count} rejected ${count === 1 ? 'attempt' : 'attempts'} removed`,
    },
    'activation-lease-release': {
      title: 'Lease release',
      does:
        'Removes activations whose lease ran out (they stopped counting the moment it did); ' +
        'each removal is logged as activation.deleted.',
      result: (count) => `${count} lapsed ${count === 1 ? 'activation' : 'activations'} removed`,
    },
  };

/** The scheduled tasks: when each last ran and what it did, and a button to run one now. */
export function Tasks() {
  const api = useApi();
  const tasks = useLoad(() => api.call('listJobs'), [api]);
  const can = useCan();
  const action = useAction();
  const run = (name: TaskName) =>
    action.run(async () => {
      const result = await api.call('runJob', { params: { name } });
      tasks.reload();
      const task = TASKS[result.name];
      return `${task.title} ran: ${task.result(result.affected)}.`;
    });
  const list = tasks.data?.tasks ?? [];
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Scheduled tasks</h2>
      <ErrorNote error={tasks.error} />
      <Outcome action={action} />
      {tasks.data === null ? (
        tasks.loading && <Loading what="the tasks" />
      ) : list.length === 0 ? (
        <Empty>There are no scheduled tasks.</Empty>
      ) : (
        <Table columns={['Task', 'Every', 'Last run', 'Result', 'Next run']} actions>
          {list.map((task) => {
            const words = TASKS[task.name];
            const last = task.last_run;
            return (
              <tr key={task.name} data-task={task.name}>
                <td>
                  <strong>{words.title}</strong>
                  <div class="muted">{words.does}</div>
                </td>
                <td>{task.interval}</td>
                <td>
                  {last === null ? (
                    <span class="muted">never</span>
                  ) : (
                    <>
                      <Time value={last.ran_at} />
                      <div class="muted">
                        {last.trigger === 'on-demand' ? 'on demand' : 'scheduled'}
                      </div>
                    </>
                  )}
                </td>
                <td>
                  {last === null ? (
                    <span class="muted">none</span>
                  ) : last.error !== null ? (
                    <span class="failed">Failed: {last.error}</span>
                  ) : (
                    words.result(last.affected ?? 0)
                  )}
                </td>
                <td>
                  <Time value={task.next_run_at} empty="not scheduled" />
                </td>
                <td>
                  <button
                    type="button"
                    class="small"
                    disabled={action.busy}
                    hidden={!can('runJob')}
                    aria-label={`Run ${words.title} now`}
                    onClick={() => void run(task.name)}
                  >
                    Run now
                  </button>
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </section>
  );
}
