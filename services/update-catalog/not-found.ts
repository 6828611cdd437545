import { refusal, type Refusal } from '../../libs/contracts/index.js';

/** The refusal of a catalog record that does not exist, in one wording for every handler. */
export const notFound = (what: 'Product' | 'Version' | 'File', id: number): Refusal =>
  refusal('NOT_FOUND', `${what} ${id} does not exist.`);
