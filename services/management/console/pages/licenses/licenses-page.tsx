import { useEffect, useState } from 'preact/hooks';
import { Empty } from '../../../../../libs/web/ui/components.js';
import { useApi } from '../../shared/api/admin-api.js';
import { Pager } from '../../shared/components/controls.js';
import { useLoad } from '../../shared/hooks/hooks.js';
import { ExportButton, PageSizeSelect } from '../../shared/components/lists.js';
import { LoadView } from '../../shared/components/notices.js';
import type { LicenseSearch } from './license-search.js';
import { SearchForm } from './search-form.js';
import { LicenseTable } from './license-table.js';
import { SelectionBar } from './selection-bar.js';
import { IssueLicense } from './issue-license.js';

/** The Licenses page: the search, the issue form, the list a page at a time and its selection. */
export function LicensesPage({
  search,
  onSearch,
  onOpen,
}: {
  search: LicenseSearch;
  onSearch: (search: LicenseSearch) => void;
  onOpen: (key: string) => void;
}) {
  const api = useApi();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const query = {
    q: search.q,
    product_id: search.product_id,
    plan_id: search.plan_id,
    status: search.status,
    sort: search.sort,
  };
  const result = useLoad(
    () =>
      api.call('searchLicenses', {
        query: { ...query, page: search.page, per_page: search.per_page },
      }),
    [api, search],
  );
  // A selection is of the page shown: another page, order or search starts without one.
  useEffect(() => setSelected(new Set()), [search]);
  const filtered =
    search.q !== '' || search.product_id !== null || search.plan_id !== null || search.status;
  const shown = result.data?.licenses ?? [];
  const chosen = shown.filter((license) => selected.has(license.license_key));
  return (
    <section aria-labelledby="licenses-heading">
      <h1 id="licenses-heading">Licenses</h1>
      <SearchForm search={search} onSearch={onSearch} />
      <IssueLicense onIssued={onOpen} />
      <div class="row list-tools">
        <PageSizeSelect
          value={search.per_page}
          onChange={(per_page) => onSearch({ ...search, per_page, page: 1 })}
        />
        <ExportButton file={() => api.file('exportLicenses', { query })} />
      </div>
      {chosen.length > 0 && (
        <SelectionBar
          licenses={chosen}
          onChanged={result.reload}
          onClear={() => setSelected(new Set())}
        />
      )}
      <LoadView loaded={result} what="licenses">
        {(page) =>
          page.licenses.length === 0 ? (
            <Empty>
              {filtered ? 'No license matches this search.' : 'There are no licenses yet.'}
            </Empty>
          ) : (
            <>
              <LicenseTable
                licenses={page.licenses}
                sort={search.sort}
                onSort={(sort) => onSearch({ ...search, sort, page: 1 })}
                selected={selected}
                onSelect={setSelected}
                onOpen={onOpen}
              />
              <Pager
                page={page.page}
                perPage={page.per_page}
                total={page.total}
                noun="licenses"
                onPage={(n) => onSearch({ ...search, page: n })}
              />
            </>
          )
        }
      </LoadView>
    </section>
  );
}
