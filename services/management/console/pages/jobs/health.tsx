import type { ServiceName } from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { ErrorNote, Table } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { Loading } from '../../shared/components/notices.js';

/** The services behind the management API, each asked by GET /admin/v1/health. */
const SERVICES = {
  license: 'License service: plans, licenses, activations, rejected attempts',
  'update-catalog': 'Update catalog: products, bundles, versions, files',
  download: 'Download service: package storage and the download log',
  webhooks: 'Webhooks service: webhook endpoints and their deliveries',
  stores: 'Stores service: store connections, their mappings and the events received',
} satisfies Record<ServiceName, string>;

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

/** Whether each service behind the management API answers, and how long it has run. */
export function Health() {
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
