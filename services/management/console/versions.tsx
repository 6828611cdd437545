import type { ComponentProps } from 'preact';
import { useState } from 'preact/hooks';
import type { PackageFile, Version } from '../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../libs/web/ui/components.js';
import { Time } from '../../../libs/web/ui/time.js';
import { useApi } from './admin-api.js';
import { ConfirmRemoval, ReloadButton, RemoveButton } from './controls.js';
import { useDirectory } from './directory.js';
import { Check, IdSelect, Input, ProductSelect } from './fields.js';
import { useAction, useLoad, useRemoval, type Loaded } from './hooks.js';
import { LoadView, Outcome } from './notices.js';
import { formatBytes } from './words.js';

/** What the update check would offer now (GET /products/:id/offers), per plan. */
interface Offer {
  /** Null: a caller without a key (files for every plan). */
  plan_id: number | null;
  plan: string | null;
  version: string | null;
  file: { id: number; filename: string; size: number } | null;
}

/** Every change to versions and files changes what is offered: both lists are read again. */
type Changed = () => void;

/** The plans a file is for: all of them, or one. */
function FilePlanSelect({
  label,
  ...props
}: Omit<ComponentProps<typeof IdSelect>, 'none' | 'choices'> & { label?: string }) {
  const { plans } = useDirectory();
  // The rest (`id`, `aria-describedby`) comes from the Field around it, which labels it.
  return (
    <IdSelect
      {...props}
      aria-label={label}
      none="All plans"
      choices={plans.map(({ id, name }) => ({ id, text: `Only ${name}` }))}
    />
  );
}

/** Spec 4.4: which version and file the update check gives each kind of caller right now. */
function Offers({ offers }: { offers: Loaded<{ offers: Offer[] }> }) {
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
  const [version, setVersion] = useState('');
  const [notes, setNotes] = useState('');
  const [date, setDate] = useState('');
  const [published, setPublished] = useState(true);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const created = await api.call<Version>('POST', `/products/${productId}/versions`, {
        version: version.trim(),
        release_notes: notes.trim() === '' ? null : notes,
        release_date: date === '' ? null : date,
        published,
      });
      setVersion('');
      setNotes('');
      setDate('');
      onChanged();
      return `Created version ${created.version}: upload its files below.`;
    });
  };
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
        </div>
        <Field label="Release notes">
          <textarea
            name="release_notes"
            rows={3}
            value={notes}
            onInput={(event) => setNotes(event.currentTarget.value)}
          />
        </Field>
        <Check label="Published" checked={published} onChange={setPublished} />
        <button type="submit" disabled={action.busy || version.trim() === ''}>
          Create version
        </button>
      </form>
      <Outcome action={action} />
    </details>
  );
}

/** A package upload with its progress (XMLHttpRequest reports it; admin-api.ts). */
function Upload({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const [file, setFile] = useState<File | null>(null);
  const [planId, setPlanId] = useState<number | null>(null);
  const [include, setInclude] = useState(true);
  const [progress, setProgress] = useState<{ name: string; sent: number; total: number } | null>(
    null,
  );
  const [round, setRound] = useState(0);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (file === null) return;
    setProgress({ name: file.name, sent: 0, total: file.size });
    await action.run(async () => {
      const stored = await api.upload(
        version.id,
        { file, plan_id: planId, include_in_updates: include },
        (sent, total) => setProgress({ name: file.name, sent, total }),
      );
      setProgress((last) => (last === null ? null : { ...last, sent: last.total }));
      setFile(null);
      setRound((n) => n + 1);
      onChanged();
      return `Uploaded ${stored.filename} (${formatBytes(stored.size)}).`;
    });
  };
  const percent =
    progress === null || progress.total === 0
      ? 0
      : Math.round((progress.sent / progress.total) * 100);
  const heading = `upload-heading-${version.id}`;
  return (
    <form method="post" onSubmit={submit} class="upload" aria-labelledby={heading}>
      <h4 id={heading}>Upload a file to version {version.version}</h4>
      <div class="row">
        <Field label="Package file">
          <input
            key={round}
            type="file"
            name="file"
            required
            onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)}
          />
        </Field>
        <Field label="For">
          <FilePlanSelect value={planId} onChange={setPlanId} />
        </Field>
        <Check label="Include in auto-updates" checked={include} onChange={setInclude} />
        <div class="field submit">
          <button type="submit" disabled={action.busy || file === null}>
            {action.busy ? 'Uploading…' : 'Upload'}
          </button>
        </div>
      </div>
      {progress !== null && (
        <div class="progress">
          <progress max={100} value={percent} aria-label={`Upload of ${progress.name}`} />
          <span aria-live="polite">
            {percent}% ({formatBytes(progress.sent)} of {formatBytes(progress.total)})
          </span>
        </div>
      )}
      <Outcome action={action} />
    </form>
  );
}

