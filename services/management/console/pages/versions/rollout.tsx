/**
 * A version's release channel and staged rollout (docs/updaters.md): shown on its card, and
 * changed by an admin. Pausing sets the share to 0 (nobody new gets it; the percentage is the
 * only state a rollout has), rolling back unpublishes the version.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ReleaseChannel, Version } from '../../../../../libs/contracts/index.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Input } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { useCan } from '../../shared/hooks/permissions.js';
import type { Changed } from './package-files.js';

export const CHANNEL_WORDS: Record<ReleaseChannel, string> = {
  stable: 'stable',
  rc: 'rc (release candidate)',
  beta: 'beta',
  alpha: 'alpha',
  dev: 'dev',
};

/** A rollout share as typed: a whole number from 0 to 100. */
export const isRolloutPercent = (text: string) => /^\d{1,3}$/.test(text) && Number(text) <= 100;

/** The rollout in words: who gets the version. */
export function rolloutWords(percent: number) {
  if (percent >= 100) return 'everyone';
  if (percent === 0) return 'paused: nobody';
  return `${percent} % of licensed callers`;
}

export function Rollout({ version, onChanged }: { version: Version; onChanged: Changed }) {
  const api = useApi();
  const can = useCan();
  const action = useAction();
  const [percent, setPercent] = useState(String(version.rollout_percent));
  // The field follows the stored share when it changes; the form stays, with its outcome.
  useEffect(() => setPercent(String(version.rollout_percent)), [version.rollout_percent]);
  const valid = isRolloutPercent(percent);
  const change = (rollout_percent: number) =>
    action.run(async () => {
      const changed = await api.call('updateVersion', {
        params: { id: version.id },
        body: { rollout_percent },
      });
      onChanged();
      return `Version ${changed.version} now reaches ${rolloutWords(changed.rollout_percent)}.`;
    });
  const submit = async (event: Event) => {
    event.preventDefault();
    if (valid) await change(Number(percent));
  };
  if (!can('updateVersion')) return null;
  return (
    <form
      method="post"
      class="row"
      onSubmit={submit}
      aria-label={`Rollout of version ${version.version}`}
    >
      <Field label="Rollout (%)" hint="0 to 100; raising it only adds callers.">
        <Input
          name="rollout_percent"
          inputMode="numeric"
          value={percent}
          onValue={setPercent}
          aria-invalid={!valid}
        />
      </Field>
      <div class="field submit">
        <button type="submit" disabled={action.busy || !valid}>
          Set rollout
        </button>
      </div>
      <div class="field submit">
        <button
          type="button"
          class="secondary"
          disabled={action.busy || version.rollout_percent === 0}
          onClick={() => void change(0)}
        >
          Pause rollout
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}
