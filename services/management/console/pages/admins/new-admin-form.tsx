import { useState } from 'preact/hooks';
import type { AdminRole, AdminWithToken } from '../../../../../libs/contracts/index.js';
import { MAX_ADMIN_NAME_LENGTH } from '../../../../../libs/contracts/bounds.js';
import { Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ROLE_WORDS } from '../../shared/words/admin-words.js';
import { Input, WordSelect } from '../../shared/components/fields.js';
import { useAction } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { ROLE_NAMES } from '../../shared/words/admin-words.js';

export function NewAdminForm({ onCreated }: { onCreated: (admin: AdminWithToken) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [role, setRole] = useState<AdminRole>('support');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const admin = await api.call('createAdmin', { body: { name, role } });
      setName('');
      onCreated(admin);
      return null;
    });
  };
  return (
    <form method="post" onSubmit={submit} class="panel row" aria-label="New admin">
      <Field label="Name" hint="How the audit log names them.">
        <Input required maxLength={MAX_ADMIN_NAME_LENGTH} value={name} onValue={setName} />
      </Field>
      <Field label="Role" hint={ROLE_WORDS[role].can}>
        <WordSelect words={ROLE_NAMES} value={role} onChange={setRole} />
      </Field>
      <div class="field submit">
        <button type="submit" disabled={action.busy || name.trim() === ''}>
          Add admin
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}
