import { useState } from 'preact/hooks';
import type {
  Activation,
  ActivationType,
  LicenseDetail,
} from '../../../../../libs/contracts/index.js';
import { ApiError } from '../../../../../libs/web/ui/api.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { DETAIL_ACTIVATIONS } from '../../../../../libs/contracts/bounds.js';
import {
  ConfirmRemoval,
  Pager,
  ReloadButton,
  RemoveButton,
} from '../../shared/components/controls.js';
import { useDirectory } from '../../shared/hooks/directory.js';
import { Input } from '../../shared/components/fields.js';
import { useAction, useLoad, useNow, useRemoval, type Removal } from '../../shared/hooks/hooks.js';
import { PlanChange, Renewal, Settings, type Change } from './license-changes.js';
import {
  addRefusalWords,
  overLimitNote,
  rejectionWords,
} from '../../shared/words/license-words.js';
import { CustomerAndMetadata, CustomerFacts } from './customer.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import {
  ACTIVATION_TYPE_WORDS,
  ExemptBadge,
  LapsedBadge,
  RENEWS_WHILE_IN_USE,
  StatusBadge,
  exemptSlotWords,
  lapsedNote,
  licenseLeaseWords,
  limitWords,
  noAddWords,
  usage,
} from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';

/** How the API normalises an identifier of each type (spec 2.4), said before it happens. */
const NORMALISATION: Record<ActivationType, string> = {
  domain:
    'A website: scheme, www., port and path are dropped (https://www.Shop.example/cart is shop.example).',
  device: 'A device: spaces around it are dropped.',
  seat: 'A user, by e-mail address: lowercased.',
  instance: 'A server or container instance: spaces around it are dropped.',
};

/** Whether an activation's lease has ended by `now`. */
const lapsed = (activation: Activation, now: number) =>
  activation.lease_expires_at !== null && Date.parse(activation.lease_expires_at) <= now;

function Facts({ license }: { license: LicenseDetail }) {
  const { productTitle, planName } = useDirectory();
  const now = useNow(license.activations.map((activation) => activation.lease_expires_at));
  const gone = license.activations.filter((activation) => lapsed(activation, now));
  const goneExempt = gone.filter((activation) => activation.exempt).length;
  return (
    <dl class="facts">
      <dt>License key</dt>
      <dd class="mono">{license.license_key}</dd>
      <dt>Status</dt>
      <dd>
        <StatusBadge status={license.status} />
      </dd>
      <CustomerFacts license={license} />
      <dt>Product</dt>
      <dd>{license.product ?? productTitle(license.product_id)}</dd>
      <dt>Plan</dt>
      <dd>{license.plan ?? planName(license.plan_id)}</dd>
      <dt>Activation type</dt>
      <dd>{ACTIVATION_TYPE_WORDS[license.activation_type]}</dd>
      <dt>Activation limit</dt>
      <dd>{limitWords(license.activation_limit)}</dd>
      <dt>Activations used</dt>
      <dd>
        {usage(license)}
        {overLimitNote(license)}
        {lapsedNote(gone.length - goneExempt)}
      </dd>
      <dt>Lease</dt>
      <dd>{licenseLeaseWords(license.lease_seconds)}</dd>
      <dt>Exempt activations</dt>
      <dd>
        {exemptSlotWords(license)}
        {lapsedNote(goneExempt)}
      </dd>
      <dt>Exempt identifiers</dt>
      <dd>
        {license.exempt_identifiers.length === 0 ? (
          <span class="muted">None</span>
        ) : (
          <ul class="plain">
            {license.exempt_identifiers.map((pattern) => (
              <li key={pattern} class="mono">
                {pattern}
              </li>
            ))}
          </ul>
        )}
      </dd>
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

function ActivationTable({
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

/**
 * All the activations of a license whose detail holds only the first ones: a page at a time
 * from GET /licenses/{key}/activations, or the one an identifier search finds. Loaded again
 * after every change of the license.
 */
function PagedActivations({
  license,
  removal,
}: {
  license: LicenseDetail;
  removal: Removal<Activation>;
}) {
  const api = useApi();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState({ q: '', page: 1 });
  const loaded = useLoad(
    () =>
      api.call('listActivations', {
        params: { key: license.license_key },
        query: { q: search.q, page: search.page, per_page: DETAIL_ACTIVATIONS },
      }),
    [api, license, search],
  );
  return (
    <>
      <form
        method="post"
        role="search"
        aria-label="Activations of this license"
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch({ q: draft.trim(), page: 1 });
        }}
      >
        <Field
          label="Find an activation by identifier"
          hint={`In any spelling. ${NORMALISATION[license.activation_type]}`}
        >
          <Input
            type="search"
            name="q"
            autocomplete="off"
            spellcheck={false}
            maxLength={255}
            value={draft}
            onValue={setDraft}
          />
        </Field>
        <div class="field submit actions">
          <button type="submit">Find</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft('');
              setSearch({ q: '', page: 1 });
            }}
          >
            Show all
          </button>
        </div>
      </form>
      <LoadView loaded={loaded} what="activations">
        {(page) =>
          page.activations.length === 0 ? (
            <Empty>
              {search.q === ''
                ? 'Nothing is activated with this license.'
                : 'No activation of this identifier.'}
            </Empty>
          ) : (
            <>
              <ActivationTable activations={page.activations} removal={removal} />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="activations"
                onPage={(n) => setSearch({ ...search, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </>
  );
}

function Activations({ license, onChange }: { license: LicenseDetail; onChange: Change }) {
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

function RejectedAttempts({ license }: { license: LicenseDetail }) {
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

export function LicenseDetailPage({
  licenseKey,
  onBack,
}: {
  licenseKey: string;
  onBack: () => void;
}) {
  const api = useApi();
  const loaded = useLoad(
    () => api.call('getLicense', { params: { key: licenseKey } }),
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
            <CustomerAndMetadata license={license} onChange={loaded.replace} />
            <PlanChange license={license} onChange={loaded.replace} />
            <Renewal license={license} onChange={loaded.replace} />
          </>
        )}
      </LoadView>
    </section>
  );
}
