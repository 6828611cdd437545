import { useEffect, useState } from 'preact/hooks';
import type { LicenseDetail, LicenseStatus } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../../../libs/web/ui/words.js';
import { useApi, type Body } from '../../shared/api/admin-api.js';
import {
  Input,
  LimitInput,
  WordSelect,
  isLimit,
  isoToLocalInput,
  localInputToIso,
} from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { LIMIT_PROBLEM, limitWords } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import type { Change } from './change.js';

/** The changes a PATCH makes (spec 3.3): limit, status, expiry, each a form of its own. */
export function Settings({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const [limit, setLimit] = useState(String(license.activation_limit));
  const [status, setStatus] = useState<LicenseStatus>(license.status);
  const [expires, setExpires] = useState(isoToLocalInput(license.expires_at));
  // The license changes under these forms too (a plan change resets the limit): follow it.
  useEffect(() => setLimit(String(license.activation_limit)), [license.activation_limit]);
  useEffect(() => setStatus(license.status), [license.status]);
  useEffect(() => setExpires(isoToLocalInput(license.expires_at)), [license.expires_at]);
  const action = useAction();
  const patch = (body: Body<'updateLicense'>, done: (changed: LicenseDetail) => string) =>
    action.run(async () => {
      const changed = await api.call('updateLicense', {
        params: { key: license.license_key },
        body,
      });
      onChange(changed);
      return done(changed);
    });

  if (!can('updateLicense')) return null;
  return (
    <section aria-labelledby="settings-heading" class="panel">
      <h2 id="settings-heading">Limit, status and expiry</h2>
      <div class="forms">
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch(
              { activation_limit: Number(limit) },
              (changed) => `The activation limit is now ${limitWords(changed.activation_limit)}.`,
            );
          }}
        >
          <Field
            label="Activation limit"
            hint="0 means unlimited. Takes effect at once."
            error={isLimit(limit) ? null : LIMIT_PROBLEM}
          >
            <LimitInput
              value={limit}
              onValue={(value) => {
                // What was said of the last change is not about this value.
                action.clear();
                setLimit(value);
              }}
            />
          </Field>
          <button type="submit" disabled={action.busy || !isLimit(limit)}>
            Change limit
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch(
              { status },
              (changed) => `The status is now ${STATUS_WORDS[changed.status]}.`,
            );
          }}
        >
          <Field label="Status">
            <WordSelect name="status" words={STATUS_WORDS} value={status} onChange={setStatus} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Change status
          </button>
        </form>
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            void patch({ expires_at: localInputToIso(expires) }, (changed) =>
              changed.expires_at === null
                ? 'The license no longer expires.'
                : 'The expiry date is changed.',
            );
          }}
        >
          <Field label="Expires" hint="Your time zone; empty: does not expire.">
            <Input type="datetime-local" name="expires_at" value={expires} onValue={setExpires} />
          </Field>
          <button type="submit" disabled={action.busy}>
            Change expiry
          </button>
        </form>
      </div>
      <Outcome action={action} />
    </section>
  );
}
