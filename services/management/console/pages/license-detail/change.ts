import type { LicenseDetail } from '../../../../../libs/contracts/index.js';

/** A change's answer: the license as it now is, shown in place of the one loaded. */
export type Change = (license: LicenseDetail) => void;
