import { useState } from 'preact/hooks';
import type { Admin, AdminRole, AdminTokenInfo } from '../../../../../libs/contracts/index.js';
import { MAX_ADMIN_NAME_LENGTH } from '../../../../../libs/contracts/bounds.js';
import { Empty, Field, Table } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ROLE_WORDS } from '../../shared/words/admin-words.js';
import { ConfirmRemoval, RemoveButton } from '../../shared/components/controls.js';
import { Input, WordSelect } from '../../shared/components/fields.js';
import { useAction, useRemoval } from '../../shared/hooks/hooks.js';
import { Outcome } from '../../shared/components/notices.js';
import { ROLE_NAMES } from '../../shared/words/admin-words.js';

/** A token just made: shown once, then gone from the page. */
export interface ShownToken {
  name: string;
  token: string;
}

export function AdminCard({
  admin,
  isSelf,
  onChanged,
  onToken,
}: {
  admin: Admin;
  isSelf: boolean;
  onChanged: () => void;
  onToken: (shown: ShownToken) => void;
}) {
  const api = useApi();
  const [name, setName] = useState(admin.name);
  const [role, setRole] = useState<AdminRole>(admin.role);
  const action = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const changes = {
        ...(name.trim() !== admin.name ? { name } : {}),
        ...(role !== admin.role ? { role } : {}),
      };
      await api.call('updateAdmin', { params: { id: admin.id }, body: changes });
      onChanged();
      return `Saved ${name.trim()}.`;
    });
  };
  const newToken = () =>
    action.run(async () => {
      const made = await api.call('createAdminToken', { params: { id: admin.id } });
      onToken({ name: admin.name, token: made.token });
      onChanged();
      return null;
    });
  const revocation = useRemoval(action, async (token: AdminTokenInfo) => {
    await api.call('revokeAdminToken', { params: { id: admin.id, token_id: token.id } });
    onChanged();
    return `Revoked token ${token.id}.`;
  });
  const removal = useRemoval(action, async (gone: Admin) => {
    await api.call('removeAdmin', { params: { id: gone.id } });
    onChanged();
    return null;
  });
  const unchanged = name.trim() === admin.name && role === admin.role;
  const headingId = `admin-${admin.id}`;
  return (
    <section class="panel admin-card" aria-labelledby={headingId}>
      <div class="title-row">
        <h2 id={headingId}>
          {admin.name} {isSelf && <span class="badge">you</span>}
        </h2>
        <span class={`badge role-${admin.role}`}>{ROLE_WORDS[admin.role].name}</span>
      </div>
      <p class="muted">
        Admin #{admin.id}, added <Time value={admin.created_at} />.
      </p>
      <form method="post" onSubmit={save} class="row" aria-label={`Change ${admin.name}`}>
        <Field label="Name">
          <Input required maxLength={MAX_ADMIN_NAME_LENGTH} value={name} onValue={setName} />
        </Field>
        <Field label="Role" hint={ROLE_WORDS[role].can}>
          <WordSelect words={ROLE_NAMES} value={role} onChange={setRole} />
        </Field>
        <div class="field submit">
          <button type="submit" disabled={action.busy || unchanged || name.trim() === ''}>
            Save
          </button>
        </div>
      </form>
      <h3 ref={revocation.heading} tabIndex={-1}>
        Tokens
      </h3>
      {admin.tokens.length === 0 ? (
        <Empty>No token: this admin cannot sign in until you make one.</Empty>
      ) : (
        <Table columns={['Token', 'Made', 'Last checked']} actions>
          {admin.tokens.map((token) => (
            <tr key={token.id}>
              <td class="mono">adm_{token.id}_…</td>
              <td class="nowrap">
                <Time value={token.created_at} />
              </td>
              <td class="nowrap">
                <Time value={token.last_used_at} />
              </td>
              <td>
                <RemoveButton
                  removal={revocation}
                  item={token}
                  verb="Revoke"
                  name={`token ${token.id}`}
                />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <div class="row">
        <button type="button" class="secondary" disabled={action.busy} onClick={newToken}>
          New token
        </button>
        <RemoveButton removal={removal} item={admin} verb="Remove" name={admin.name} />
      </div>
      <Outcome action={action} />
      <ConfirmRemoval removal={revocation} title="Revoke this token?" confirmLabel="Revoke token">
        {(token) => (
          <p>
            Token <span class="mono">{token.id}</span> of {admin.name} is refused from its next
            request on (within 10 seconds everywhere).
          </p>
        )}
      </ConfirmRemoval>
      <ConfirmRemoval removal={removal} title="Remove this admin?" confirmLabel="Remove admin">
        {(gone) => (
          <p>
            {gone.name} and every token of theirs are removed; their past changes stay in the audit
            log.
          </p>
        )}
      </ConfirmRemoval>
    </section>
  );
}
