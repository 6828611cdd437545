/** The console's form fields; libs/web/ui/components.tsx labels them (Field). */
import type { InputHTMLAttributes, SelectHTMLAttributes } from 'preact';
import { useProductsAndPlans } from '../hooks/products-and-plans.js';
import { planChoiceWords } from '../words/license-words.js';

/** A `datetime-local` value (the viewer's time zone) as an ISO timestamp, or null when empty. */
export function localInputToIso(value: string): string | null {
  if (value.trim() === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An ISO timestamp as a `datetime-local` value in the viewer's time zone. */
export function isoToLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

/** A checkbox with its label beside it (`hideLabel`: for screen readers only, as in a table). */
export function Check({
  label,
  checked,
  onChange,
  disabled,
  hideLabel = false,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  hideLabel?: boolean;
}) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <span class={hideLabel ? 'visually-hidden' : undefined}>{label}</span>
    </label>
  );
}

/** A text input whose typed value goes to `onValue`; Field gives it its id and hint. */
export function Input({
  onValue,
  ...attributes
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'onInput'> & { onValue: (value: string) => void }) {
  return <input {...attributes} onInput={(event) => onValue(event.currentTarget.value)} />;
}

/** An activation limit (spec 3.3): a whole number, 0 for unlimited. */
export function LimitInput(props: Parameters<typeof Input>[0]) {
  return (
    <Input
      type="number"
      name="activation_limit"
      min={0}
      max={1000000}
      step={1}
      required
      {...props}
    />
  );
}

/** Whether an activation limit as typed can be sent. */
export const isLimit = (text: string) => /^\d+$/.test(text);

/** Radio buttons under a legend, one per choice, in the order `choices` lists them. */
export function Radios<T extends string>({
  legend,
  name,
  value,
  onChange,
  choices,
}: {
  legend: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  choices: Record<T, string>;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {(Object.keys(choices) as T[]).map((choice) => (
        <label key={choice} class="check">
          <input
            type="radio"
            name={name}
            value={choice}
            checked={value === choice}
            onChange={() => onChange(choice)}
          />
          <span>{choices[choice]}</span>
        </label>
      ))}
    </fieldset>
  );
}

type SelectAttributes = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'>;

/**
 * One of the API's values, shown in its words (STATUS_WORDS and the like); `none` adds an empty
 * choice, which is null.
 */
export function WordSelect<T extends string>(
  props: SelectAttributes & { words: Record<T, string> } & (
      | { none?: undefined; value: T; onChange: (value: T) => void }
      | { none: string; value: T | null; onChange: (value: T | null) => void }
    ),
) {
  const { words, none, value, onChange, ...attributes } = props;
  return (
    <select
      {...attributes}
      value={value ?? ''}
      onChange={(event) => {
        const text = event.currentTarget.value;
        if (props.none === undefined) props.onChange(text as T);
        else props.onChange(text === '' ? null : (text as T));
      }}
    >
      {none !== undefined && <option value="">{none}</option>}
      {(Object.keys(words) as T[]).map((word) => (
        <option key={word} value={word}>
          {words[word]}
        </option>
      ))}
    </select>
  );
}

const idOrNull = (value: string) => (value === '' ? null : Number(value));

type IdSelectProps = SelectAttributes & {
  /** The empty choice's words; it stands for null. */
  none: string;
  value: number | null;
  onChange: (id: number | null) => void;
};

/** A choice of a product or plan by its id, or of none. */
export function IdSelect({
  choices,
  none,
  value,
  onChange,
  ...attributes
}: IdSelectProps & { choices: readonly { id: number; text: string }[] }) {
  return (
    <select
      {...attributes}
      value={value ?? ''}
      onChange={(event) => onChange(idOrNull(event.currentTarget.value))}
    >
      <option value="">{none}</option>
      {choices.map(({ id, text }) => (
        <option key={id} value={id}>
          {text}
        </option>
      ))}
    </select>
  );
}

export function ProductSelect(props: IdSelectProps) {
  const { products } = useProductsAndPlans();
  return <IdSelect {...props} choices={products.map(({ id, title }) => ({ id, text: title }))} />;
}

/** A plan by its name, type and limit (license-words.ts `planChoiceWords`). */
export function PlanSelect(props: IdSelectProps) {
  const { plans } = useProductsAndPlans();
  return (
    <IdSelect
      {...props}
      choices={plans.map((plan) => ({ id: plan.id, text: planChoiceWords(plan) }))}
    />
  );
}
