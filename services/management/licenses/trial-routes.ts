import { z } from 'zod';
import { BooleanText, IdText, ListTrialsRequest } from '../../../libs/contracts/index.js';
import { parseWith } from '../../../libs/http/index.js';
import { adminErrors } from '../route-makers/admin-errors.js';
import { absentIfEmpty, pageFields } from '../route-makers/admin-inputs.js';
import { ADMIN_BASE } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

/** The trials' list query: a product, converted or not, and the page. */
const TrialListQuery = z.strictObject({
  product_id: absentIfEmpty(IdText).meta({ description: 'Only trials of this product.' }),
  converted: absentIfEmpty(BooleanText).meta({
    description: 'true: converted trials only; false: those not converted.',
  }),
  ...pageFields('Trials'),
});

/** Trials (docs/api-decisions.md, "Trials"), owned by the license service. */
export const trialRoutes = [
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/trials`,
    operationId: 'listTrials',
    summary:
      'Trials, newest first: the product, the identifier, the trial license, when it started ' +
      'and expires, and when a paid license activated on the identifier converted it.',
    tag: 'Trials',
    query: TrialListQuery,
    rpc: 'license.listTrials',
    // The contract fills in absent fields and bounds page and per_page.
    request: ({ query }) => parseWith(ListTrialsRequest, query, 'query'),
    success: { status: 200, description: 'One page of the trials.' },
    errors: { 400: adminErrors[400]('An unknown, repeated or malformed parameter.') },
  }),
] as const;
