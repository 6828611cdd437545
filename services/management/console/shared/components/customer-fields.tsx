import { MAX_EMAIL_LENGTH } from '../../../../../libs/contracts/bounds.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { Input } from './fields.js';
import { CUSTOMER_WORDS } from '../words/list-words.js';

/**
 * A customer's e-mail address and name, as a license is issued or changed: the name only with an
 * address (the API keeps no customer without one).
 */
export function CustomerFields({
  email,
  onEmail,
  name,
  onName,
}: {
  email: string;
  onEmail: (value: string) => void;
  name: string;
  onName: (value: string) => void;
}) {
  return (
    <>
      <Field label={CUSTOMER_WORDS.email} hint={CUSTOMER_WORDS.emailHint}>
        <Input
          type="email"
          name="customer_email"
          autocomplete="off"
          spellcheck={false}
          maxLength={MAX_EMAIL_LENGTH}
          value={email}
          onValue={onEmail}
        />
      </Field>
      <Field label={CUSTOMER_WORDS.name}>
        <Input
          name="customer_name"
          autocomplete="off"
          maxLength={255}
          disabled={email.trim() === ''}
          value={name}
          onValue={onName}
        />
      </Field>
    </>
  );
}