function Files({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const action = useAction();
  const patch = (file: PackageFile, body: Record<string, unknown>, done: string) =>
    action.run(async () => {
      await api.call<PackageFile>('PATCH', `/files/${file.id}`, body);
      onChanged();
      return done;
    });
  const removal = useRemoval(action, async (file: PackageFile) => {
    await api.call<PackageFile>('DELETE', `/files/${file.id}`);
    onChanged();
    return `Deleted ${file.filename}.`;
  });
  const { planName } = useDirectory();
  return (
    <>
      <h4 ref={removal.heading} tabIndex={-1}>
        Files
      </h4>
      {version.files.length === 0 ? (
        <Empty>No file yet: this version is offered to no one until one is uploaded.</Empty>
      ) : (
        <Table
          columns={['File', 'Size', 'For', 'Include in auto-updates', 'Uploaded', 'SHA-256']}
          actions
        >
          {version.files.map((file) => (
            <tr key={file.id}>
              <td class="mono long">{file.filename}</td>
              <td>{formatBytes(file.size)}</td>
              <td>
                <FilePlanSelect
                  label={`Plans of ${file.filename}`}
                  value={file.plan_id}
                  disabled={action.busy}
                  onChange={(planId) =>
                    void patch(
                      file,
                      { plan_id: planId },
                      `${file.filename} is now for ${planName(planId)}.`,
                    )
                  }
                />
              </td>
              <td>
                <Check
                  label={`Include ${file.filename} in auto-updates`}
                  hideLabel
                  checked={file.include_in_updates}
                  disabled={action.busy}
                  onChange={(include) =>
                    void patch(
                      file,
                      { include_in_updates: include },
                      include
                        ? `${file.filename} is included in auto-updates.`
                        : `${file.filename} is no longer included in auto-updates.`,
                    )
                  }
                />
              </td>
              <td>
                <Time value={file.uploaded_at} />
              </td>
              <td class="mono hash" title={file.sha256}>
                {file.sha256.slice(0, 12)}…
              </td>
              <td>
                <RemoveButton removal={removal} item={file} verb="Delete" name={file.filename} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Outcome action={action} />
      <ConfirmRemoval removal={removal} title="Delete this file?" confirmLabel="Delete file">
        {(deleting) => (
          <p>
            <span class="mono">{deleting.filename}</span> of version {version.version} and its
            stored bytes are removed; no one is offered it any more.
          </p>
        )}
      </ConfirmRemoval>
    </>
  );
}

function VersionCard({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const action = useAction();
  const toggle = () =>
    action.run(async () => {
      const changed = await api.call<Version>('PATCH', `/versions/${version.id}`, {
        published: !version.published,
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
          onClick={() => void toggle()}
        >
          {version.published ? 'Unpublish' : 'Publish'}
        </button>
      </div>
      <dl class="facts">
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
      <Files version={version} onChanged={onChanged} />
      <Upload version={version} onChanged={onChanged} />
    </article>
  );
}

function ProductVersions({ productId }: { productId: number }) {
  const api = useApi();
  const versions = useLoad(
    () => api.get<{ versions: Version[] }>(`/products/${productId}/versions`),
    [api, productId],
  );
  const offers = useLoad(
    () => api.get<{ offers: Offer[] }>(`/products/${productId}/offers`),
    [api, productId],
  );
  const changed = () => {
    versions.reload();
    offers.reload();
  };
  return (
    <>
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
  const { products, productTitle } = useDirectory();
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
