/** A version's package files: their list, where each can be changed or deleted, and the upload. */
import type { ComponentProps } from 'preact';
import { useState } from 'preact/hooks';
import type { PackageFile, Version } from '../../../../../libs/contracts/index.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi, type Body } from '../../shared/api/admin-api.js';
import { ConfirmRemoval, RemoveButton } from '../../shared/components/controls.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { Check, IdSelect } from '../../shared/components/fields.js';
import { planChoiceWords } from '../../shared/words/license-words.js';
import { useAction, useRemoval } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { formatBytes } from '../../shared/words/words.js';
import { useCan } from '../../shared/hooks/permissions.js';
import {
  NO_TARGET,
  TargetFields,
  targetFields,
  targetWords,
  type FileTarget,
} from './file-target.js';

/** Every change to versions and files changes what is offered: both lists are read again. */
export type Changed = () => void;

/** The plans a file is for: all of them, or one. */
function FilePlanSelect({
  label,
  ...props
}: Omit<ComponentProps<typeof IdSelect>, 'none' | 'choices'> & { label?: string }) {
  const { plans } = useProductsAndPlans();
  // The rest (`id`, `aria-describedby`) comes from the Field around it, which labels it.
  return (
    <IdSelect
      {...props}
      aria-label={label}
      none="All plans"
      choices={plans.map((plan) => ({ id: plan.id, text: `Only ${planChoiceWords(plan)}` }))}
    />
  );
}

/** A package upload with its progress (XMLHttpRequest reports it; admin-api.ts). */
export function Upload({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const can = useCan();
  const [file, setFile] = useState<File | null>(null);
  const [planId, setPlanId] = useState<number | null>(null);
  const [include, setInclude] = useState(true);
  const [target, setTarget] = useState<FileTarget>(NO_TARGET);
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
        'uploadFile',
        {
          params: { id: version.id },
          fields: { plan_id: planId, include_in_updates: include, ...targetFields(target) },
          file,
        },
        (sent, total) => setProgress({ name: file.name, sent, total }),
      );
      setProgress((last) => (last === null ? null : { ...last, sent: last.total }));
      setFile(null);
      setTarget(NO_TARGET);
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
  if (!can('uploadFile')) return null;
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
      </div>
      <TargetFields target={target} onChange={setTarget} />
      <div class="row">
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

export function Files({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const can = useCan();
  const action = useAction();
  const patch = (file: PackageFile, body: Body<'updateFile'>, done: string) =>
    action.run(async () => {
      await api.call('updateFile', { params: { id: file.id }, body });
      onChanged();
      return done;
    });
  const removal = useRemoval(action, async (file: PackageFile) => {
    await api.call('deleteFile', { params: { id: file.id } });
    onChanged();
    return `Deleted ${file.filename}.`;
  });
  const { planName } = useProductsAndPlans();
  return (
    <>
      <h4 ref={removal.heading} tabIndex={-1}>
        Files
      </h4>
      {version.files.length === 0 ? (
        <Empty>No file yet: this version is offered to no one until one is uploaded.</Empty>
      ) : (
        <Table
          columns={[
            'File',
            'Size',
            'For',
            'Runs on',
            'Include in auto-updates',
            'Uploaded',
            'SHA-256',
          ]}
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
                  disabled={action.busy || !can('updateFile')}
                  onChange={(planId) =>
                    void patch(
                      file,
                      { plan_id: planId },
                      `${file.filename} is now for ${planName(planId)}.`,
                    )
                  }
                />
              </td>
              <td data-target>{targetWords(file)}</td>
              <td>
                <Check
                  label={`Include ${file.filename} in auto-updates`}
                  hideLabel
                  checked={file.include_in_updates}
                  disabled={action.busy || !can('updateFile')}
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
                <RemoveButton
                  removal={removal}
                  item={file}
                  verb="Delete"
                  name={file.filename}
                  allowed={can('deleteFile')}
                />
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
