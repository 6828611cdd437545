import { render } from 'preact';
import { useState } from 'preact/hooks';
import type { PortalLicense } from '../../../libs/contracts/index.js';
import { readAnswer, send } from '../../../libs/web/ui/api.js';
import { ErrorNote, Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { EXEMPT_MARK, STATUS_WORDS, durationWords } from '../../../libs/web/ui/words.js';
import { servedSettings, type PortalSettings } from './served-settings.js';
import {
  freeSlotWords,
  lookUpFailure,
  nextStep,
  noActivationWords,
  thing,
  things,
} from './words.js';
import '../../../libs/web/ui/styles.css';
import './portal.css';
import { API_BASE } from '../../../libs/contracts/api-base.js';

/**
 * The customer portal (spec 1, 2.3): a customer enters their license key and sees their license
 * and its activated identifiers; hovering or focusing an identifier shows the activation's name.
 * On a plan with a lease, each activation says when it lapses unless used; those of staging
 * sites are marked as not counted. A license that cannot be used says what to do next (renew it,
 * buy a new one, ask the store), and a full one how to free a slot. The page names the store it
 * speaks for (STORE_NAME, with its logo and address) when configured. Read-only: nothing on this
 * page changes anything. The key is sent in the body of a POST, never in a URL, and is not kept
 * once the tab closes.
 */

const store: PortalSettings = servedSettings();

async function lookUp(licenseKey: string): Promise<PortalLicense> {
  const response = await send(`${API_BASE}/portal/license`, {
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
    return <Empty>{noActivationWords(license, Date.now())}</Empty>;
  }
  const leased = license.lease_seconds !== null;
  const columns = [capitalise(thing(license.activation_type)), 'Activated'];
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
        {license.in_grace && license.grace_ends_at !== null && (
          <>
            <dt>Grace</dt>
            <dd>
              In grace until <Time value={license.grace_ends_at} />: it keeps working as active
              until then.
            </dd>
          </>
        )}
        {license.updates_until !== null && (
          <>
            <dt>Updates</dt>
            <dd>
              Updates until <Time value={license.updates_until} />: once expired, the software keeps
              working with the versions released up to then.
            </dd>
          </>
        )}
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
        {license.usage !== undefined && license.usage.max_uses !== null && (
          <>
            <dt>Uses</dt>
            <dd>
              {license.usage.uses.toLocaleString('en')} of{' '}
              {license.usage.max_uses.toLocaleString('en')}
              {license.usage.resets_at !== null && (
                <>
                  {' '}
                  this period, reset <Time value={license.usage.resets_at} />
                </>
              )}
            </dd>
          </>
        )}
      </dl>
      <NextStep license={license} />
      <h2>Activated {things(license.activation_type)}</h2>
      <Activations license={license} />
      <FreeSlot license={license} />
    </section>
  );
}

/** What to do about a license that cannot be used as it is. */
function NextStep({ license }: { license: PortalLicense }) {
  const step = nextStep(license, store, Date.now());
  if (step === null) return null;
  return (
    <div class="next-step" role="note">
      <p>{step.text}</p>
      {step.link !== null && (
        <p>
          <a class="step-link" href={step.link.href}>
            {step.link.text}
          </a>
        </p>
      )}
    </div>
  );
}

/** How to free an activation slot, for a license that can take activations. */
function FreeSlot({ license }: { license: PortalLicense }) {
  const words = freeSlotWords(license, Date.now());
  return words === null ? null : <p class="muted free-slot">{words}</p>;
}

/** The store the portal speaks for: its logo and name, the name a link to its address. */
function Store() {
  if (store.store_name === null && store.logo === null) return null;
  const name = store.store_name ?? 'Store';
  const mark = (
    <>
      {store.logo !== null && <img class="logo" src={store.logo} alt={`${name} logo`} />}
      {store.store_name !== null && <span class="name">{store.store_name}</span>}
    </>
  );
  return (
    <header class="store">
      {store.store_url === null ? mark : <a href={store.store_url}>{mark}</a>}
    </header>
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
      setError(lookUpFailure(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main>
      <Store />
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
