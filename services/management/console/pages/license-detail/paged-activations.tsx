import { useState } from 'preact/hooks';
import type { Activation, LicenseDetail } from '../../../../../libs/contracts/index.js';
import { Empty, Field } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { DETAIL_ACTIVATIONS } from '../../../../../libs/contracts/bounds.js';
import { Pager } from '../../shared/components/controls.js';
import { Input } from '../../shared/components/fields.js';
import { useLoad, type Removal } from '../../shared/hooks/hooks.js';
import { LoadView } from '../../shared/components/notices.js';
import { ActivationTable } from './activation-table.js';
import { NORMALISATION } from './identifier-words.js';

/**
 * All the activations of a license whose detail holds only the first ones: a page at a time
 * from GET /licenses/{key}/activations, or the one an identifier search finds. Loaded again
 * after every change of the license.
 */
export function PagedActivations({
  license,
  removal,
}: {
  license: LicenseDetail;
  removal: Removal<Activation>;
}) {
  const api = useApi();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState({ q: '', page: 1 });
  const loaded = useLoad(
    () =>
      api.call('listActivations', {
        params: { key: license.license_key },
        query: { q: search.q, page: search.page, per_page: DETAIL_ACTIVATIONS },
      }),
    [api, license, search],
  );
  return (
    <>
      <form
        method="post"
        role="search"
        aria-label="Activations of this license"
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch({ q: draft.trim(), page: 1 });
        }}
      >
        <Field
          label="Find an activation by identifier"
          hint={`In any spelling. ${NORMALISATION[license.activation_type]}`}
        >
          <Input
            type="search"
            name="q"
            autocomplete="off"
            spellcheck={false}
            maxLength={255}
            value={draft}
            onValue={setDraft}
          />
        </Field>
        <div class="field submit actions">
          <button type="submit">Find</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft('');
              setSearch({ q: '', page: 1 });
            }}
          >
            Show all
          </button>
        </div>
      </form>
      <LoadView loaded={loaded} what="activations">
        {(page) =>
          page.activations.length === 0 ? (
            <Empty>
              {search.q === ''
                ? 'Nothing is activated with this license.'
                : 'No activation of this identifier.'}
            </Empty>
          ) : (
            <>
              <ActivationTable activations={page.activations} removal={removal} />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="activations"
                onPage={(n) => setSearch({ ...search, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </>
  );
}
