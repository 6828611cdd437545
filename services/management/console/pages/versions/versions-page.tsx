import { useState } from 'preact/hooks';
import type { ReleaseChannel, UpdateOffers, Version } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Check, Input, ProductSelect, WordSelect } from '../../shared/components/fields.js';
import { useAction, useLoad, type Loaded } from '../../shared/hooks/hooks.js';
import { LoadView, Outcome } from '../../shared/components/notices.js';
import { Files, Upload, type Changed } from './package-files.js';
import { formatBytes } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import { CHANNEL_WORDS, isRolloutPercent, Rollout, rolloutWords } from './rollout.js';
import { UpdatersPanel } from './updaters-panel.js';
import { ReleaseNotesField } from './release-notes-field.js';

/** Spec 4.4: which version and file the update check gives each kind of caller right now. */
function Offers({ offers }: { offers: Loaded<UpdateOffers> }) {
  return (
    <section aria-labelledby="offers-heading" class="panel">
      <div class="title-row">
        <h2 id="offers-heading">What the update check offers now</h2>
        <ReloadButton loaded={offers} small />
      </div>
      <p class="muted">
        The newest published version with a file ticked Include in auto-updates, for a caller
        without a key (all-plans files) and for a key of each plan (its own files preferred).
      </p>
      <LoadView loaded={offers} what="the offers">
        {(data) => (
          <Table columns={['Caller', 'Version', 'File', 'Size']}>
            {data.offers.map((offer) => (
              <tr key={offer.plan_id ?? 'none'} data-plan={offer.plan_id ?? 'none'}>
                <th scope="row">
                  {offer.plan_id === null
                    ? 'Without a key (all plans)'
                    : `A key of ${offer.plan ?? `plan ${offer.plan_id}`}`}
                </th>
                {offer.version === null || offer.file === null ? (
                  <td colSpan={3} class="muted">
                    Nothing is offered
                  </td>
                ) : (
                  <>
                    <td>{offer.version}</td>
                    <td class="mono long">{offer.file.filename}</td>
                    <td>{formatBytes(offer.file.size)}</td>
                  </>
                )}
              </tr>
            ))}
          </Table>
        )}
      </LoadView>
    </section>
  );
}

function NewVersion({ productId, onChanged }: { productId: number; onChanged: Changed }) {
  const api = useApi();
  const can = useCan();
  const [version, setVersion] = useState('');
  const [notes, setNotes] = useState('');
  const [date, setDate] = useState('');
  const [published, setPublished] = useState(true);
  const [channel, setChannel] = useState<ReleaseChannel>('stable');
  const [rollout, setRollout] = useState('100');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const created = await api.call('createVersion', {
        params: { id: productId },
        body: {
          version: version.trim(),
          release_notes: notes.trim() === '' ? null : notes,
          release_date: date === '' ? null : date,
          published,
          channel,
          rollout_percent: Number(rollout),
        },
      });
      setVersion('');
      setNotes('');
      setDate('');
      setChannel('stable');
      setRollout('100');
      onChanged();
      return `Created version ${created.version}: upload its files below.`;
    });
  };
  if (!can('createVersion')) return null;
  return (
    <details class="panel">
      <summary>New version</summary>
      <form method="post" onSubmit={submit}>
        <div class="row">
          <Field label="Version">
            <Input name="version" required maxLength={64} value={version} onValue={setVersion} />
          </Field>
          <Field label="Release date" hint="Optional; the upload date otherwise.">
            <Input type="date" name="release_date" value={date} onValue={setDate} />
          </Field>
          <Field label="Channel" hint="Who takes it: stable callers see stable versions only.">
            <WordSelect
              name="channel"
              words={CHANNEL_WORDS}
              value={channel}
              onChange={setChannel}
            />
          </Field>
          <Field label="Rollout (%)" hint="0 to 100 of licensed callers.">
            <Input
              name="rollout_percent"
              inputMode="numeric"
              value={rollout}
              onValue={setRollout}
              aria-invalid={!isRolloutPercent(rollout)}
            />
          </Field>
        </div>
        <ReleaseNotesField notes={notes} onNotes={setNotes} />
        <Check label="Published" checked={published} onChange={setPublished} />
        <button
          type="submit"
          disabled={action.busy || version.trim() === '' || !isRolloutPercent(rollout)}
        >
          Create version
        </button>
      </form>
      <Outcome action={action} />
    </details>
  );
}

