/** The fields of a store connection's forms: its settings, and the secrets pasted from the store. */
import type {
  StoreEmails,
  StoreMode,
  StoreProvider,
} from '../../../../../libs/contracts/stores/store-connections.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { Check, Input, Radios } from '../../shared/components/fields.js';
import {
  EMAIL_WORDS,
  MODE_WORDS,
  SECRET_WHERE,
  isGraceDays,
  secretProblem,
} from '../../shared/words/store-words.js';

/** A secret pasted from the store: never shown back by the API, checked as it is pasted. */
export function SecretField({
  label,
  name,
  provider,
  value,
  onValue,
  required = false,
  hint,
}: {
  label: string;
  name: string;
  provider: StoreProvider;
  value: string;
  onValue: (value: string) => void;
  required?: boolean;
  hint?: string;
}) {
  return (
    <Field
      label={label}
      hint={
        hint ?? `In the store: ${SECRET_WHERE[provider]} Kept by the service, never shown again.`
      }
      error={secretProblem(value)}
    >
      <Input
        name={name}
        class="mono"
        required={required}
        maxLength={512}
        autocomplete="off"
        spellcheck={false}
        value={value}
        onValue={onValue}
      />
    </Field>
  );
}

export function ModeField({
  name,
  value,
  onChange,
}: {
  name: string;
  value: StoreMode;
  onChange: (mode: StoreMode) => void;
}) {
  return (
    <Radios legend="Mode" name={name} value={value} onChange={onChange} choices={MODE_WORDS} />
  );
}

export function GraceDaysField({
  value,
  onValue,
}: {
  value: string;
  onValue: (v: string) => void;
}) {
  return (
    <Field
      label="Grace days"
      hint="Days a subscription may stay unpaid before its license is suspended (0 to 60)."
      error={value === '' || isGraceDays(value) ? null : 'A whole number from 0 to 60.'}
    >
      <Input
        type="number"
        name="grace_days"
        min={0}
        max={60}
        step={1}
        required
        value={value}
        onValue={onValue}
      />
    </Field>
  );
}

/** Which moments of a store-made license its buyer is e-mailed about. */
export function EmailsField({
  value,
  onChange,
}: {
  value: StoreEmails;
  onChange: (emails: StoreEmails) => void;
}) {
  return (
    <fieldset>
      <legend>E-mails to the buyer</legend>
      {(Object.keys(EMAIL_WORDS) as (keyof StoreEmails)[]).map((moment) => (
        <Check
          key={moment}
          label={EMAIL_WORDS[moment]}
          checked={value[moment]}
          onChange={(on) => onChange({ ...value, [moment]: on })}
        />
      ))}
    </fieldset>
  );
}
