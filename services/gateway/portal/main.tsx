import { render } from 'preact';
import { useState } from 'preact/hooks';
import type { PortalLicense } from '../../../libs/contracts/index.js';
import { readAnswer, send } from '../../../libs/web/ui/api.js';
import { ErrorNote, Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { EXEMPT_MARK, STATUS_WORDS, durationWords } from '../../../libs/web/ui/words.js';
import '../../../libs/web/ui/styles.css';

/**
 * The customer portal (spec 1, 2.3): a customer enters their license key and sees their license
 * and its activated identifiers; hovering or focusing an identifier shows the activation's name.
 * On a plan with a lease, each activation says when it lapses unless used; those of staging
 * sites are marked as not counted. Read-only: nothing on this page changes anything. The key is sent in the body of a POST, never
 * in a URL, and is not kept once the tab closes.
 */

const API = '/api/index.php/v1/licensing';

async function lookUp(licenseKey: string): Promise<PortalLicense> {
  const response = await send(`${API}/portal/license`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: new URLSearchParams({ license_key: licenseKey }).toString(),
  });
  return readAnswer<PortalLicense>(response);
}

function Activations({ license }: { license: PortalLicense }) {
  if (license.activations.length === 0) {
    return <Empty>No {noun(license.activation_type)} is activated with this license yet.</Empty>;
  }
  const leased = license.lease_seconds !== null;
  const columns = [capitalise(noun(license.activation_type)), 'Activated'];
  return (
    <Table columns={leased ? [...columns, 'Lapses unless used by'] : columns}>
      {license.activations.map((activation, i) => (
        <tr key={activation.identifier}>
          <td>
            {/* Spec 2.3: the activation's name, shown on hover and on keyboard focus. */}
            <span class="tip mono" tabIndex={0} aria-describedby={`name-${i}`}>
              {activation.identifier}
              <span role="tooltip" id={`name-${i}`}>
                {activation.name ?? 'No name given'}
              </span>
            </span>
            {activation.exempt && (
              <>
                {' '}
                <span class="badge exempt">{EXEMPT_MARK}</span>
              </>
            )}
          </td>
          <td>
            <Time value={activation.activated_at} />
          </td>
          {leased && (
            <td>
              <Time value={activation.lease_expires_at} empty="does not lapse" />
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}

function noun(type: PortalLicense['activation_type']): string {
  return { domain: 'website', device: 'device', seat: 'user', instance: 'instance' }[type];
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function LicenseView({ license }: { license: PortalLicense }) {
  const limit =
    license.activation_limit === 0
      ? `${license.activations_used} in use, no limit`
      : `${license.activations_used} of ${license.activation_limit} in use`;
  return (
    <section aria-labelledby="license-heading">
      <h2 id="license-heading">{license.product}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>{STATUS_WORDS[license.status]}</dd>
        <dt>Plan</dt>
        <dd>{license.plan}</dd>
        {license.products.length > 1 && (
          <>
            <dt>Products</dt>
            <dd>{license.products.map((product) => product.title).join(', ')}</dd>
          </>
        )}
        <dt>Expires</dt>
        <dd>
          <Time value={license.expires_at} empty="Does not expire" />
        </dd>
        {license.auto_renew && (
          <>
            <dt>Renews</dt>
            <dd>
              Automatically
              {license.next_payment_at !== null && (
                <>
                  , next payment <Time value={license.next_payment_at} />
                </>
              )}
            </dd>
          </>
        )}
        <dt>Activations</dt>
        <dd>{limit}</dd>
        {license.lease_seconds !== null && (
          <>
            <dt>Lease</dt>
            <dd>
              Activations renew automatically while in use; one unused for{' '}
              {durationWords(license.lease_seconds)} lapses and frees its slot.
            </dd>
          </>
        )}
      </dl>
      <h2>Activated {noun(license.activation_type)}s</h2>
      <Activations license={license} />
    </section>
  );
}

function Portal() {
  const [key, setKey] = useState('');
  const [license, setLicense] = useState<PortalLicense | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setLicense(await lookUp(key.trim()));
    } catch (failure) {
      setLicense(null);
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main>
      <h1>Your license</h1>
      <form method="post" onSubmit={submit} class="row">
        <Field label="License key" hint="As it was given to you with your purchase.">
          <input
            name="license_key"
            autocomplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </Field>
        <div class="field">
          <button type="submit" disabled={busy || key.trim() === ''}>
            {busy ? 'Looking up…' : 'Show my license'}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      {license && <LicenseView license={license} />}
    </main>
  );
}

render(<Portal />, document.getElementById('app')!);