function VersionCard({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const can = useCan();
  const action = useAction();
  const toggle = () =>
    action.run(async () => {
      const changed = await api.call('updateVersion', {
        params: { id: version.id },
        body: { published: !version.published },
      });
      onChanged();
      return changed.published
        ? `Version ${changed.version} is published.`
        : `Version ${changed.version} is no longer published: the update check ignores it.`;
    });
  return (
    <article class="panel version" aria-labelledby={`version-${version.id}`}>
      <div class="title-row">
        <h3 id={`version-${version.id}`}>
          Version {version.version}{' '}
          <span class={version.published ? 'badge status-active' : 'badge status-suspended'}>
            {version.published ? 'Published' : 'Not published'}
          </span>
        </h3>
        <button
          type="button"
          class="secondary small"
          disabled={action.busy}
          hidden={!can('updateVersion')}
          onClick={() => void toggle()}
        >
          {version.published ? 'Unpublish (roll back)' : 'Publish'}
        </button>
      </div>
      <dl class="facts">
        <dt>Channel</dt>
        <dd data-channel>{version.channel}</dd>
        <dt>Rollout</dt>
        <dd data-rollout>
          {version.rollout_percent} % ({rolloutWords(version.rollout_percent)})
        </dd>
        <dt>Release date</dt>
        <dd>{version.release_date ?? <span class="muted">the upload date</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time value={version.created_at} />
        </dd>
        <dt>Uploaded</dt>
        <dd>
          <Time value={version.uploaded_at} empty="no file yet" />
        </dd>
        <dt>Release notes</dt>
        <dd class="notes">{version.release_notes ?? <span class="muted">none</span>}</dd>
      </dl>
      <Outcome action={action} />
      <Rollout version={version} onChanged={onChanged} />
      <Files version={version} onChanged={onChanged} />
      <Upload version={version} onChanged={onChanged} />
    </article>
  );
}

function ProductVersions({ productId }: { productId: number }) {
  const api = useApi();
  const versions = useLoad(
    () => api.call('listVersions', { params: { id: productId } }),
    [api, productId],
  );
  const offers = useLoad(
    () => api.call('listUpdateOffers', { params: { id: productId } }),
    [api, productId],
  );
  const changed = () => {
    versions.reload();
    offers.reload();
  };
  return (
    <>
      <UpdatersPanel productId={productId} />
      <Offers offers={offers} />
      <h2>Versions</h2>
      <NewVersion productId={productId} onChanged={changed} />
      <LoadView loaded={versions} what="the versions">
        {({ versions: list }) =>
          list.length === 0 ? (
            <Empty>This product has no versions yet.</Empty>
          ) : (
            list.map((version) => (
              <VersionCard key={version.id} version={version} onChanged={changed} />
            ))
          )
        }
      </LoadView>
    </>
  );
}

export function VersionsPage({
  productId,
  onProduct,
}: {
  productId: number | null;
  onProduct: (productId: number | null) => void;
}) {
  const { products, productTitle } = useProductsAndPlans();
  return (
    <section aria-labelledby="versions-heading">
      <h1 id="versions-heading">
        Versions and files{productId !== null && <>: {productTitle(productId)}</>}
      </h1>
      <form method="post" onSubmit={(event) => event.preventDefault()} class="row">
        <Field label="Product">
          <ProductSelect
            name="product_id"
            value={productId}
            onChange={onProduct}
            none="Choose a product…"
          />
        </Field>
      </form>
      {productId === null ? (
        <Empty>
          {products.length === 0
            ? 'There are no products yet: create one under Products and plans.'
            : 'Choose a product to see its versions, files and what the update check offers.'}
        </Empty>
      ) : (
        <ProductVersions key={productId} productId={productId} />
      )}
    </section>
  );
}
