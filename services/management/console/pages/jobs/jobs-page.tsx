import type { ServiceName, TaskName } from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Empty, ErrorNote, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
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

/** The services behind the management API, each asked by GET /admin/v1/health. */
const SERVICES = {
  license: 'License service: plans, licenses, activations, rejected attempts',
  'update-catalog': 'Update catalog: products, bundles, versions, files',
  download: 'Download service: package storage and the download log',
  webhooks: 'Webhooks service: webhook endpoints and their deliveries',
} satisfies Record<ServiceName, string>;

function Tasks() {
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

function uptime(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} days`;
}

/**
 * The services that did not answer, from a 503's message ("Not answering: license (timeout);
 * download"): the answer names them and nothing else.
 */
function silentServices(error: unknown): Set<string> | null {
  if (!(error instanceof ApiError) || error.code !== 'SERVICE_UNAVAILABLE') return null;
  const list = error.serverMessage.replace(/^Not answering:\s*/, '');
  return new Set(list.split(';').map((part) => part.trim().split(/\s/)[0] ?? ''));
}

function Health() {
  const api = useApi();
  const health = useLoad(() => api.call('health'), [api]);
  const silent = silentServices(health.error);
  const names = Object.keys(SERVICES) as ServiceName[];
  return (
    <section aria-labelledby="health-heading">
      <div class="title-row">
        <h2 id="health-heading">Health</h2>
        <ReloadButton loaded={health} small label="Check again" />
      </div>
      <ErrorNote error={health.error} />
      {health.loading && <Loading what="the health of every service" />}
      {!health.loading && (health.data !== null || silent !== null) && (
        <Table columns={['Service', 'State', 'Up for']}>
          <tr data-service="management">
            <th scope="row">Management API: this console's API</th>
            <td class="ok">Answering</td>
            <td class="muted">–</td>
          </tr>
          {names.map((name) => {
            const report = silent === null ? health.data?.services[name] : undefined;
            const down = silent !== null ? silent.has(name) : report === undefined;
            return (
              <tr key={name} data-service={name}>
                <th scope="row">{SERVICES[name]}</th>
                {down ? <td class="failed">Not answering</td> : <td class="ok">Answering</td>}
                <td>{report === undefined ? '–' : uptime(report.uptime_seconds)}</td>
              </tr>
            );
          })}
        </Table>
      )}
    </section>
  );
}

/**
 * The public API's signing keys (docs/operations.md, "Signing keys"): which one signs answers
 * and license files now, which are published, and the address clients fetch them from.
 */
function SigningKeys() {
  const api = useApi();
  const keys = useLoad(() => api.call('signingKeys'), [api]);
  const data = keys.data;
  return (
    <section aria-labelledby="signing-keys-heading">
      <h2 id="signing-keys-heading">Signing keys</h2>
      <ErrorNote error={keys.error} />
      {data === null ? (
        keys.loading && <Loading what="the signing keys" />
      ) : (
        <dl class="facts" data-signing-keys>
          <dt>Signing now</dt>
          <dd class="mono">
            {data.current_kid ?? <span class="muted">no signing key configured here</span>}
          </dd>
          <dt>Published</dt>
          <dd class="mono">
            {data.kids.length === 0 ? (
              <span class="muted">none</span>
            ) : (
              <ul class="plain">
                {data.kids.map((kid) => (
                  <li key={kid}>{kid}</li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Key set</dt>
          <dd class="mono">{data.key_set_url}</dd>
        </dl>
      )}
    </section>
  );
}

export function OperationsPage() {
  return (
    <section aria-labelledby="operations-heading">
      <h1 id="operations-heading">Jobs and health</h1>
      <Tasks />
      <Health />
      <SigningKeys />
    </section>
  );
}
