import type { Activation } from '../../../../../libs/contracts/index.js';
import { Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { RemoveButton } from '../../shared/components/controls.js';
import { useNow, type Removal } from '../../shared/hooks/hooks.js';
import { ExemptBadge, LapsedBadge, RENEWS_WHILE_IN_USE } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** Whether an activation's lease has ended by `now`. */
export const lapsed = (activation: Activation, now: number) =>
  activation.lease_expires_at !== null && Date.parse(activation.lease_expires_at) <= now;

/** When an activation's lease ends, or that it has ended and it counts for nothing. */
function LeaseCell({ activation, now }: { activation: Activation; now: number }) {
  const ends = activation.lease_expires_at;
  if (ends === null) return <span class="muted">no lease</span>;
  if (lapsed(activation, now)) {
    return (
      <>
        <LapsedBadge /> <Time value={ends} />
      </>
    );
  }
  return (
    <>
      {RENEWS_WHILE_IN_USE} <Time value={ends} />
    </>
  );
}

export function ActivationTable({
  activations,
  removal,
}: {
  activations: readonly Activation[];
  removal: Removal<Activation>;
}) {
  // Rendered again when the next lease shown ends, so a lapse is marked as it happens.
  const now = useNow(activations.map((activation) => activation.lease_expires_at));
  const can = useCan();
  return (
    <Table
      columns={['Identifier', 'Name', 'IP', 'Activated', 'Lease', 'Last license file']}
      actions
    >
      {activations.map((activation) => (
        <tr key={activation.identifier}>
          <td class="long identifier">
            <span class="mono">{activation.identifier}</span>
            {activation.exempt && (
              <>
                {' '}
                <ExemptBadge />
              </>
            )}
          </td>
          <td>{activation.name ?? <span class="muted">none</span>}</td>
          <td class="mono">
            {activation.ip === '' ? <span class="muted">added in admin</span> : activation.ip}
          </td>
          <td>
            <Time value={activation.activated_at} />
          </td>
          <td>
            <LeaseCell activation={activation} now={now} />
          </td>
          <td>
            <Time value={activation.last_checkout_at} empty="none issued" />
          </td>
          <td>
            <RemoveButton
              removal={removal}
              item={activation}
              verb="Remove"
              name={activation.identifier}
              allowed={can('removeActivation')}
            />
          </td>
        </tr>
      ))}
    </Table>
  );
}
