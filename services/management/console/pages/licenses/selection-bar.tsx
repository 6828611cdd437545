import { useState } from 'preact/hooks';
import type {
  BulkLicenseChangeResult,
  LicenseStatus,
  LicenseSummary,
} from '../../../../../libs/contracts/index.js';
import { MAX_EXTEND_DAYS } from '../../../../../libs/contracts/bounds.js';
import { csvText, exportFilename } from '../../../../../libs/http/csv/csv.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { licenseColumns } from '../../../../../libs/http/csv/csv-columns.js';
import { useApi, type Body } from '../../shared/api/admin-api.js';
import { Input, WordSelect, localInputToIso } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { bulkOutcomeWords } from '../../shared/lib/list-state.js';
import { SELECTION_WORDS } from '../../shared/words/list-words.js';
import { saveFile } from '../../shared/components/lists.js';
import { Outcome } from '../../shared/components/notices.js';

/**
 * What can be done to the licenses selected on the page, each through the API's bulk change
 * (the same rules and events as a change of one): a status, an expiry moved by days or set, and
 * an export of them as CSV. Says how many changed and why each refused one was refused.
 */
export function SelectionBar({
  licenses,
  onChanged,
  onClear,
}: {
  licenses: readonly LicenseSummary[];
  onChanged: () => void;
  onClear: () => void;
}) {
  const api = useApi();
  const action = useAction();
  const [status, setStatus] = useState<LicenseStatus>('suspended');
  const [days, setDays] = useState('30');
  const [expires, setExpires] = useState('');
  const [refused, setRefused] = useState<BulkLicenseChangeResult['results']>([]);
  const keys = licenses.map((license) => license.license_key);
  const change = (body: Body<'changeLicenses'>) =>
    action.run(async () => {
      setRefused([]);
      const result = await api.call('changeLicenses', { body });
      setRefused(result.results.filter((outcome) => !outcome.ok));
      onChanged();
      return bulkOutcomeWords(result);
    });
  const daysValid = /^\d+$/.test(days) && Number(days) >= 1 && Number(days) <= MAX_EXTEND_DAYS;
  return (
    <section class="panel selection" aria-label={SELECTION_WORDS.region}>
      <div class="title-row">
        <p role="status" class="count">
          {SELECTION_WORDS.selected(keys.length)}
        </p>
        <div class="row">
          <button
            type="button"
            class="secondary"
            onClick={() =>
              saveFile(
                new Blob([csvText(licenseColumns, licenses)], { type: 'text/csv;charset=utf-8' }),
                exportFilename('licenses-selected', new Date()),
              )
            }
          >
            {SELECTION_WORDS.exportSelected}
          </button>
          <button type="button" class="secondary" onClick={onClear}>
            {SELECTION_WORDS.clear}
          </button>
        </div>
      </div>
      <div class="forms">
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({ action: 'set_status', status, license_keys: keys });
          }}
        >
          <Field label={SELECTION_WORDS.status}>
            <WordSelect name="status" words={STATUS_WORDS} value={status} onChange={setStatus} />
          </Field>
          <button type="submit" disabled={action.busy}>
            {SELECTION_WORDS.changeStatus}
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({ action: 'extend_expiry', days: Number(days), license_keys: keys });
          }}
        >
          <Field label={SELECTION_WORDS.days} hint={SELECTION_WORDS.daysHint}>
            <Input
              type="number"
              name="days"
              min={1}
              max={MAX_EXTEND_DAYS}
              step={1}
              required
              value={days}
              onValue={setDays}
            />
          </Field>
          <button type="submit" disabled={action.busy || !daysValid}>
            {SELECTION_WORDS.extend}
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void change({
              action: 'set_expiry',
              expires_at: localInputToIso(expires),
              license_keys: keys,
            });
          }}
        >
          <Field label={SELECTION_WORDS.expiry} hint={SELECTION_WORDS.expiryHint}>
            <Input type="datetime-local" name="expires_at" value={expires} onValue={setExpires} />
          </Field>
          <button type="submit" disabled={action.busy}>
            {SELECTION_WORDS.setExpiry}
          </button>
        </form>
      </div>
      <Outcome action={action} />
      {refused.length > 0 && (
        <ul class="refused-keys">
          {refused.map(
            (outcome) =>
              !outcome.ok && (
                <li key={outcome.license_key}>
                  <span class="mono">{outcome.license_key}</span>: {outcome.error.message}{' '}
                  <span class="code">({outcome.error.code})</span>
                </li>
              ),
          )}
        </ul>
      )}
    </section>
  );
}
