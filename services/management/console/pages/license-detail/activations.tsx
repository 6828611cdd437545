import { useState } from 'preact/hooks';
import type { Activation, LicenseDetail } from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Empty, Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ConfirmRemoval } from '../../shared/components/controls.js';
import { Input } from '../../shared/components/fields.js';
import { useAction, useRemoval } from '../../shared/hooks/hooks.js';
import { addRefusalWords } from '../../shared/words/license-words.js';
import { Outcome } from '../../shared/components/notices.js';
import { noAddWords, usage } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { ActivationTable } from './activation-table.js';
import { NORMALISATION } from './identifier-words.js';
import { PagedActivations } from './paged-activations.js';
import type { Change } from './change.js';

/** A license's activations: listed (a page at a time once there are many), added and removed. */
export function Activations({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const can = useCan();
  const [identifier, setIdentifier] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const key = license.license_key;
  const removal = useRemoval(action, async (activation: Activation) => {
    onChange(
      await api.call('removeActivation', {
        params: { key, identifier: activation.identifier },
      }),
    );
    return `Removed ${activation.identifier}; its slot is free.`;
  });
  // The detail holds the first activations only; exempt ones are counted apart.
  const paged = license.activations_used + license.exempt_used > license.activations.length;
  // No Add on a license that refuses every activation: why not, instead of the form.
  const closed = noAddWords(license, Date.now());

  const add = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      let changed: LicenseDetail;
      try {
        changed = await api.call('addActivation', {
          params: { key },
          body: { identifier, name: name.trim() === '' ? null : name },
        });
      } catch (error) {
        // Refused for the license's state, which changed since it was shown: shown as it is
        // now, and what to do about it said in the admin's words, not the API's.
        if (!(error instanceof ApiError) || addRefusalWords(error.code, license) === null) {
          throw error;
        }
        const now = await api.call('getLicense', { params: { key } }).then(
          (fresh) => {
            onChange(fresh);
            return fresh;
          },
          () => license,
        );
        throw error.saying(addRefusalWords(error.code, now)!);
      }
      onChange(changed);
      setIdentifier('');
      setName('');
      // The identifier as stored (normalised) is the one new in the answer, unless the new
      // activation is past those the detail holds.
      const before = new Set(license.activations.map((activation) => activation.identifier));
      const stored =
        changed.activations.find((activation) => !before.has(activation.identifier))?.identifier ??
        identifier.trim();
      return `Added ${stored}.`;
    });
  };

  return (
    <section aria-labelledby="activations-heading" class="panel">
      <h2 id="activations-heading" ref={removal.heading} tabIndex={-1}>
        Activations ({usage(license)})
      </h2>
      {paged ? (
        <PagedActivations license={license} removal={removal} />
      ) : license.activations.length === 0 ? (
        <Empty>Nothing is activated with this license.</Empty>
      ) : (
        <ActivationTable activations={license.activations} removal={removal} />
      )}
      {can('addActivation') && (
        <>
          <h3>Add an activation</h3>
          {closed !== null ? (
            <p class="muted">{closed}</p>
          ) : (
            <form method="post" onSubmit={add} class="row">
              <Field label="Identifier" hint={NORMALISATION[license.activation_type]}>
                <Input
                  name="identifier"
                  autocomplete="off"
                  spellcheck={false}
                  required
                  maxLength={255}
                  value={identifier}
                  onValue={setIdentifier}
                />
              </Field>
              <Field label="Name" hint="Optional label.">
                <Input
                  name="name"
                  autocomplete="off"
                  maxLength={255}
                  value={name}
                  onValue={setName}
                />
              </Field>
              <div class="field submit">
                <button type="submit" disabled={action.busy || identifier.trim() === ''}>
                  Add
                </button>
              </div>
            </form>
          )}
        </>
      )}
      <Outcome action={action} />
      <ConfirmRemoval
        removal={removal}
        title="Remove this activation?"
        confirmLabel="Remove activation"
      >
        {(removing) => (
          <p>
            <span class="mono">{removing.identifier}</span>
            {removing.name !== null && <> ({removing.name})</>} will no longer be activated with
            this license, and its slot is freed.
          </p>
        )}
      </ConfirmRemoval>
    </section>
  );
}
