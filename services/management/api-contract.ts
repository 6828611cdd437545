/**
 * The management API as its client sees it, derived from the route table: the admin console
 * imports these as types only, so none of the server (nor zod) is bundled with it. What a call
 * may send and what it is answered are the schemas the route validates with (`RouteContract`,
 * kept by `adminRoute` and `managementRoute`); where each operation is, the console page's
 * config says (`adminEndpoints`, routes.ts; console-config.ts), from the same table.
 */
import type { z } from 'zod';
import type { ContractOf, RouteContract } from './route-makers/route-contract.js';
import type { managementRoutes } from './routes.js';

/**
 * Path or query fields as a client gives them: the text the schema reads or, where the schema
 * reads the text as a number or a boolean, that value, sent as its text (`String(12)`, `'12'`).
 */
type TextFields<Schema extends z.ZodType> = {
  [Name in keyof z.input<Schema>]:
    | z.input<Schema>[Name]
    | Extract<z.output<Schema>[Name & keyof z.output<Schema>], number | boolean>;
};

/** One operation as a client calls it. */
interface Operation<Contract extends RouteContract> {
  method: Contract['method'];
  path: Contract['path'];
  params: TextFields<Contract['params']>;
  query: TextFields<Contract['query']>;
  /** The JSON body, or the fields of the multipart form (`file` the file). */
  body: Contract['sends'] extends 'multipart'
    ? TextFields<Contract['body']>
    : z.input<Contract['body']>;
  sends: Contract['sends'];
  /** The `data` of the answer (never for a CSV export, which answers a file). */
  data: z.output<Contract['data']>;
  answers: Contract['answers'];
}

type Contracts = ContractOf<(typeof managementRoutes)[number]>;

/** Every operation of the management API a client may call, by operation id. */
export type ManagementApi = {
  [Contract in Contracts as Contract['operationId']]: Operation<Contract>;
};
