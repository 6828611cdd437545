/** A license's own entitlements, beyond its plan's: their list, adding one, removing one. */
import { useState } from 'preact/hooks';
import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { Outcome } from '../../shared/components/notices.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { useCan } from '../../shared/hooks/permissions.js';
import type { Change } from './change.js';

/** The date field's day, as the end of that day in UTC; empty: never. */
const expiryOf = (day: string): string | null => (day === '' ? null : `${day}T23:59:59Z`);

export function LicenseEntitlements({
  license,
  onChange,
}: {
  license: LicenseDetail;
  onChange: Change;
}) {
  const api = useApi();
  const can = useCan();
  const action = useAction();
  const [code, setCode] = useState('');
  const [until, setUntil] = useState('');
  const key = license.license_key;
  const add = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const changed = await api.call('grantEntitlement', {
        params: { key },
        body: { code: code.trim(), expires_at: expiryOf(until) },
      });
      onChange(changed);
      setCode('');
      setUntil('');
      return `Added ${code.trim()}.`;
    });
  };
  const remove = (removed: string) =>
    action.run(async () => {
      onChange(await api.call('revokeEntitlement', { params: { key, code: removed } }));
      return `Removed ${removed}.`;
    });
  return (
    <section aria-labelledby="license-entitlements-heading">
      <h2 id="license-entitlements-heading">Entitlements</h2>
      <p class="hint">
        Its own, beyond those its plan grants (which apply while it is on the plan). One past its
        date is listed but no longer granted.
      </p>
      {license.entitlements.length === 0 ? (
        <Empty>This license carries no entitlement of its own.</Empty>
      ) : (
        <Table columns={['Code', 'Until', 'Added']} actions>
          {license.entitlements.map((entitlement) => (
            <tr key={entitlement.code}>
              <td class="mono">{entitlement.code}</td>
              <td>
                {entitlement.expires_at === null ? (
                  'never expires'
                ) : (
                  <Time value={entitlement.expires_at} />
                )}
              </td>
              <td>
                <Time value={entitlement.granted_at} />
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="secondary small"
                  hidden={!can('revokeEntitlement')}
                  disabled={action.busy}
                  aria-label={`Remove entitlement ${entitlement.code}`}
                  onClick={() => void remove(entitlement.code)}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {can('grantEntitlement') && (
        <form method="post" onSubmit={add} class="panel" aria-label="Add an entitlement">
          <div class="row">
            <Field label="Entitlement code">
              <Input name="code" required maxLength={64} value={code} onValue={setCode} />
            </Field>
            <Field label="Until" hint="Empty: it never expires.">
              <Input name="expires_at" type="date" value={until} onValue={setUntil} />
            </Field>
          </div>
          <button type="submit" disabled={action.busy || code.trim() === ''}>
            Add entitlement
          </button>
        </form>
      )}
      <Outcome action={action} />
    </section>
  );
}
