import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Empty, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { rejectionWords } from '../../shared/words/license-words.js';

/** The activations the license refused, by identifier, with why the last try was refused. */
export function RejectedAttempts({ license }: { license: LicenseDetail }) {
  return (
    <section aria-labelledby="rejected-heading" class="panel">
      <h2 id="rejected-heading">Rejected activation attempts</h2>
      <p class="muted">
        Activations refused because the license was full or expired, by client software or an Add
        here; each row says why the last try was refused and the name sent with it. Rows untouched
        for 90 days are removed.
      </p>
      {license.rejected_attempts.length === 0 ? (
        <Empty>No activation of this license has been refused.</Empty>
      ) : (
        <Table columns={['Identifier', 'Name', 'Reason', 'Tries', 'Last try']}>
          {license.rejected_attempts.map((attempt) => (
            <tr key={attempt.identifier}>
              <td class="mono long identifier">{attempt.identifier}</td>
              <td class="long">{attempt.name ?? <span class="muted">none</span>}</td>
              <td>{rejectionWords(attempt)}</td>
              <td>{attempt.tries}</td>
              <td>
                <Time value={attempt.last_attempt_at} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
