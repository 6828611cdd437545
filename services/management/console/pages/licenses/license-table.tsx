import { useEffect, useRef } from 'preact/hooks';
import type { LicenseSummary } from '../../../../../libs/contracts/index.js';
import { type LicenseSortField, type SortOf } from '../../../../../libs/contracts/bounds.js';
import { Table, type ColumnHead } from '../../../../../libs/web/ui/components.js';
import { Time } from '../../../../../libs/web/ui/time.js';
import { useProductsAndPlans } from '../../shared/hooks/products-and-plans.js';
import { LICENSE_SORT_HEADINGS, SELECTION_WORDS } from '../../shared/words/list-words.js';
import { sortableColumn } from '../../shared/components/lists.js';
import { StatusBadge, usage } from '../../shared/words/words.js';

/** The dates of the list, which a first press of their heading orders newest first. */
const DATE_FIELDS: readonly LicenseSortField[] = ['created_at', 'expires_at'];

/** The licenses of a page, each opening its detail, with a box to select it and headings that order the list. */
export function LicenseTable({
  licenses,
  sort,
  onSort,
  selected,
  onSelect,
  onOpen,
}: {
  licenses: readonly LicenseSummary[];
  sort: SortOf<LicenseSortField>;
  onSort: (sort: SortOf<LicenseSortField>) => void;
  selected: ReadonlySet<string>;
  onSelect: (keys: ReadonlySet<string>) => void;
  onOpen: (key: string) => void;
}) {
  const { productTitle, planName } = useProductsAndPlans();
  const sortable = (field: LicenseSortField) =>
    sortableColumn({
      field,
      heading: LICENSE_SORT_HEADINGS[field],
      sort,
      onSort,
      newestFirst: DATE_FIELDS,
    });
  const onPage = licenses.filter((license) => selected.has(license.license_key)).length;
  const all = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (all.current) all.current.indeterminate = onPage > 0 && onPage < licenses.length;
  }, [onPage, licenses.length]);
  const toggle = (key: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(key);
    else next.delete(key);
    onSelect(next);
  };
  const selectAll: ColumnHead = {
    label: SELECTION_WORDS.selectAll,
    cellLabel: SELECTION_WORDS.selectOne,
    head: (
      <input
        ref={all}
        type="checkbox"
        aria-label={SELECTION_WORDS.selectAll}
        checked={licenses.length > 0 && onPage === licenses.length}
        onChange={(event) =>
          onSelect(new Set(event.currentTarget.checked ? licenses.map((l) => l.license_key) : []))
        }
      />
    ),
  };
  return (
    <Table
      columns={[
        selectAll,
        sortable('license_key'),
        sortable('customer_email'),
        'Product',
        'Plan',
        'Status',
        'Activations',
        sortable('expires_at'),
        sortable('created_at'),
        'Last check',
      ]}
    >
      {licenses.map((license) => (
        <tr
          key={license.license_key}
          class={selected.has(license.license_key) ? 'selected' : undefined}
        >
          <td>
            <input
              type="checkbox"
              aria-label={SELECTION_WORDS.select(license.license_key)}
              checked={selected.has(license.license_key)}
              onChange={(event) => toggle(license.license_key, event.currentTarget.checked)}
            />
          </td>
          <td>
            <button
              type="button"
              class="link mono key"
              aria-label={`Open license ${license.license_key}`}
              onClick={() => onOpen(license.license_key)}
            >
              {license.license_key}
            </button>
          </td>
          <td class="customer">
            {license.customer === null ? (
              <span class="muted">none</span>
            ) : (
              <>
                <span class="mono">{license.customer.email}</span>
                {license.customer.name !== null && (
                  <span class="muted block">{license.customer.name}</span>
                )}
              </>
            )}
          </td>
          <td>{license.product ?? productTitle(license.product_id)}</td>
          <td>{license.plan ?? planName(license.plan_id)}</td>
          <td>
            <StatusBadge status={license.status} />
          </td>
          <td>{usage(license)}</td>
          <td>
            <Time value={license.expires_at} empty="Does not expire" />
          </td>
          <td>
            <Time value={license.created_at} />
          </td>
          <td>
            <Time value={license.last_check_at} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
