import type { LicenseStatus } from '../../../../../libs/contracts/index.js';
import {
  DEFAULT_LICENSE_SORT,
  type LicenseSortField,
  type SortOf,
} from '../../../../../libs/contracts/bounds.js';
import { DEFAULT_PAGE_SIZE, type PageSize } from '../../shared/lib/list-state.js';

/** The license search (spec 2.2): kept by the console, so it is still there after a detail. */
export interface LicenseSearch {
  q: string;
  product_id: number | null;
  plan_id: number | null;
  status: LicenseStatus | null;
  sort: SortOf<LicenseSortField>;
  per_page: PageSize;
  page: number;
}

export const NO_SEARCH: LicenseSearch = {
  q: '',
  product_id: null,
  plan_id: null,
  status: null,
  sort: DEFAULT_LICENSE_SORT,
  per_page: DEFAULT_PAGE_SIZE,
  page: 1,
};
