import { useState } from 'preact/hooks';
import type { Activation, ActivationType, LicenseDetail } from '../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { segment, useApi } from './admin-api.js';
import { ConfirmRemoval, ReloadButton, RemoveButton } from './controls.js';
import { useDirectory } from './directory.js';
import { Input } from './fields.js';
import { useAction, useLoad, useRemoval } from './hooks.js';
import { PlanChange, Renewal, Settings, type Change } from './license-changes.js';
import { LoadView, Outcome } from './notices.js';
import { ACTIVATION_TYPE_WORDS, StatusBadge, limitWords, usage } from './words.js';

/** How the API normalises an identifier of each type (spec 2.4), said before it happens. */
const NORMALISATION: Record<ActivationType, string> = {
  domain:
    'A website: scheme, www., port and path are dropped (https://www.Shop.example/cart is shop.example).',
  device: 'A device: spaces around it are dropped.',
  seat: 'A user, by e-mail address: lowercased.',
  instance: 'A server or container instance: spaces around it are dropped.',
};

function Facts({ license }: { license: LicenseDetail }) {
  const { productTitle, planName } = useDirectory();
  return (
    <dl class="facts">
      <dt>License key</dt>
      <dd class="mono">{license.license_key}</dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={license.status} />
      </dd>
      <dt>Product</dt>
      <dd>{license.product ?? productTitle(license.product_id)}</dd>
      <dt>Plan</dt>
      <dd>{license.plan ?? planName(license.plan_id)}</dd>
      <dt>Activation type</dt>
      <dd>{ACTIVATION_TYPE_WORDS[license.activation_type]}</dd>
      <dt>Activation limit</dt>
      <dd>{limitWords(license.activation_limit)}</dd>
      <dt>Activations used</dt>
      <dd>{usage(license)}</dd>
      <dt>Expires</dt>
      <dd>
        <Time value={license.expires_at} empty="Does not expire" />
      </dd>
      <dt>Renews automatically</dt>
      <dd>{license.auto_renew ? 'Yes' : 'No'}</dd>
      <dt>Next payment</dt>
      <dd>
        <Time value={license.next_payment_at} empty="None" />
      </dd>
      <dt>Pending plan change</dt>
      <dd>
        {license.pending_plan === null ? (
          <span class="muted">None</span>
        ) : (
          <>
            {license.pending_plan.name ?? planName(license.pending_plan.id)}, at the next checkout
            renewal
          </>
        )}
      </dd>
      <dt>Last check</dt>
      <dd>
        <Time value={license.last_check_at} />
      </dd>
      <dt>Last check IP</dt>
      <dd class="mono">{license.last_check_ip ?? <span class="muted">none</span>}</dd>
      <dt>Check count</dt>
      <dd>{license.check_count}</dd>
      <dt>Issued</dt>
      <dd>
        <Time value={license.created_at} />
      </dd>
    </dl>
  );
}

function Activations({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
  const api = useApi();
  const [identifier, setIdentifier] = useState('');
  const [name, setName] = useState('');
  const action = useAction();
  const path = `/licenses/${segment(license.license_key)}/activations`;
  const removal = useRemoval(action, async (activation: Activation) => {
    onChange(await api.call<LicenseDetail>('DELETE', `${path}/${segment(activation.identifier)}`));
    return `Removed ${activation.identifier}; its slot is free.`;
  });

  const add = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const changed = await api.call<LicenseDetail>('POST', path, {
        identifier,
        name: name.trim() === '' ? null : name,
      });
      onChange(changed);
      setIdentifier('');
      setName('');
      const stored = changed.activations.at(-1)?.identifier ?? identifier;
      return `Added ${stored}.`;
    });
  };

  return (
    <section aria-labelledby="activations-heading" class="panel">
      <h2 id="activations-heading" ref={removal.heading} tabIndex={-1}>
        Activations ({usage(license)})
      </h2>
      {license.activations.length === 0 ? (
        <Empty>Nothing is activated with this license.</Empty>
      ) : (
        <Table columns={['Identifier', 'Name', 'IP', 'Activated', 'Last license file']} actions>
          {license.activations.map((activation) => (
            <tr key={activation.identifier}>
              <td class="mono long">{activation.identifier}</td>
              <td>{activation.name ?? <span class="muted">none</span>}</td>
              <td class="mono">
                {activation.ip === '' ? <span class="muted">added in admin</span> : activation.ip}
              </td>
              <td>
                <Time value={activation.activated_at} />
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
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h3>Add an activation</h3>
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
          <Input name="name" autocomplete="off" maxLength={255} value={name} onValue={setName} />
        </Field>
        <div class="field submit">
          <button type="submit" disabled={action.busy || identifier.trim() === ''}>
            Add
          </button>
        </div>
      </form>
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

function RejectedAttempts({ license }: { license: LicenseDetail }) {
  return (
    <section aria-labelledby="rejected-heading" class="panel">
      <h2 id="rejected-heading">Rejected activation attempts</h2>
      <p class="muted">
        Activations refused because the license was full or expired (spec 2.5); rows untouched for
        90 days are removed.
      </p>
      {license.rejected_attempts.length === 0 ? (
        <Empty>No activation of this license has been refused.</Empty>
      ) : (
        <Table columns={['Identifier', 'Tries', 'Last try']}>
          {license.rejected_attempts.map((attempt) => (
            <tr key={attempt.identifier}>
              <td class="mono long">{attempt.identifier}</td>
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

export function LicenseDetailPage({
  licenseKey,
  onBack,
}: {
  licenseKey: string;
  onBack: () => void;
}) {
  const api = useApi();
  const loaded = useLoad(
    () => api.get<LicenseDetail>(`/licenses/${segment(licenseKey)}`),
    [api, licenseKey],
  );
  return (
    <section aria-labelledby="license-heading">
      <div class="title-row">
        <h1 id="license-heading">License</h1>
        <div class="row">
          <button type="button" class="secondary" onClick={onBack}>
            Back to licenses
          </button>
          <ReloadButton loaded={loaded} />
        </div>
      </div>
      <LoadView loaded={loaded} what="the license">
        {(license) => (
          <>
            <Facts license={license} />
            <Activations license={license} onChange={loaded.replace} />
            <RejectedAttempts license={license} />
            <Settings license={license} onChange={loaded.replace} />
            <PlanChange license={license} onChange={loaded.replace} />
            <Renewal license={license} onChange={loaded.replace} />
          </>
        )}
      </LoadView>
    </section>
  );
}
