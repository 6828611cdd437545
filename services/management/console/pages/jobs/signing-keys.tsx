import { ErrorNote } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { Loading } from '../../shared/components/notices.js';

/**
 * The public API's signing keys (docs/operations.md, "Signing keys"): which one signs answers
 * and license files now, which are published, and the address clients fetch them from.
 */
export function SigningKeys() {
  const api = useApi();
  const keys = useLoad(() => api.call('signingKeys'), [api]);
  const data = keys.data;
  return (
    <section aria-labelledby="signing-keys-heading">
      <h2 id="signing-keys-heading">Signing keys</h2>
      <ErrorNote error={keys.error} />
      {data === null ? (
        keys.loading && <Loading what="the signing keys" />
      ) : (
        <dl class="facts" data-signing-keys>
          <dt>Signing now</dt>
          <dd class="mono">
            {data.current_kid ?? <span class="muted">no signing key configured here</span>}
          </dd>
          <dt>Published</dt>
          <dd class="mono">
            {data.kids.length === 0 ? (
              <span class="muted">none</span>
            ) : (
              <ul class="plain">
                {data.kids.map((kid) => (
                  <li key={kid}>{kid}</li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Key set</dt>
          <dd class="mono">{data.key_set_url}</dd>
        </dl>
      )}
    </section>
  );
}
