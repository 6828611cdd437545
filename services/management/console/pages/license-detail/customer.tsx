/** A license's customer and metadata: shown with its facts, changed in a panel of their own. */
import { useCan } from '../../shared/hooks/permissions.js';
import { useEffect, useState } from 'preact/hooks';
import type { LicenseDetail } from '../../../../../libs/contracts/index.js';
import { MAX_METADATA_KEYS } from '../../../../../libs/contracts/bounds.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import type { Change } from './change.js';
import { metadataBody, metadataRows, type MetadataRow } from '../../shared/lib/list-state.js';
import { CUSTOMER_WORDS } from '../../shared/words/list-words.js';
import { Outcome } from '../../shared/components/notices.js';
import { CustomerFields } from '../../shared/components/customer-fields.js';

/** The customer and metadata among a license's facts (a `dl`'s terms and details). */
export function CustomerFacts({ license }: { license: LicenseDetail }) {
  const entries = Object.entries(license.metadata);
  return (
    <>
      <dt>{CUSTOMER_WORDS.customer}</dt>
      <dd>
        {license.customer === null ? (
          <span class="muted">{CUSTOMER_WORDS.none}</span>
        ) : (
          <>
            <span class="mono">{license.customer.email}</span>
            {license.customer.name !== null && <> ({license.customer.name})</>}
          </>
        )}
      </dd>
      <dt>{CUSTOMER_WORDS.metadata}</dt>
      <dd>
        {entries.length === 0 ? (
          <span class="muted">{CUSTOMER_WORDS.none}</span>
        ) : (
          <dl class="metadata">
            {entries.map(([key, value]) => (
              <div key={key}>
                <dt class="mono">{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </dd>
    </>
  );
}

/** Changes the customer (an empty address removes it) and the metadata (replaced whole). */
export function CustomerAndMetadata({
  license,
  onChange,
}: {
  license: LicenseDetail;
  onChange: Change;
}) {
  const api = useApi();
  const action = useAction();
  const [email, setEmail] = useState(license.customer?.email ?? '');
  const can = useCan();
  const [name, setName] = useState(license.customer?.name ?? '');
  const [rows, setRows] = useState<MetadataRow[]>(metadataRows(license.metadata));
  // A change made elsewhere (a reload) shows here too.
  useEffect(() => {
    setEmail(license.customer?.email ?? '');
    setName(license.customer?.name ?? '');
    setRows(metadataRows(license.metadata));
  }, [license.customer, license.metadata]);
  const setRow = (at: number, row: MetadataRow) =>
    setRows(rows.map((current, i) => (i === at ? row : current)));
  const save = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body = metadataBody(rows);
      if ('problem' in body) throw new Error(body.problem);
      const changed = await api.call('updateLicense', {
        params: { key: license.license_key },
        body: {
          customer: email.trim() === '' ? null : { email, name: name.trim() === '' ? null : name },
          metadata: body.metadata,
        },
      });
      onChange(changed);
      return CUSTOMER_WORDS.saved;
    });
  };
  // A role that may not change licenses sees the customer among the license's facts only.
  if (!can('updateLicense')) return null;
  return (
    <section aria-labelledby="customer-heading" class="panel">
      <h2 id="customer-heading">{CUSTOMER_WORDS.heading}</h2>
      <p class="muted">{CUSTOMER_WORDS.hidden}</p>
      <form method="post" onSubmit={save}>
        <div class="row">
          <CustomerFields email={email} onEmail={setEmail} name={name} onName={setName} />
        </div>
        <fieldset>
          <legend>{CUSTOMER_WORDS.metadata}</legend>
          <p class="hint">{CUSTOMER_WORDS.metadataHint}</p>
          {rows.map((row, at) => (
            <div class="row" key={at}>
              <Field label={CUSTOMER_WORDS.key}>
                <Input
                  class="mono"
                  autocomplete="off"
                  spellcheck={false}
                  maxLength={40}
                  value={row.key}
                  onValue={(key) => setRow(at, { ...row, key })}
                />
              </Field>
              <Field label={CUSTOMER_WORDS.value}>
                <Input
                  autocomplete="off"
                  maxLength={255}
                  value={row.value}
                  onValue={(value) => setRow(at, { ...row, value })}
                />
              </Field>
              <div class="field submit">
                <button
                  type="button"
                  class="secondary small"
                  aria-label={CUSTOMER_WORDS.removeEntry(row.key.trim())}
                  onClick={() => setRows(rows.filter((_, i) => i !== at))}
                >
                  Remove
                </button>
              </div>
            </div>
          ))}
          <button
            type="button"
            class="secondary small"
            disabled={rows.length >= MAX_METADATA_KEYS}
            onClick={() => setRows([...rows, { key: '', value: '' }])}
          >
            {CUSTOMER_WORDS.addEntry}
          </button>
        </fieldset>
        <button type="submit" disabled={action.busy}>
          {CUSTOMER_WORDS.save}
        </button>
      </form>
      <Outcome action={action} />
    </section>
  );
}
