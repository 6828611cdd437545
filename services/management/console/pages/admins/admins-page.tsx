/** Named admins: who may use the console and the API, with which role, with which tokens. */
import { useState } from 'preact/hooks';
import { Empty } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { ROLE_WORDS } from '../../shared/words/admin-words.js';
import { ReloadButton } from '../../shared/components/controls.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { LoadView } from '../../shared/components/notices.js';
import { useSignedIn } from '../../shared/hooks/permissions.js';
import { SecretNotice } from '../../shared/components/secret-notice.js';
import { NewAdminForm } from './new-admin-form.js';
import { AdminCard, type ShownToken } from './admin-card.js';

/** The Admins page: owners only (the navigation offers it to them alone). */
export function AdminsPage() {
  const api = useApi();
  const { admin: self } = useSignedIn();
  const loaded = useLoad(() => api.call('listAdmins'), [api]);
  // The token just made: in this component's state only (SecretNotice), never stored.
  const [shown, setShown] = useState<ShownToken | null>(null);
  return (
    <section aria-labelledby="admins-heading">
      <div class="title-row">
        <h1 id="admins-heading">Admins</h1>
        <ReloadButton loaded={loaded} />
      </div>
      <p class="muted">
        Each admin signs in with a token of their own; every change they make is in the audit log
        under their name. The tokens of ADMIN_TOKENS sign in as the bootstrap owner.
      </p>
      <ul class="plain roles">
        {Object.entries(ROLE_WORDS).map(([role, words]) => (
          <li key={role}>
            <strong>{words.name}</strong>: {words.can}
          </li>
        ))}
      </ul>
      {shown !== null && (
        <SecretNotice
          title={`Token of ${shown.name}`}
          secret={shown.token}
          noun="token"
          onDone={() => setShown(null)}
        >
          <p>Give it to {shown.name}: they sign in to the console with it.</p>
        </SecretNotice>
      )}
      <h2>Add an admin</h2>
      <NewAdminForm
        onCreated={(created) => {
          setShown({ name: created.name, token: created.token });
          loaded.reload();
        }}
      />
      <LoadView loaded={loaded} what="the admins">
        {({ admins }) =>
          admins.length === 0 ? (
            <Empty>No named admin yet: only the bootstrap owner (ADMIN_TOKENS) signs in.</Empty>
          ) : (
            <>
              {admins.map((admin) => (
                <AdminCard
                  key={admin.id}
                  admin={admin}
                  isSelf={self?.id === admin.id}
                  onChanged={loaded.reload}
                  onToken={setShown}
                />
              ))}
            </>
          )
        }
      </LoadView>
    </section>
  );
}
