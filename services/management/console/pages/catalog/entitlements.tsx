/** The entitlements on the catalog page: their list, a new one's form, and their removal. */
import { useState } from 'preact/hooks';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { Outcome } from '../../shared/components/notices.js';
import { useAction, useLoad } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** What a license grants beyond its plan's name, by code (docs/api-decisions.md). */
export function Entitlements() {
  const api = useApi();
  const can = useCan();
  const list = useLoad(() => api.call('listEntitlements', {}), []);
  const [code, setCode] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const entitlements = list.data?.entitlements ?? [];
  const create = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const created = await api.call('createEntitlement', {
        body: { code: code.trim(), name: name.trim() },
      });
      setCode('');
      setName('');
      list.reload();
      return `Created ${created.code}.`;
    });
  };
  const remove = (removed: string) =>
    action.run(async () => {
      await api.call('deleteEntitlement', { params: { code: removed } });
      list.reload();
      return `Deleted ${removed}.`;
    });
  return (
    <section aria-labelledby="entitlements-heading">
      <h2 id="entitlements-heading">Entitlements</h2>
      <p class="hint">
        What a license grants beyond its plan's name: a plan grants a set, a license may carry its
        own until a date, and a version or file may require one.
      </p>
      {entitlements.length === 0 ? (
        <Empty>There are no entitlements yet.</Empty>
      ) : (
        <Table columns={['Code', 'Name', 'Created']} actions>
          {entitlements.map((entitlement) => (
            <tr key={entitlement.code}>
              <td class="mono">{entitlement.code}</td>
              <td>{entitlement.name}</td>
              <td>
                <Time value={entitlement.created_at} />
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="secondary small"
                  hidden={!can('deleteEntitlement')}
                  disabled={action.busy}
                  aria-label={`Delete entitlement ${entitlement.code}`}
                  onClick={() => void remove(entitlement.code)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {can('createEntitlement') && (
        <form method="post" onSubmit={create} class="panel" aria-label="New entitlement">
          <div class="row">
            <Field label="Code" hint="Lowercase letters, digits, - _ or . (pro, updates-3y).">
              <Input name="code" required maxLength={64} value={code} onValue={setCode} />
            </Field>
            <Field label="Name">
              <Input name="name" required maxLength={255} value={name} onValue={setName} />
            </Field>
          </div>
          <button type="submit" disabled={action.busy || code.trim() === '' || name.trim() === ''}>
            Create entitlement
          </button>
        </form>
      )}
      <Outcome action={action} />
    </section>
  );
}
